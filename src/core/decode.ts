/**
 * decodeRecord: one journal line -> one validated record. For every line the
 * format's writer produces, encodeRecord(decodeRecord(line)) === line (encode.ts).
 * A line from a newer writer may hold fields this build does not know: they are
 * read past and not written back. Tool `input` and provider `raw` values are cut
 * out of the line as text (json-scan.ts), never re-serialized.
 */
import { canonicalByteField } from './byte-field.js';
import { LogbookError } from './errors.js';
import { detached, elementSpans, isEscaped, memberSpans, skipSpace, valueEnd, type Span } from './json-scan.js';
import { RawJson } from './raw-json.js';
import {
  PAYLOAD_KINDS,
  PROTOCOL_IDS,
  VERSION,
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

// Decoding validates the values JSON.parse made and keeps them, rather than
// building copies: a long journal is mostly these objects, so copying them would
// double what a load allocates. Only tool `input` and provider `raw` values are
// replaced (by their text), and an object holding an empty optional field (which
// the writer omits) or a field this build does not know (which a newer writer
// may add inside version 3) is copied without it, so decode(encode(x)) stays
// canonical and nothing unknown travels on in memory.

class Refusal extends Error {}

function refuse(what: string): never {
  throw new Refusal(what);
}

type Obj = Record<string, unknown>;

/** Where a value sits, for errors only: built only when one is raised. */
type Where = string | (() => string);
const at = (w: Where): string => (typeof w === 'string' ? w : w());

function obj(v: unknown, what: Where): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) refuse(`${at(what)} must be an object`);
  return v as Obj;
}

/**
 * What decoding the current line gathers: whether it held fields this build does
 * not know, and the tool_use and provider bodies whose raw values (`input`,
 * `raw`) are cut out of the line's text once the record is validated. Decoding is
 * synchronous and never re-entered, so one scratch state serves every line
 * (decodeParsed resets it): a fresh object per line costs a long load dearly.
 */
const current: { foreign: boolean; slots: number; bodies: Obj[]; keys: ('input' | 'raw')[]; messages: string[]; blocks: number[] } = {
  foreign: false,
  slots: 0,
  bodies: [],
  keys: [],
  messages: [],
  blocks: [],
};

/** `o` itself, or a copy holding only the fields in `allowed` when it has others. */
function known(o: Obj, allowed: readonly string[]): Obj {
  for (const k in o) {
    if (!allowed.includes(k)) {
      current.foreign = true;
      const out: Obj = {};
      for (const a of allowed) if (a in o) out[a] = o[a];
      return out;
    }
  }
  return o;
}

/**
 * The raw value of `body` (block `i` of the message at `what`) gets its text
 * when the line is filled in: kept in columns, the slot count reset per line,
 * where an object and a closure per slot cost each tool call two allocations.
 * A column keeps the last line's bodies until a later line's take their place.
 */
function slot(body: Obj, key: 'input' | 'raw', what: string, i: number): void {
  const n = current.slots++;
  current.bodies[n] = body;
  current.keys[n] = key;
  current.messages[n] = what;
  current.blocks[n] = i;
}

/** Where slot `n`'s raw value sits, for errors only. */
const slotWhere = (n: number): string => blockPath(current.messages[n]!, current.blocks[n]!, current.keys[n] === 'input' ? 'tool_use' : 'provider');

/**
 * Cuts the raw values out of the line, in block order. The quick search by key
 * spelling (rawSpans) holds only while every field is known and the genuine keys
 * are spelled plainly; otherwise, or when it finds a different number of values
 * than there are slots, the line is walked by its structure (rawSpansByPath).
 */
function fillRawValues(line: string, payload: PayloadKind, message: unknown): void {
  const slots = current.slots;
  if (slots === 0) return;
  let spans = current.foreign ? null : rawSpans(line, message);
  if (spans === null || spans.length !== slots) spans = rawSpansByPath(line, payload);
  if (spans.length < slots) refuse(`${slotWhere(spans.length)} has no raw JSON value`);
  if (spans.length > slots) refuse('raw JSON fields outside tool_use or provider blocks');
  const { bodies, keys } = current;
  for (let i = 0; i < slots; i++) bodies[i]![keys[i]!] = RawJson.fromValidText(detached(spans[i]!));
}

function str(o: Obj, k: string, what: Where): string {
  const v = o[k];
  if (typeof v !== 'string') refuse(`${at(what)}.${k} must be a string`);
  return v;
}

function optStr(o: Obj, k: string, what: Where): string | undefined {
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

function optBool(o: Obj, k: string, what: Where): boolean | undefined {
  const v = o[k];
  if (v === undefined) return undefined;
  if (typeof v !== 'boolean') refuse(`${at(what)}.${k} must be a boolean`);
  return v;
}

/** `o` without the fields named, for an optional field present but empty (false, "", 0). */
function without(o: Obj, drop: (k: string) => boolean): Obj {
  const out: Obj = {};
  for (const k in o) if (!drop(k)) out[k] = o[k];
  return out;
}

/** The fields each object of a record may hold (a line's others are a newer writer's, read past); one list each, not one per line. */
const MESSAGE_KEYS = ['role', 'content'];
const USER_KEYS = ['message'];
const TOOL_RESULT_KEYS = ['tool_use_id', 'result', 'remote'];
const TERMINAL_KEYS = ['reason', 'message'];
const TOOL_RESULT_BODY_KEYS = ['tool_use_id', 'content', 'is_error'];

function decodeToolResultBody(v: unknown, what: Where): ToolResultBody {
  const o = known(obj(v, what), TOOL_RESULT_BODY_KEYS);
  str(o, 'tool_use_id', what);
  str(o, 'content', what);
  const isError = optBool(o, 'is_error', what);
  return (isError === false ? without(o, (k) => k === 'is_error') : o) as unknown as ToolResultBody;
}

const BLOCK_KINDS: readonly string[] = ['text', 'thinking', 'tool_use', 'tool_result', 'provider'];
const BODY_KEYS: { readonly [kind: string]: readonly string[] } = {
  text: ['text'],
  thinking: ['text', 'signature'],
  tool_use: ['id', 'name', 'input'],
  provider: ['kind', 'raw'],
};

/** Where block `i` of a message sits, for errors only. */
const blockPath = (what: string, i: number, kind?: string): string => `${what}.content[${i}]${kind === undefined ? '' : `.${kind}`}`;

/**
 * The block being decoded, and where it sits as a Where that reads it: blocks
 * do not nest and decoding is never re-entered, so one serves every block, where
 * a closure of its own per block cost an allocation each. A raw value's slot,
 * read after the block, is kept by its place (slot).
 */
const block = { what: '', i: 0, kind: '' };
const BLOCK_WHERE = (): string => blockPath(block.what, block.i, block.kind);

/**
 * A block is an object with exactly one block kind as its key. Other keys are
 * fields this build does not know and are read past; a block with no kind this
 * build knows is refused, since dropping it would lose what it holds.
 */
function decodeBlock(v: unknown, what: string, i: number): Block {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) refuse(`${blockPath(what, i)} must be an object`);
  const o = v as Obj;
  let kind: string | undefined;
  let kinds = 0;
  let others = 0;
  for (const k in o) {
    if (BLOCK_KINDS.includes(k)) {
      kind ??= k;
      kinds++;
    } else {
      others++;
    }
  }
  if (kinds === 0) refuse(`${blockPath(what, i)} has no block kind this build knows (${Object.keys(o).join(', ') || 'no keys'})`);
  if (kinds !== 1) refuse(`${blockPath(what, i)} must have exactly one block kind, has ${kinds}`);
  if (others > 0) current.foreign = true;
  block.what = what;
  block.i = i;
  block.kind = kind!;
  const w = BLOCK_WHERE;
  const found = o[kind!];
  if (found === null || typeof found !== 'object' || Array.isArray(found)) refuse(`${w()} must be an object`);
  if (kind === 'tool_result') {
    const result = decodeToolResultBody(found, w);
    return (result === found && others === 0 ? o : { tool_result: result }) as unknown as Block;
  }
  let b = known(found as Obj, BODY_KEYS[kind!]!);
  switch (kind) {
    case 'text':
      str(b, 'text', w);
      break;
    case 'thinking': {
      const text = optStr(b, 'text', w);
      const signature = optStr(b, 'signature', w);
      if (text === '' || signature === '') {
        const body = b;
        b = without(body, (k) => body[k] === '');
      }
      if (signature) {
        const canonical = canonicalByteField(signature);
        if (canonical === null) refuse(`${w()}.signature must be base64 (standard alphabet, padded)`);
        if (canonical !== signature) b = { ...b, signature: canonical };
      }
      break;
    }
    case 'tool_use':
      if (!('input' in b)) refuse(`${w()}.input is missing`);
      str(b, 'id', w);
      str(b, 'name', w);
      slot(b, 'input', what, i);
      break;
    case 'provider':
      if (!('raw' in b)) refuse(`${w()}.raw is missing`);
      str(b, 'kind', w);
      slot(b, 'raw', what, i);
      break;
  }
  return (b === found && others === 0 ? o : { [kind!]: b }) as unknown as Block;
}

/** `"content":null` (an empty reply, as the reference writes it) reads as no blocks, like `[]`. */
function decodeMessage(v: unknown, what: string): Message {
  const o = known(obj(v, what), MESSAGE_KEYS);
  const role = str(o, 'role', what);
  if (role !== 'user' && role !== 'assistant') refuse(`${what}.role must be "user" or "assistant"`);
  if (o.content === null) o.content = [];
  const content = o.content;
  if (!Array.isArray(content)) refuse(`${what}.content must be an array or null`);
  for (let i = 0; i < content.length; i++) content[i] = decodeBlock(content[i], what, i);
  return o as unknown as Message;
}

const FINGERPRINT_KEYS = ['provider', 'model', 'system_hash', 'tools_hash', 'thinking_mode', 'max_tokens', 'max_iterations'];

function decodeFingerprint(v: unknown): Fingerprint {
  const w = 'meta.fingerprint';
  const o = known(obj(v, w), FINGERPRINT_KEYS);
  for (const k of ['provider', 'model', 'system_hash', 'tools_hash', 'thinking_mode']) str(o, k, w);
  uint(o, 'max_tokens', w);
  uint(o, 'max_iterations', w);
  return o as unknown as Fingerprint;
}

const META_KEYS = ['version', 'run_id', 'created', 'fingerprint', 'prompt', 'interactive'];

function decodeMeta(v: unknown): MetaPayload {
  const o = known(obj(v, 'meta'), META_KEYS);
  const version = uint(o, 'version', 'meta');
  if (version !== VERSION) {
    throw new LogbookError(
      'version',
      `journal is record format version ${version}; this build reads only version ${VERSION}`,
    );
  }
  str(o, 'run_id', 'meta');
  str(o, 'created', 'meta');
  o.fingerprint = decodeFingerprint(o.fingerprint);
  str(o, 'prompt', 'meta');
  const interactive = optBool(o, 'interactive', 'meta');
  return (interactive === false ? without(o, (k) => k === 'interactive') : o) as unknown as MetaPayload;
}

const ASSISTANT_KEYS = ['iteration', 'message', 'stop_reason', 'in_tokens', 'out_tokens', 'cache_read_tokens', 'cache_create_tokens'];

function decodeAssistant(v: unknown): AssistantPayload {
  const w = 'assistant';
  const o = known(obj(v, w), ASSISTANT_KEYS);
  uint(o, 'iteration', w);
  const message = decodeMessage(o.message, 'assistant.message');
  o.message = message;
  uint(o, 'in_tokens', w);
  uint(o, 'out_tokens', w);
  const stop = optStr(o, 'stop_reason', w);
  const cacheRead = optUint(o, 'cache_read_tokens', w);
  const cacheCreate = optUint(o, 'cache_create_tokens', w);
  if (message.role !== 'assistant') refuse('assistant.message.role must be "assistant"');
  // Optional fields present at their zero value are dropped, as the writer omits them.
  if (stop !== '' && cacheRead !== 0 && cacheCreate !== 0) return o as unknown as AssistantPayload;
  const zero = (k: string): boolean =>
    (k === 'stop_reason' && stop === '') || (k === 'cache_read_tokens' && cacheRead === 0) || (k === 'cache_create_tokens' && cacheCreate === 0);
  return without(o, zero) as unknown as AssistantPayload;
}

function decodeUser(v: unknown): UserPayload {
  const o = known(obj(v, 'user'), USER_KEYS);
  const message = decodeMessage(o.message, 'user.message');
  o.message = message;
  if (message.role !== 'user') refuse('user.message.role must be "user"');
  return o as unknown as UserPayload;
}

function decodeToolResult(v: unknown): ToolResultPayload {
  const w = 'tool_result';
  const o = known(obj(v, w), TOOL_RESULT_KEYS);
  str(o, 'tool_use_id', w);
  o.result = decodeToolResultBody(o.result, 'tool_result.result');
  const remote = optBool(o, 'remote', w);
  return (remote === false ? without(o, (k) => k === 'remote') : o) as unknown as ToolResultPayload;
}

/** Any reason is accepted: a newer writer may end a run for one this build does not write. */
function decodeTerminal(v: unknown): ReadTerminalPayload {
  const o = known(obj(v, 'terminal'), TERMINAL_KEYS);
  str(o, 'reason', 'terminal');
  const message = optStr(o, 'message', 'terminal');
  return (message === '' ? without(o, (k) => k === 'message') : o) as unknown as ReadTerminalPayload;
}

const KIND_BY_PROTOCOL = new Map<string, PayloadKind>(PAYLOAD_KINDS.map((k) => [PROTOCOL_IDS[k], k]));

/**
 * Parses one journal line into a record, refusing anything that is not exactly
 * one well-typed record: no payload, two payloads, a payload that does not match
 * its protocol, a field of the wrong type. Fields this build does not know are
 * read past (forward compatibility inside version 3). Errors carry code
 * `corrupt` (or `version` for a meta of another format version).
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
  current.foreign = false;
  current.slots = 0;
  let payloads = 0;
  for (const k in o) {
    if (k === 'seq' || k === 'protocol') continue;
    if ((PAYLOAD_KINDS as readonly string[]).includes(k)) payloads++;
    else current.foreign = true;
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
      const assistant = decodeAssistant(o.assistant);
      fillRawValues(line, kind, assistant.message);
      return { seq, assistant };
    }
    case 'user': {
      const user = decodeUser(o.user);
      fillRawValues(line, kind, user.message);
      return { seq, user };
    }
  }
}

// ---- where the raw values sit -------------------------------------------------

/** rawKeys' bits. */
const INPUT = 1;
const RAW = 2;

/**
 * Which raw keys a message's blocks can hold: `input` with a tool_use block,
 * `raw` with a provider block. In a line whose every field is known, those keys
 * occur nowhere else (outside raw values), so a line needs searching only for these.
 */
function rawKeys(message: unknown): number {
  const content = message !== null && typeof message === 'object' ? (message as Obj).content : undefined;
  if (!Array.isArray(content)) return INPUT | RAW;
  let keys = 0;
  for (const b of content) {
    if (b === null || typeof b !== 'object') continue;
    if ('tool_use' in b) keys |= INPUT;
    if ('provider' in b) keys |= RAW;
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
 * message's blocks can hold (rawKeys). In a line whose every field is known,
 * those keys occur outside raw values only in tool_use and provider blocks, and
 * textual order is the order in which decoding meets those blocks; a line with
 * fields this build does not know is read by rawSpansByPath instead.
 *
 * It looks for the keys' spellings rather than walking every string: an
 * occurrence whose opening quote is unescaped and which a colon follows is a key
 * (inside a string every quote is escaped, and a string followed by a colon is a
 * key), and after a span the search goes on past its value.
 */
function rawSpans(line: string, message: unknown): string[] {
  const spans: string[] = [];
  const wanted = rawKeys(message);
  let input = wanted & INPUT ? nextKey(line, 'input"', -1) : -1;
  let raw = wanted & RAW ? nextKey(line, 'raw"', -1) : -1;
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

/**
 * The text of every raw value of a line that JSON.parse accepted, found by where
 * it sits rather than by how its key is spelled: the `input` of each tool_use
 * block and the `raw` of each provider block of the payload's message, in block
 * order. Slower than rawSpans, and right whatever else the line holds: fields
 * this build does not know (which may hold those keys too), escaped key spellings.
 */
function rawSpansByPath(line: string, payload: PayloadKind): string[] {
  const member = (span: Span | undefined, key: string): Span | undefined =>
    span !== undefined && line.charCodeAt(span[0]) === 0x7b /* { */ ? memberSpans(line, span[0]).get(key) : undefined;
  const record: Span = [skipSpace(line, 0), line.length];
  const content = member(member(member(record, payload), 'message'), 'content');
  if (content === undefined || line.charCodeAt(content[0]) !== 0x5b /* [ */) return [];
  const spans: string[] = [];
  for (const block of elementSpans(line, content[0])) {
    const value = member(member(block, 'tool_use'), 'input') ?? member(member(block, 'provider'), 'raw');
    if (value !== undefined) spans.push(line.slice(value[0], value[1]));
  }
  return spans;
}
