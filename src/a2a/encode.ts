/**
 * encodeMessage: one message -> its body, in the bytes Go's encoding/json gives
 * the reference's types: header keys in the header's order, then the kind's
 * fields in theirs; `sequence`, `accepted`, a result's `stop_reason`, `error`,
 * `prompt`, `name`, `version`, `text`, `call_id` (and the ids of a block) always
 * written, every other field omitted at its zero value (a present optional object
 * is written even when empty, as a non-nil pointer is); a block's keys sorted (the
 * reference marshals a block through a map); strings and raw JSON in the record
 * format's spelling (HTML-safe escapes, U+2028 and U+2029 escaped), which is Go's.
 * decodeMessage (decode.ts) reads every such body back to a message that encodes
 * to the same bytes.
 */
import { quote } from '../core/index.js';
import type {
  A2AMessage,
  Budget,
  EventBlock,
  ExecResult,
  Header,
  Identity,
  MessageOfKind,
  ToolDescriptor,
  ToolOutcomeFields,
  Usage,
} from './protocol.js';
import { kindOf } from './protocol.js';

/** `"key":value` members of one object, skipping those a caller leaves undefined. */
class Members {
  private readonly parts: [key: string, json: string][] = [];

  raw(key: string, json: string | undefined): this {
    if (json !== undefined) this.parts.push([key, json]);
    return this;
  }

  string(key: string, value: string): this {
    return this.raw(key, quote(value));
  }

  /** Omitted at "" (Go's omitempty). */
  optString(key: string, value: string | undefined): this {
    return value ? this.string(key, value) : this;
  }

  int(key: string, value: number): this {
    if (!Number.isSafeInteger(value)) throw new TypeError(`${key} must be an integer, got ${value}`);
    return this.raw(key, String(value));
  }

  /** Omitted at 0. */
  optInt(key: string, value: number | undefined): this {
    return value ? this.int(key, value) : this;
  }

  /** Omitted at false. */
  optTrue(key: string, value: boolean | undefined): this {
    return value ? this.raw(key, 'true') : this;
  }

  /** Omitted when empty (a nil or empty slice). */
  optStrings(key: string, values: readonly string[] | undefined): this {
    return values && values.length > 0 ? this.raw(key, `[${values.map(quote).join(',')}]`) : this;
  }

  /** Omitted when absent (a nil pointer); written, possibly `{}`, when present. */
  optObject<T>(key: string, value: T | undefined, encode: (v: T) => string): this {
    return value !== undefined ? this.raw(key, encode(value)) : this;
  }

  /** The object, its members in the order given, or sorted by key (as Go writes a map). */
  text(order: 'given' | 'sorted' = 'given'): string {
    const parts = order === 'sorted' ? [...this.parts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : this.parts;
    return `{${parts.map(([key, json]) => `${quote(key)}:${json}`).join(',')}}`;
  }
}

function identity(i: Identity): string {
  return new Members().string('name', i.name).optString('instance', i.instance).text();
}

function usage(u: Usage): string {
  return new Members().optInt('input_tokens', u.input_tokens).optInt('output_tokens', u.output_tokens).text();
}

function budget(b: Budget): string {
  return new Members().optInt('max_tokens', b.max_tokens).optInt('max_iterations', b.max_iterations).optString('call_timeout', b.call_timeout).text();
}

function exec(e: ExecResult): string {
  return new Members().optString('command', e.command).optInt('exit_code', e.exit_code).optTrue('truncated', e.truncated).text();
}

function outcomeFields(m: Members, o: ToolOutcomeFields): Members {
  return m.optTrue('is_error', o.is_error).optString('output', o.output).optObject('exec', o.exec, exec);
}

function descriptor(t: ToolDescriptor): string {
  return new Members()
    .string('name', t.name)
    .optString('description', t.description)
    .raw('input_schema', t.input_schema?.text)
    .text();
}

/** A block's own members, then `type`, written in sorted key order. */
function blockMembers(b: EventBlock): Members {
  const m = new Members();
  switch (b.type) {
    case 'thinking':
      return m.string('text', b.text).optString('signature', b.signature).optString('provider', b.provider);
    case 'text':
      return m.string('text', b.text);
    case 'tool_call':
      return m.string('id', b.id).string('name', b.name).raw('input', b.input?.text);
    case 'tool_result':
      return outcomeFields(m.string('call_id', b.call_id), b);
    case 'agent_call':
      return m.string('id', b.id).string('name', b.name).string('task', b.task);
    case 'status':
      return m.optInt('iteration', b.iteration).optString('phase', b.phase).optObject('usage', b.usage, usage);
  }
}

export function encodeBlock(b: EventBlock): string {
  return blockMembers(b).string('type', b.type).text('sorted');
}

function header(h: Header): Members {
  return new Members()
    .string('protocol', h.protocol)
    .string('id', h.id)
    .string('request', h.request)
    .string('conversation', h.conversation)
    .optString('parent', h.parent)
    .int('sequence', h.sequence)
    .string('time', h.time)
    .raw('sender', identity(h.sender))
    .optObject('recipient', h.recipient, identity)
    .optTrue('must_understand', h.must_understand);
}

type Encoders = { [K in keyof MessageOfKind]: (m: Members, msg: MessageOfKind[K]) => Members };

const OWN_FIELDS: Encoders = {
  request: (m, r) =>
    m
      .string('prompt', r.prompt)
      .optString('context', r.context)
      .optStrings('tool_hints', r.tool_hints)
      .optObject('budget', r.budget, budget)
      .raw('stream', r.stream === undefined ? undefined : String(r.stream)),
  event: (m, e) => m.raw('block', encodeBlock(e.block)),
  result: (m, r) => m.string('stop_reason', r.stop_reason).optString('text', r.text).optObject('usage', r.usage, usage),
  error: (m, e) => m.optString('stop_reason', e.stop_reason).string('error', e.error).optString('code', e.code),
  cancel: (m, c) => m.optString('reason', c.reason),
  ack: (m, a) => m.raw('accepted', String(a.accepted)).optString('reason', a.reason),
  'tool.request': (m, t) => m.string('name', t.name).raw('input', t.input?.text),
  'tool.reply': (m, t) => outcomeFields(m, t),
  'discovery.request': (m) => m,
  'discovery.reply': (m, d) =>
    m
      .string('name', d.name)
      .string('version', d.version)
      .optString('description', d.description)
      .optStrings('protocols', d.protocols)
      .raw('tools', d.tools && d.tools.length > 0 ? `[${d.tools.map(descriptor).join(',')}]` : undefined),
};

/** The message's body: one JSON object, no whitespace, in the reference's bytes. */
export function encodeMessage(message: A2AMessage): string {
  const kind = kindOf(message.protocol);
  if (kind === undefined) throw new TypeError(`cannot encode a message of protocol ${JSON.stringify(message.protocol)}`);
  const own = (OWN_FIELDS[kind] as (m: Members, msg: A2AMessage) => Members)(header(message), message);
  return own.text();
}
