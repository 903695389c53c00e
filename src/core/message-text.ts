/**
 * A message as canonical JSON text, and messages held as that text until
 * something reads them. A fold checkpoint keeps its conversation this way
 * (fold-checkpoint.ts): a load makes one small object a message, whose
 * `content` is parsed from its text at its first read, so a resume of a long
 * run builds no tree of blocks it never looks at, and a provider whose wire
 * shape the text already is writes a request from it as it is (heldRun).
 *
 * The text: `{"role":R,"content":[B,...]}`, each block tagged by `type` with
 * its fields in this order: `{"type":"text","text":S}`,
 * `{"type":"tool_use","id":S,"name":S,"input":RAW}`,
 * `{"type":"tool_result","tool_use_id":S,"content":S,"is_error":true}`
 * (content and is_error only when set), `{"type":"thinking","text":S,
 * "signature":S}` (each only when not empty), `{"type":"provider","kind":S,
 * "raw":RAW}`; strings as JSON.stringify writes them once well-formed (a lone
 * surrogate as U+FFFD, as the journal stores it), raw values as their
 * canonical text. Pure: no IO.
 */
import { detached, stringEnd, valueEnd } from './json-scan.js';
import { RawJson } from './raw-json.js';
import type { Block, Message, TextBlock, ToolResultBlock, ToolResultBody, ToolUseBlock } from './records.js';

const str = (s: string): string => JSON.stringify(s.isWellFormed() ? s : s.toWellFormed());

/**
 * A text, tool_use or tool_result block as the Messages API takes it, without
 * its closing brace (where a request puts a cache breakpoint), strings
 * written by `quote`: the shape a message's canonical text holds these blocks
 * in, so that a held message is its request text as it is (heldRun).
 */
export function openApiBlockText(b: TextBlock | ToolUseBlock | ToolResultBlock, quote: (s: string) => string): string {
  if ('text' in b) return `{"type":"text","text":${quote(b.text.text)}`;
  if ('tool_use' in b) {
    const t = b.tool_use;
    return `{"type":"tool_use","id":${quote(t.id)},"name":${quote(t.name)},"input":${t.input.text}`;
  }
  const r = b.tool_result;
  return `{"type":"tool_result","tool_use_id":${quote(r.tool_use_id)}${r.content !== undefined ? `,"content":${quote(r.content)}` : ''}${r.is_error ? ',"is_error":true' : ''}`;
}

function blockText(b: Block): string {
  if ('text' in b || 'tool_use' in b || 'tool_result' in b) return `${openApiBlockText(b, str)}}`;
  if ('thinking' in b) {
    const { text, signature } = b.thinking;
    return `{"type":"thinking"${text ? `,"text":${str(text)}` : ''}${signature ? `,"signature":${str(signature)}` : ''}}`;
  }
  if ('provider' in b) return `{"type":"provider","kind":${str(b.provider.kind)},"raw":${b.provider.raw.text}}`;
  throw new TypeError('block has no known kind');
}

/** A message's canonical text: the text it is held as (holdMessages) while it is, else written from its blocks. */
export function canonicalMessageText(m: Message): string {
  const held = HELD.get(m);
  if (held !== undefined) return held.source.textOf(held.at, held.at + 1);
  return `{"role":${str(m.role)},"content":[${m.content.map(blockText).join(',')}]}`;
}

type Tagged = { type: string; [field: string]: unknown };

/**
 * The blocks of a message's canonical text. Raw values are cut out of the text
 * in block order: before a tool_use's `"input":` (a provider's `"raw":`) there
 * are only this block's and earlier blocks' strings, where a key's spelling
 * cannot occur unescaped, and the search goes on past each raw value.
 */
function contentOf(text: string): Block[] {
  const tagged = (JSON.parse(text) as { content: Tagged[] }).content;
  let from = 0;
  const rawAt = (key: string): RawJson => {
    const start = text.indexOf(key, from) + key.length;
    from = valueEnd(text, start);
    return RawJson.fromCanonicalText(detached(text.slice(start, from)));
  };
  return tagged.map((b): Block => {
    switch (b.type) {
      case 'text':
        return { text: { text: b.text as string } };
      case 'tool_use':
        return { tool_use: { id: b.id as string, name: b.name as string, input: rawAt(',"input":') } };
      case 'tool_result': {
        const r = { tool_use_id: b.tool_use_id } as ToolResultBody;
        if ('content' in b) r.content = b.content as string;
        if (b.is_error === true) r.is_error = true;
        return { tool_result: r };
      }
      case 'thinking': {
        const t: { text?: string; signature?: string } = {};
        if ('text' in b) t.text = b.text as string;
        if ('signature' in b) t.signature = b.signature as string;
        return { thinking: t };
      }
      default:
        return { provider: { kind: b.kind as string, raw: rawAt(',"raw":') } };
    }
  });
}

/** Messages' canonical texts, one after another and comma-separated, with where each is. */
class HeldSource {
  constructor(
    private readonly text: string,
    private readonly starts: readonly number[],
  ) {}

  /** The texts of messages `from` to `to` (exclusive), their commas between them. */
  textOf(from: number, to: number): string {
    return this.text.slice(this.starts[from], this.starts[to]! - 1);
  }
}

interface Held {
  source: HeldSource;
  at: number;
}

/** The messages still held as their text, and where; a message leaves once its content is read or set. */
const HELD = new WeakMap<Message, Held>();

/** `message`'s content from here on: its own property, as any other message's is. */
function settle(message: Message, content: Block[]): Block[] {
  HELD.delete(message);
  Object.defineProperty(message, 'content', { value: content, writable: true, enumerable: true, configurable: true });
  return content;
}

const HELD_CONTENT: PropertyDescriptor = {
  get(this: Message): Block[] {
    const held = HELD.get(this)!;
    return settle(this, contentOf(held.source.textOf(held.at, held.at + 1)));
  },
  set(this: Message, content: Block[]): void {
    settle(this, content);
  },
  enumerable: true,
  configurable: true,
};

/**
 * How util.inspect (a console, a debug log) shows a held message: as the
 * message it is, where it would show its content as `[Getter/Setter]`
 * without reading it; a message shown is still held. Not enumerable: nothing
 * that copies, compares or serializes a message sees it.
 */
const INSPECT = Symbol.for('nodejs.util.inspect.custom');
const HELD_INSPECT: PropertyDescriptor = {
  value(this: Message): Message {
    const held = HELD.get(this);
    return { role: this.role, content: held === undefined ? this.content : contentOf(held.source.textOf(held.at, held.at + 1)) };
  },
};

const ROLE_USER = '{"role":"user",';
const ROLE_ASSISTANT = '{"role":"assistant",';

const ROLE_KEY = '{"role":';
const CONTENT_KEY = ',"content":[';

/**
 * The role of the message whose canonical text is `text` from `start` to
 * `end`: null when that is not the opening and the end of a message's text.
 */
function roleAt(text: string, start: number, end: number): Message['role'] | null {
  if (text.charCodeAt(end - 1) !== 0x7d /* } */ || text.charCodeAt(end - 2) !== 0x5d /* ] */) return null;
  if (end < text.length && text.charCodeAt(end) !== 0x2c /* , */) return null;
  if (text.startsWith(ROLE_USER, start)) return 'user';
  if (text.startsWith(ROLE_ASSISTANT, start)) return 'assistant';
  // Any other role (none a journal holds) as its string.
  const open = start + ROLE_KEY.length;
  if (!text.startsWith(ROLE_KEY, start) || text.charCodeAt(open) !== 0x22 /* " */) return null;
  const close = stringEnd(text, open);
  return close + CONTENT_KEY.length < end && text.startsWith(CONTENT_KEY, close) ? (JSON.parse(text.slice(open, close)) as Message['role']) : null;
}

/**
 * The messages whose canonical texts `text` holds, comma-separated, each of
 * the length in `lengths`; null when the lengths do not add up to the text,
 * or cut it elsewhere than between messages (each piece opened and closed as
 * a message's text is). Each is a message like any other (its `role` and
 * `content` its own enumerable properties), whose content is parsed at its
 * first read.
 */
export function holdMessages(text: string, lengths: readonly number[]): Message[] | null {
  const starts = new Array<number>(lengths.length + 1);
  let at = 0;
  for (let i = 0; i < lengths.length; i++) {
    starts[i] = at;
    at += lengths[i]! + 1;
  }
  starts[lengths.length] = at;
  if (at - 1 !== text.length && !(lengths.length === 0 && text === '')) return null;
  const source = new HeldSource(text, starts);
  const messages = new Array<Message>(lengths.length);
  for (let i = 0; i < lengths.length; i++) {
    const role = roleAt(text, starts[i]!, starts[i + 1]! - 1);
    if (role === null) return null;
    const m = { role } as Message;
    Object.defineProperty(m, 'content', HELD_CONTENT);
    Object.defineProperty(m, INSPECT, HELD_INSPECT);
    HELD.set(m, { source, at: i });
    messages[i] = m;
  }
  return messages;
}

/**
 * The canonical text of `messages` from `from`, as far as they are held one
 * after another (in the order their texts were) and before `to`: the texts,
 * comma-separated, and the index after the last of them; null when
 * `messages[from]` is not held.
 */
export function heldRun(messages: readonly Message[], from: number, to: number): { text: string; end: number } | null {
  const first = HELD.get(messages[from]!);
  if (first === undefined) return null;
  let end = from + 1;
  while (end < to) {
    const next = HELD.get(messages[end]!);
    if (next?.source !== first.source || next.at !== first.at + (end - from)) break;
    end++;
  }
  return { text: first.source.textOf(first.at, first.at + (end - from)), end };
}
