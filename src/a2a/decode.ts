/**
 * Reading a body off the wire, strictly, in the reference's order: its size
 * first (before anything is decoded), then JSON, its protocol, its schema
 * (schemas.ts: an unknown field is refused) and its time. Raw JSON (a tool's
 * input, a descriptor's input_schema) is cut out of the body as the text it was
 * written as, never re-serialized, so encodeMessage gives the same bytes back.
 * Every refusal is `invalid_message` with one line saying what is wrong.
 */
import { LogbookError, RawJson, elementSpans, memberSpans, skipSpace, type Span } from '../core/index.js';
import { MAX_MESSAGE_BYTES, kindOf, protocolOf, type A2AMessage, type MessageKind, type MessageOfKind } from './protocol.js';
import { schemaProblem } from './schemas.js';
import { normalizeWireTime } from './wire-time.js';

export type Body = Uint8Array | string;

function refused(message: string): LogbookError {
  return new LogbookError('invalid_message', message);
}

/** The body's size in bytes, as the wire carries it. */
export function bodySize(body: Body): number {
  return typeof body === 'string' ? Buffer.byteLength(body, 'utf8') : body.byteLength;
}

/** `invalid_message` when the body is over the limit; nothing else of it is looked at. */
export function checkSize(body: Body): void {
  const size = bodySize(body);
  if (size > MAX_MESSAGE_BYTES) throw refused(`the body is ${size} bytes, over the limit of ${MAX_MESSAGE_BYTES} (768 KiB)`);
}

/** Invalid UTF-8 is read as U+FFFD, as Go reads it. */
const utf8 = new TextDecoder('utf-8', { fatal: false });

interface Parsed {
  text: string;
  value: Record<string, unknown>;
}

function parse(body: Body): Parsed {
  checkSize(body);
  const text = typeof body === 'string' ? body : utf8.decode(body);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw refused(`the body is not JSON: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw refused('the body is not a JSON object');
  return { text, value: value as Record<string, unknown> };
}

/** A body of a protocol this build does not know, which did not ask to be understood: it may be passed over. */
export interface NotUnderstood {
  understood: false;
  protocol: string;
}

const shownProtocol = (p: unknown): string => (typeof p === 'string' ? JSON.stringify(p.length > 80 ? `${p.slice(0, 80)}...` : p) : 'none');

/** The top-level members' spans of the body's object. */
function spansOf(text: string, at = skipSpace(text, 0)): Map<string, Span> {
  return memberSpans(text, at);
}

const raw = (text: string, span: Span | undefined): RawJson | undefined => (span === undefined ? undefined : RawJson.fromValidText(text.slice(span[0], span[1])));

/** The message, its raw fields taken from the body's text and its time as Go writes it back. */
function build(kind: MessageKind, { text, value }: Parsed): A2AMessage {
  const time = normalizeWireTime(value.time as string);
  if (time === null) throw refused(`time ${JSON.stringify(value.time)} is not an RFC 3339 time`);
  const message = { ...value, time } as Record<string, unknown>;
  const top = spansOf(text);
  if (kind === 'tool.request' && 'input' in value) message.input = raw(text, top.get('input'));
  if (kind === 'event') {
    const block = { ...(value.block as Record<string, unknown>) };
    if (block.type === 'tool_call' && 'input' in block) block.input = raw(text, spansOf(text, top.get('block')![0]).get('input'));
    message.block = block;
  }
  if (kind === 'discovery.reply' && Array.isArray(value.tools)) {
    const elements = elementSpans(text, top.get('tools')![0]);
    message.tools = (value.tools as Record<string, unknown>[]).map((tool, i) => {
      if (!('input_schema' in tool)) return { ...tool };
      return { ...tool, input_schema: raw(text, spansOf(text, elements[i]![0]).get('input_schema')) };
    });
  }
  return message as unknown as A2AMessage;
}

function checked(kind: MessageKind, parsed: Parsed): A2AMessage {
  const problem = schemaProblem(kind, parsed.value);
  if (problem !== null) throw refused(`the ${kind} body ${problem}`);
  return build(kind, parsed);
}

/**
 * A body that must be a `kind` (the one its path carries): anything else,
 * whatever its protocol, is refused.
 */
export function decodeMessage<K extends MessageKind>(body: Body, kind: K): MessageOfKind[K] {
  const parsed = parse(body);
  const protocol = parsed.value.protocol;
  if (protocol !== protocolOf(kind)) throw refused(`the body is of protocol ${shownProtocol(protocol)}, where ${protocolOf(kind)} is expected`);
  return checked(kind, parsed) as MessageOfKind[K];
}

/**
 * A body of any kind (a stream carries several). One of a protocol this build
 * does not know is passed over unless it says `must_understand`, when it is
 * refused: it must fail closed.
 */
export function decodeAnyMessage(body: Body): A2AMessage | NotUnderstood {
  const parsed = parse(body);
  const protocol = parsed.value.protocol;
  const kind = typeof protocol === 'string' ? kindOf(protocol) : undefined;
  if (kind !== undefined) return checked(kind, parsed);
  if (typeof protocol !== 'string') throw refused('the body has no protocol');
  if (parsed.value.must_understand === true) {
    throw refused(`the body is of protocol ${shownProtocol(protocol)}, which this build does not know, and it must be understood`);
  }
  return { understood: false, protocol };
}
