/**
 * Stamping: the header a message goes out with. A direct call (discovery, a
 * tool) is a request of its own: one fresh id is its `id`, `request` and
 * `conversation`, at `sequence` 0. A reply has a fresh id, copies the request's
 * `request` and `conversation`, and is addressed to the request's sender.
 */
import { newMessageId } from './ids.js';
import { protocolOf, type BodyOf, type Header, type Identity, type MessageKind, type MessageOfKind } from './protocol.js';
import { formatWireTime } from './wire-time.js';

function identity(name: string): Identity {
  return { name };
}

/** A request of `kind` from `sender`, to `recipient` when known. */
export function stampRequest<K extends MessageKind>(kind: K, body: BodyOf<K>, sender: string, recipient?: string): MessageOfKind[K] {
  const id = newMessageId();
  const header: Header = {
    protocol: protocolOf(kind),
    id,
    request: id,
    conversation: id,
    sequence: 0,
    time: formatWireTime(),
    sender: identity(sender),
    ...(recipient ? { recipient: identity(recipient) } : {}),
  };
  return { ...header, ...body } as MessageOfKind[K];
}

/** The reply of `kind` from `sender` to request `to`. */
export function stampReply<K extends MessageKind>(kind: K, body: BodyOf<K>, to: Header, sender: string): MessageOfKind[K] {
  const header: Header = {
    protocol: protocolOf(kind),
    id: newMessageId(),
    request: to.request,
    conversation: to.conversation,
    sequence: 0,
    time: formatWireTime(),
    sender: identity(sender),
    ...(to.sender.name ? { recipient: identity(to.sender.name) } : {}),
  };
  return { ...header, ...body } as MessageOfKind[K];
}
