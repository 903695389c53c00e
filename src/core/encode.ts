/**
 * encodeRecord: one record -> one journal line (without the newline), in the
 * bytes the reference writer's JSON encoding gives: keys in the format's order,
 * no whitespace, optional (omitempty) fields absent at their zero value, a
 * message with no blocks written `"content":null` (a nil slice), byte fields as
 * the base64 they are held in (byte-field.ts), strings and raw JSON in the
 * format's spelling (json-text.ts). decodeRecord (decode.ts) reads every such
 * line back to a record that encodes to the same line.
 */
import { LogbookError } from './errors.js';
import { quote } from './json-text.js';
import { LiteralOutput } from './output-literal.js';
import {
  PROTOCOL_IDS,
  VERSION,
  payloadKind,
  type AssistantPayload,
  type Block,
  type Fingerprint,
  type JournalRecord,
  type Message,
  type MetaPayload,
  type PayloadKind,
  type ReadTerminalPayload,
  type ToolResultBody,
  type ToolResultPayload,
  type UserPayload,
} from './records.js';

function int(n: number, what: string): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new TypeError(`${what} must be a non-negative integer, got ${n}`);
  return String(n);
}

/**
 * How the text of strings and of carried raw JSON is written: as the journal
 * holds it (the default), or also escaped for a terminal (state-json.ts). The
 * JSON around them is ASCII, the same in both.
 */
export interface Spelling {
  quote(s: string): string;
  raw(text: string): string;
}

const JOURNAL: Spelling = { quote, raw: (text) => text };

export function encodeToolResultBody(r: ToolResultBody): string {
  return encodeToolResultBodyAs(r, JOURNAL);
}

export function encodeBlock(b: Block): string {
  return encodeBlockAs(b, JOURNAL);
}

/** A message with no blocks (an empty model reply) is written `"content":null`, as the reference writes it. */
export function encodeMessage(m: Message): string {
  return encodeMessageAs(m, JOURNAL);
}

/** encodeToolResultBody, its strings in `spelling`; an output read as its literal is written as that literal, every spelling's (output-literal.ts). */
export function encodeToolResultBodyAs(r: ToolResultBody, spelling: Spelling): string {
  return `${resultHead(r, spelling)}${r instanceof LiteralOutput ? r.literal : spelling.quote(r.content)}${resultTail(r)}`;
}

/** A tool result body's text before its output, and after it. */
const resultHead = (r: ToolResultBody, spelling: Spelling): string => `{"tool_use_id":${spelling.quote(r.tool_use_id)},"content":`;
const resultTail = (r: ToolResultBody): string => (r.is_error ? ',"is_error":true}' : '}');

/** encodeBlock, its strings and raw values in `spelling`. */
export function encodeBlockAs(b: Block, spelling: Spelling): string {
  const q = spelling.quote;
  if ('text' in b) return `{"text":{"text":${q(b.text.text)}}}`;
  if ('tool_use' in b) {
    const t = b.tool_use;
    return `{"tool_use":{"id":${q(t.id)},"name":${q(t.name)},"input":${spelling.raw(t.input.text)}}}`;
  }
  if ('tool_result' in b) return `{"tool_result":${encodeToolResultBodyAs(b.tool_result, spelling)}}`;
  if ('thinking' in b) {
    const { text, signature } = b.thinking;
    const parts: string[] = [];
    if (text) parts.push(`"text":${q(text)}`);
    if (signature) parts.push(`"signature":${q(signature)}`);
    return `{"thinking":{${parts.join(',')}}}`;
  }
  if ('provider' in b) return `{"provider":{"kind":${q(b.provider.kind)},"raw":${spelling.raw(b.provider.raw.text)}}}`;
  throw new TypeError('block has no known kind');
}

/** encodeMessage, its strings and raw values in `spelling`. */
export function encodeMessageAs(m: Message, spelling: Spelling): string {
  let text = '';
  putMessageAs(m, spelling, (piece) => {
    text += piece;
  });
  return text;
}

/**
 * encodeMessageAs's text after `before`, handed to `put` in order: each output
 * read as its literal as a piece of its own (a slice of its journal line,
 * never copied into a joined string), the text between them joined. A caller
 * writing a long run's outputs out again copies each once, not twice.
 */
export function putMessageAs(m: Message, spelling: Spelling, put: (piece: string) => void, before = ''): void {
  let text = `${before}{"role":${spelling.quote(m.role)},"content":`;
  if (m.content.length === 0) text += 'null';
  for (let i = 0; i < m.content.length; i++) {
    const b = m.content[i]!;
    text += i === 0 ? '[' : ',';
    if ('tool_result' in b && b.tool_result instanceof LiteralOutput) {
      put(`${text}{"tool_result":${resultHead(b.tool_result, spelling)}`);
      put(b.tool_result.literal);
      text = `${resultTail(b.tool_result)}}`;
    } else {
      text += encodeBlockAs(b, spelling);
    }
  }
  put(m.content.length === 0 ? `${text}}` : `${text}]}`);
}

export function encodeFingerprint(f: Fingerprint): string {
  return (
    `{"provider":${quote(f.provider)},"model":${quote(f.model)},"system_hash":${quote(f.system_hash)},` +
    `"tools_hash":${quote(f.tools_hash)},"thinking_mode":${quote(f.thinking_mode)},` +
    `"max_tokens":${int(f.max_tokens, 'max_tokens')},"max_iterations":${int(f.max_iterations, 'max_iterations')}}`
  );
}

function encodeMeta(m: MetaPayload): string {
  if (m.version !== VERSION) {
    throw new LogbookError('version', `refusing to write record format version ${m.version}; this build writes version ${VERSION}`);
  }
  return (
    `{"version":${VERSION},"run_id":${quote(m.run_id)},"created":${quote(m.created)},` +
    `"fingerprint":${encodeFingerprint(m.fingerprint)},"prompt":${quote(m.prompt)}${m.interactive ? ',"interactive":true' : ''}}`
  );
}

function encodeAssistant(a: AssistantPayload): string {
  let s = `{"iteration":${int(a.iteration, 'iteration')},"message":${encodeMessage(a.message)}`;
  if (a.stop_reason) s += `,"stop_reason":${quote(a.stop_reason)}`;
  s += `,"in_tokens":${int(a.in_tokens, 'in_tokens')},"out_tokens":${int(a.out_tokens, 'out_tokens')}`;
  // Optional counters vanish at zero, each on its own.
  if (a.cache_read_tokens) s += `,"cache_read_tokens":${int(a.cache_read_tokens, 'cache_read_tokens')}`;
  if (a.cache_create_tokens) s += `,"cache_create_tokens":${int(a.cache_create_tokens, 'cache_create_tokens')}`;
  return `${s}}`;
}

function encodeToolResult(t: ToolResultPayload): string {
  return `{"tool_use_id":${quote(t.tool_use_id)},"result":${encodeToolResultBody(t.result)}${t.remote ? ',"remote":true' : ''}}`;
}

export function encodeTerminal(t: ReadTerminalPayload): string {
  return `{"reason":${quote(t.reason)}${t.message ? `,"message":${quote(t.message)}` : ''}}`;
}

/** The record's journal line, without the trailing newline. */
export function encodeRecord(record: JournalRecord): string {
  const kind = payloadKind(record);
  const body = encodePayload(kind, record);
  return `{"seq":${int(record.seq, 'seq')},"protocol":"${PROTOCOL_IDS[kind]}","${kind}":${body}}`;
}

/** The payload of each kind, as a record holds it under that kind's key. */
interface PayloadOf {
  meta: MetaPayload;
  assistant: AssistantPayload;
  user: UserPayload;
  tool_result: ToolResultPayload;
  terminal: ReadTerminalPayload;
}

function encodePayload(kind: PayloadKind, record: JournalRecord): string {
  const r = record as unknown as PayloadOf;
  switch (kind) {
    case 'meta':
      return encodeMeta(r.meta);
    case 'assistant':
      return encodeAssistant(r.assistant);
    case 'user':
      return `{"message":${encodeMessage(r.user.message)}}`;
    case 'tool_result':
      return encodeToolResult(r.tool_result);
    case 'terminal':
      return encodeTerminal(r.terminal);
  }
}
