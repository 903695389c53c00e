/**
 * Stamping: the header a message goes out with. A direct call (discovery, a
 * tool) is a request of its own: one fresh id is its `id`, `request` and
 * `conversation`, at `sequence` 0. A reply has a fresh id, copies the request's
 * `request` and `conversation`, and is addressed to the request's sender.
 */
import { newMessageId } from './ids.js';
import { protocolOf, type BodyOf, type Header, type Identity, type MessageKind, type MessageOfKind, type ProtocolOf } from './protocol.js';
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

/** How a task request is addressed: its id (fresh, or derived so that a request sent again is the same task) and its place in a conversation. */
export interface TaskAddress {
  id: string;
  /** The conversation it continues; a request opening one is its own (`conversation` = `id`). */
  conversation?: string;
  /** The request whose task asks for this one. */
  parent?: string;
  sender: string;
  recipient: string;
}

/** A task request (logbook's binding, docs/reference/a2a.md part 2): `request` = `id`, at sequence 0. */
export function stampTaskRequest(body: BodyOf<'request'>, address: TaskAddress): MessageOfKind['request'] {
  const header: Header<ProtocolOf<'request'>> = {
    protocol: protocolOf('request'),
    id: address.id,
    request: address.id,
    conversation: address.conversation ?? address.id,
    ...(address.parent ? { parent: address.parent } : {}),
    sequence: 0,
    time: formatWireTime(),
    sender: identity(address.sender),
    recipient: identity(address.recipient),
  };
  return { ...header, ...body };
}

/**
 * A message of task `to` (its ack, an event, its end) at `sequence`: a fresh id,
 * the request's `request`, `conversation` and `parent` (so a sub-task's stream
 * is correlated with its parent's), addressed to the request's sender.
 */
export function stampTaskReply<K extends 'ack' | 'event' | 'result' | 'error'>(
  kind: K,
  body: BodyOf<K>,
  to: Header,
  sequence: number,
  sender: string,
): MessageOfKind[K] {
  const header: Header = {
    protocol: protocolOf(kind),
    id: newMessageId(),
    request: to.request,
    conversation: to.conversation,
    ...(to.parent ? { parent: to.parent } : {}),
    sequence,
    time: formatWireTime(),
    sender: identity(sender),
    ...(to.sender.name ? { recipient: identity(to.sender.name) } : {}),
  };
  return { ...header, ...body } as MessageOfKind[K];
}

/** A `cancel` of task `request` (of `conversation`), from `sender` to the agent running it. */
export function stampCancel(body: BodyOf<'cancel'>, task: { request: string; conversation?: string }, sender: string, recipient: string): MessageOfKind['cancel'] {
  const header: Header<ProtocolOf<'cancel'>> = {
    protocol: protocolOf('cancel'),
    id: newMessageId(),
    request: task.request,
    conversation: task.conversation ?? task.request,
    sequence: 0,
    time: formatWireTime(),
    sender: identity(sender),
    recipient: identity(recipient),
  };
  return { ...header, ...body };
}
