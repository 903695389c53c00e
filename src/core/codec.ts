/**
 * encodeRecord / decodeRecord: one record <-> one journal line (without the
 * newline). For every line the format's writer produces,
 * encodeRecord(decodeRecord(line)) === line.
 */
import { LogbookError } from './errors.js';
import { quote } from './json-text.js';
import { RawJson } from './raw-json.js';
import {
  PAYLOAD_KINDS,
  PROTOCOL_IDS,
  TERMINAL_REASONS,
  VERSION,
  payloadKind,
  type AssistantPayload,
  type Block,
  type Fingerprint,
  type JournalRecord,
  type Message,
  type MetaPayload,
  type PayloadKind,
  type TerminalPayload,
  type ToolResultBody,
  type ToolResultPayload,
  type UserPayload,
} from './records.js';

// ---- encoding ---------------------------------------------------------------

function int(n: number, what: string): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new TypeError(`${what} must be a non-negative integer, got ${n}`);
  return String(n);
}

export function encodeToolResultBody(r: ToolResultBody): string {
  return `{"tool_use_id":${quote(r.tool_use_id)},"content":${quote(r.content)}${r.is_error ? ',"is_error":true' : ''}}`;
}

export function encodeBlock(b: Block): string {
  if ('text' in b) return `{"text":{"text":${quote(b.text.text)}}}`;
  if ('tool_use' in b) {
    const t = b.tool_use;
    return `{"tool_use":{"id":${quote(t.id)},"name":${quote(t.name)},"input":${t.input.text}}}`;
  }
  if ('tool_result' in b) return `{"tool_result":${encodeToolResultBody(b.tool_result)}}`;
  if ('thinking' in b) {
    const { text, signature } = b.thinking;
    const parts: string[] = [];
    if (text) parts.push(`"text":${quote(text)}`);
    if (signature) parts.push(`"signature":${quote(signature)}`);
    return `{"thinking":{${parts.join(',')}}}`;
  }
  if ('provider' in b) return `{"provider":{"kind":${quote(b.provider.kind)},"raw":${b.provider.raw.text}}}`;
  throw new TypeError('block has no known kind');
}

export function encodeMessage(m: Message): string {
  return `{"role":${quote(m.role)},"content":[${m.content.map(encodeBlock).join(',')}]}`;
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
  if (a.cache_read_tokens !== undefined) s += `,"cache_read_tokens":${int(a.cache_read_tokens, 'cache_read_tokens')}`;
  if (a.cache_create_tokens !== undefined) s += `,"cache_create_tokens":${int(a.cache_create_tokens, 'cache_create_tokens')}`;
  return `${s}}`;
}

function encodeToolResult(t: ToolResultPayload): string {
  return `{"tool_use_id":${quote(t.tool_use_id)},"result":${encodeToolResultBody(t.result)}${t.remote ? ',"remote":true' : ''}}`;
}

export function encodeTerminal(t: TerminalPayload): string {
  return `{"reason":${quote(t.reason)}${t.message ? `,"message":${quote(t.message)}` : ''}}`;
}

/** The record's journal line, without the trailing newline. */
export function encodeRecord(record: JournalRecord): string {
  const kind = payloadKind(record);
  let body: string;
  switch (kind) {
    case 'meta':
      body = encodeMeta((record as { meta: MetaPayload }).meta);
      break;
    case 'assistant':
      body = encodeAssistant((record as { assistant: AssistantPayload }).assistant);
      break;
    case 'user':
      body = `{"message":${encodeMessage((record as { user: UserPayload }).user.message)}}`;
      break;
    case 'tool_result':
      body = encodeToolResult((record as { tool_result: ToolResultPayload }).tool_result);
      break;
    case 'terminal':
      body = encodeTerminal((record as { terminal: TerminalPayload }).terminal);
      break;
  }
  return `{"seq":${int(record.seq, 'seq')},"protocol":"${PROTOCOL_IDS[kind]}","${kind}":${body}}`;
}

// ---- decoding ---------------------------------------------------------------
//
// Decoding validates the values JSON.parse made and keeps them, rather than
// building copies: a long journal is mostly these objects, so copying them would
// double what a load allocates. Only tool `input` and provider `raw` values are
// replaced (by their text), and an object holding an empty optional field (which
// the writer omits) is copied without it, so decode(encode(x)) stays canonical.

class Refusal extends Error {}

function refuse(what: string): never {
  throw new Refusal(what);
}

type Obj = Record<string, unknown>;

function obj(v: unknown, what: string): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) refuse(`${what} must be an object`);
  return v as Obj;
}

/** Refuses keys outside `allowed`; a record we cannot re-encode is not one we accept. */
function keys(o: Obj, allowed: readonly string[], what: string): void {
  for (const k in o) if (!allowed.includes(k)) refuse(`${what} has unknown field "${k}"`);
}

function str(o: Obj, k: string, what: string): string {
  const v = o[k];
  if (typeof v !== 'string') refuse(`${what}.${k} must be a string`);
  return v;
}

function optStr(o: Obj, k: string, what: string): string | undefined {
  return o[k] === undefined ? undefined : str(o, k, what);
}

function uint(o: Obj, k: string, what: string): number {
  const v = o[k];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) refuse(`${what}.${k} must be a non-negative integer`);
  return v;
}

function optUint(o: Obj, k: string, what: string): number | undefined {
  return o[k] === undefined ? undefined : uint(o, k, what);
}

function optBool(o: Obj, k: string, what: string): boolean | undefined {
  const v = o[k];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') refuse(`${what}.${k} must be a boolean`);
  return v;
}

/** `o` without the fields named, for an optional field present but empty (false, ""). */
function without(o: Obj, drop: (k: string) => boolean): Obj {
  const out: Obj = {};
  for (const k in o) if (!drop(k)) out[k] = o[k];
  return out;
}

/** Hands out the raw spans of a line in textual order, as blocks ask for them. */
class RawSpans {
  private next = 0;
  constructor(private readonly spans: string[]) {}
  /** `what` names the block, for the error only. */
  take(what: () => string): RawJson {
    const span = this.spans[this.next++];
    if (span === undefined) refuse(`${what()} has no raw JSON value`);
    return RawJson.fromValidText(span);
  }
  assertAllTaken(): void {
    if (this.next !== this.spans.length) refuse('raw JSON fields outside tool_use or provider blocks');
  }
}

const TOOL_RESULT_BODY_KEYS = ['tool_use_id', 'content', 'is_error'];

function decodeToolResultBody(v: unknown, what: string): ToolResultBody {
  const o = obj(v, what);
  keys(o, TOOL_RESULT_BODY_KEYS, what);
  str(o, 'tool_use_id', what);
  str(o, 'content', what);
  const isError = optBool(o, 'is_error', what);
  return (isError === false ? without(o, (k) => k === 'is_error') : o) as unknown as ToolResultBody;
}

/** Where block `i` of a message sits, for errors only. */
const blockPath = (what: string, i: number, kind?: string): string => `${what}.content[${i}]${kind === undefined ? '' : `.${kind}`}`;

function decodeBlock(v: unknown, raws: RawSpans, what: string, i: number): Block {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) refuse(`${blockPath(what, i)} must be an object`);
  const o = v as Obj;
  let kind: string | undefined;
  let count = 0;
  for (const k in o) {
    kind ??= k;
    count++;
  }
  if (count !== 1) refuse(`${blockPath(what, i)} must have exactly one key, has ${count}`);
  const body = o[kind!];
  if (body === null || typeof body !== 'object' || Array.isArray(body)) refuse(`${blockPath(what, i, kind)} must be an object`);
  const b = body as Obj;
  switch (kind) {
    case 'text':
      for (const k in b) if (k !== 'text') refuse(`${blockPath(what, i, kind)} has unknown field "${k}"`);
      if (typeof b.text !== 'string') refuse(`${blockPath(what, i, kind)}.text must be a string`);
      return o as unknown as Block;
    case 'thinking': {
      const w = blockPath(what, i, kind);
      keys(b, ['text', 'signature'], w);
      const text = optStr(b, 'text', w);
      const signature = optStr(b, 'signature', w);
      if (text === '' || signature === '') return { thinking: without(b, (k) => b[k] === '') } as unknown as Block;
      return o as unknown as Block;
    }
    case 'tool_use':
      for (const k in b) if (k !== 'id' && k !== 'name' && k !== 'input') refuse(`${blockPath(what, i, kind)} has unknown field "${k}"`);
      if (!('input' in b)) refuse(`${blockPath(what, i, kind)}.input is missing`);
      if (typeof b.id !== 'string') refuse(`${blockPath(what, i, kind)}.id must be a string`);
      if (typeof b.name !== 'string') refuse(`${blockPath(what, i, kind)}.name must be a string`);
      b.input = raws.take(() => blockPath(what, i, kind));
      return o as unknown as Block;
    case 'tool_result': {
      const result = decodeToolResultBody(b, blockPath(what, i, kind));
      return (result === (b as unknown) ? o : { tool_result: result }) as unknown as Block;
    }
    case 'provider': {
      const w = blockPath(what, i, kind);
      keys(b, ['kind', 'raw'], w);
      if (!('raw' in b)) refuse(`${w}.raw is missing`);
      str(b, 'kind', w);
      b.raw = raws.take(() => w);
      return o as unknown as Block;
    }
    default:
      return refuse(`${blockPath(what, i)} has unknown block kind "${kind}"`);
  }
}

function decodeMessage(v: unknown, raws: RawSpans, what: string): Message {
  const o = obj(v, what);
  keys(o, ['role', 'content'], what);
  const role = str(o, 'role', what);
  if (role !== 'user' && role !== 'assistant') refuse(`${what}.role must be "user" or "assistant"`);
  const content = o.content;
  if (!Array.isArray(content)) refuse(`${what}.content must be an array`);
  for (let i = 0; i < content.length; i++) content[i] = decodeBlock(content[i], raws, what, i);
  return o as unknown as Message;
}

const FINGERPRINT_KEYS = ['provider', 'model', 'system_hash', 'tools_hash', 'thinking_mode', 'max_tokens', 'max_iterations'];

function decodeFingerprint(v: unknown): Fingerprint {
  const w = 'meta.fingerprint';
  const o = obj(v, w);
  keys(o, FINGERPRINT_KEYS, w);
  for (const k of ['provider', 'model', 'system_hash', 'tools_hash', 'thinking_mode']) str(o, k, w);
  uint(o, 'max_tokens', w);
  uint(o, 'max_iterations', w);
  return o as unknown as Fingerprint;
}

function decodeMeta(v: unknown): MetaPayload {
  const o = obj(v, 'meta');
  keys(o, ['version', 'run_id', 'created', 'fingerprint', 'prompt', 'interactive'], 'meta');
  const version = uint(o, 'version', 'meta');
  if (version !== VERSION) {
    throw new LogbookError(
      'version',
      `journal is record format version ${version}; this build reads only version ${VERSION}`,
    );
  }
  str(o, 'run_id', 'meta');
  str(o, 'created', 'meta');
  decodeFingerprint(o.fingerprint);
  str(o, 'prompt', 'meta');
  const interactive = optBool(o, 'interactive', 'meta');
  return (interactive === false ? without(o, (k) => k === 'interactive') : o) as unknown as MetaPayload;
}

const ASSISTANT_KEYS = ['iteration', 'message', 'stop_reason', 'in_tokens', 'out_tokens', 'cache_read_tokens', 'cache_create_tokens'];

function decodeAssistant(v: unknown, raws: RawSpans): AssistantPayload {
  const w = 'assistant';
  const o = obj(v, w);
  keys(o, ASSISTANT_KEYS, w);
  uint(o, 'iteration', w);
  const message = decodeMessage(o.message, raws, `${w}.message`);
  uint(o, 'in_tokens', w);
  uint(o, 'out_tokens', w);
  const stop = optStr(o, 'stop_reason', w);
  optUint(o, 'cache_read_tokens', w);
  optUint(o, 'cache_create_tokens', w);
  if (message.role !== 'assistant') refuse('assistant.message.role must be "assistant"');
  return (stop === '' ? without(o, (k) => k === 'stop_reason') : o) as unknown as AssistantPayload;
}

function decodeUser(v: unknown, raws: RawSpans): UserPayload {
  const o = obj(v, 'user');
  keys(o, ['message'], 'user');
  const message = decodeMessage(o.message, raws, 'user.message');
  if (message.role !== 'user') refuse('user.message.role must be "user"');
  return o as unknown as UserPayload;
}

function decodeToolResult(v: unknown): ToolResultPayload {
  const w = 'tool_result';
  const o = obj(v, w);
  keys(o, ['tool_use_id', 'result', 'remote'], w);
  str(o, 'tool_use_id', w);
  o.result = decodeToolResultBody(o.result, `${w}.result`);
  const remote = optBool(o, 'remote', w);
  return (remote === false ? without(o, (k) => k === 'remote') : o) as unknown as ToolResultPayload;
}

function decodeTerminal(v: unknown): TerminalPayload {
  const o = obj(v, 'terminal');
  keys(o, ['reason', 'message'], 'terminal');
  const reason = str(o, 'reason', 'terminal');
  if (!(TERMINAL_REASONS as readonly string[]).includes(reason)) {
    refuse(`terminal.reason "${reason}" is not one of ${TERMINAL_REASONS.join(', ')}`);
  }
  const message = optStr(o, 'message', 'terminal');
  return (message === '' ? without(o, (k) => k === 'message') : o) as unknown as TerminalPayload;
}

const KIND_BY_PROTOCOL = new Map<string, PayloadKind>(PAYLOAD_KINDS.map((k) => [PROTOCOL_IDS[k], k]));

/**
 * Parses one journal line into a record, refusing anything that is not exactly
 * one well-typed record: no payload, two payloads, a payload that does not match
 * its protocol, an unknown field. Errors carry code `corrupt` (or `version` for a
 * meta of another format version).
 */
export function decodeRecord(line: string): JournalRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (err) {
    throw new LogbookError('corrupt', `not a JSON record: ${(err as Error).message}`, { cause: err });
  }
  try {
    return decodeParsed(parsed, line);
  } catch (err) {
    if (err instanceof Refusal) throw new LogbookError('corrupt', `invalid record: ${err.message}`);
    throw err;
  }
}

function decodeParsed(parsed: unknown, line: string): JournalRecord {
  const o = obj(parsed, 'record');
  const seq = uint(o, 'seq', 'record');
  const protocol = str(o, 'protocol', 'record');
  const kind = KIND_BY_PROTOCOL.get(protocol);
  if (kind === undefined) refuse(`unknown protocol "${protocol}"`);
  let payloads = 0;
  for (const k in o) {
    if (k === 'seq' || k === 'protocol') continue;
    if (!(PAYLOAD_KINDS as readonly string[]).includes(k)) refuse(`unknown field "${k}"`);
    payloads++;
  }
  if (payloads === 0) refuse(`no payload (protocol ${protocol} needs "${kind}")`);
  if (payloads > 1) refuse('more than one payload');
  if (!(kind in o)) refuse(`payload does not match protocol ${protocol}`);

  switch (kind) {
    case 'meta':
      return { seq, meta: decodeMeta(o.meta) };
    case 'tool_result':
      return { seq, tool_result: decodeToolResult(o.tool_result) };
    case 'terminal':
      return { seq, terminal: decodeTerminal(o.terminal) };
    case 'assistant': {
      const raws = new RawSpans(rawSpans(line, (o.assistant as Obj | null)?.message));
      const record = { seq, assistant: decodeAssistant(o.assistant, raws) };
      raws.assertAllTaken();
      return record;
    }
    case 'user': {
      const raws = new RawSpans(rawSpans(line, (o.user as Obj | null)?.message));
      const record = { seq, user: decodeUser(o.user, raws) };
      raws.assertAllTaken();
      return record;
    }
  }
}

// ---- raw spans ----------------------------------------------------------------

/** Index just past the string literal whose opening quote is at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start;
  for (;;) {
    i = text.indexOf('"', i + 1);
    if (i < 0) return text.length;
    if (!isEscaped(text, i)) return i + 1;
  }
}

/**
 * Whether the quote at `i` is escaped: preceded by an odd run of backslashes.
 * In JSON text that JSON.parse accepted, an unescaped quote always opens or
 * closes a string.
 */
function isEscaped(text: string, i: number): boolean {
  let backslashes = 0;
  for (let j = i - 1; text.charCodeAt(j) === 0x5c; j--) backslashes++;
  return backslashes % 2 === 1;
}

/** Index just past the JSON value starting at `start` (after any whitespace). */
function valueEnd(text: string, start: number): number {
  const c = text.charCodeAt(start);
  if (c === 0x22) return stringEnd(text, start);
  if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
    let depth = 0;
    for (let i = start; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d === 0x22) i = stringEnd(text, i) - 1;
      else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        if (--depth === 0) return i + 1;
      }
    }
    return text.length;
  }
  let i = start;
  while (i < text.length) {
    const d = text.charCodeAt(i);
    if (d === 0x2c || d === 0x7d || d === 0x5d || d === 0x20 || d === 0x09 || d === 0x0a || d === 0x0d) break;
    i++;
  }
  return i;
}

function skipSpace(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    i++;
  }
  return i;
}

/**
 * Which raw keys a message's blocks can hold: `input` with a tool_use block,
 * `raw` with a provider block. Anywhere else those keys are refused by the
 * decoder's field checks, so a line needs searching only for these. A message
 * too malformed to tell is searched for both (and refused later).
 */
function rawKeys(message: unknown): { input: boolean; raw: boolean } {
  const content = message !== null && typeof message === 'object' ? (message as Obj).content : undefined;
  if (!Array.isArray(content)) return { input: true, raw: true };
  const keys = { input: false, raw: false };
  for (const b of content) {
    if (b === null || typeof b !== 'object') continue;
    if ('tool_use' in b) keys.input = true;
    if ('provider' in b) keys.raw = true;
  }
  return keys;
}

/**
 * The opening quote of the next key-like `"<name>"` at or after `from`, or -1.
 * It looks for `name"` (with the closing quote) and checks the quote before it:
 * searching for a pattern that starts with a quote stops at every string.
 */
function nextKey(line: string, name: string, from: number): number {
  let j = line.indexOf(name, from + 1);
  while (j >= 0 && line.charCodeAt(j - 1) !== 0x22) j = line.indexOf(name, j + 1);
  return j < 0 ? -1 : j - 1;
}

/**
 * The text of every `"input":` and `"raw":` value in a line that JSON.parse
 * accepted, in textual order, without descending into them: of those keys the
 * message's blocks can hold (rawKeys). Outside raw values those keys occur only
 * in tool_use and provider blocks, and textual order is the order in which
 * decoding meets those blocks.
 *
 * It looks for the keys' spellings rather than walking every string: an
 * occurrence whose opening quote is unescaped and which a colon follows is a key
 * (inside a string every quote is escaped, and a string followed by a colon is a
 * key), and after a span the search goes on past its value.
 */
function rawSpans(line: string, message: unknown): string[] {
  const spans: string[] = [];
  const wanted = rawKeys(message);
  let input = wanted.input ? nextKey(line, 'input"', -1) : -1;
  let raw = wanted.raw ? nextKey(line, 'raw"', -1) : -1;
  while (input >= 0 || raw >= 0) {
    const isInput = raw < 0 || (input >= 0 && input < raw);
    const at = isInput ? input : raw;
    const colon = skipSpace(line, at + (isInput ? 7 : 5));
    let next = at + 1;
    if (line.charCodeAt(colon) === 0x3a /* : */ && !isEscaped(line, at)) {
      const start = skipSpace(line, colon + 1);
      next = valueEnd(line, start);
      spans.push(line.slice(start, next));
    }
    if (input >= 0 && input < next) input = nextKey(line, 'input"', next);
    if (raw >= 0 && raw < next) raw = nextKey(line, 'raw"', next);
  }
  return spans;
}
