/**
 * A fold checkpoint: a run's folded state through seq N, kept beside its
 * journal (never in it), with what names the lines it is the fold of: their
 * count, their length in bytes and a SHA-256 digest of them (each line's UTF-8
 * and its newline: a file journal's bytes through line N). A load may take the
 * state from it, and fold only the lines after, when the lines it reads
 * through N digest the same; otherwise it is ignored. Its own text carries a
 * digest of its body, so a damaged checkpoint is ignored too, never folded
 * from. Pure: encoding, parsing, digests. The store decides where one is kept
 * and when it is used (store/checkpoint.ts).
 */
import { encodeToolResultBodyAs, type Spelling } from './encode.js';
import type { PendingTurn, RunState } from './fold.js';
import { nodeCrypto } from './fingerprint.js';
import { quote } from './json-text.js';
import { canonicalMessageText, holdMessages } from './message-text.js';
import type { JournalRecord } from './records.js';
import type { UsageCounts } from './usage.js';

/**
 * The layout of a checkpoint's text; one of another layout is ignored, as is
 * one another build of logbook wrote (its header names the build: a fold
 * whose rules changed must not take up a state folded by the old ones).
 */
export const CHECKPOINT_LAYOUT = 2;

/** A model call as a load tallies it (what prices it), without its message: an assistant record's seq, iteration and usage. */
export interface ModelCall {
  /** The assistant record's seq. */
  seq: number;
  /** The record's iteration. */
  iteration: number;
  /** The tokens it spent, as the record says. */
  usage: UsageCounts;
}

/** The model call an assistant record is; null for any other record. */
export function modelCallOf(record: JournalRecord): ModelCall | null {
  if (!('assistant' in record)) return null;
  const { iteration, in_tokens, out_tokens, cache_read_tokens, cache_create_tokens } = record.assistant;
  const usage: UsageCounts = { in_tokens, out_tokens };
  if (cache_read_tokens !== undefined) usage.cache_read_tokens = cache_read_tokens;
  if (cache_create_tokens !== undefined) usage.cache_create_tokens = cache_create_tokens;
  return { seq: record.seq, iteration, usage };
}

/** What a checkpoint holds. */
export interface FoldCheckpoint {
  /** The lines it is the fold of: how many, their bytes (each with its newline), and their digest (LinesDigest). */
  lines: number;
  length: number;
  digest: string;
  /** The meta record's line as stored. */
  metaLine: string;
  /** The fold of those lines (its last_seq is the last one's seq). */
  state: RunState;
  /** The model calls among those lines, in order. */
  calls: ModelCall[];
}

const sha256 = (): import('node:crypto').Hash => nodeCrypto().createHash('sha256');

/**
 * The digest of a journal's lines as a checkpoint names them, kept as they
 * come: each line's UTF-8 then a newline, which is the bytes of a file journal
 * through that line. A backend may feed stored bytes instead (addBytes).
 */
export class LinesDigest {
  private readonly hash = sha256();
  /** Lines taken so far. */
  lines = 0;
  /** Bytes taken so far. */
  length = 0;

  /** Takes in a line (without its newline): its UTF-8, then a newline. */
  addLine(line: string): void {
    this.hash.update(line, 'utf8');
    this.hash.update('\n');
    this.lines++;
    this.length += Buffer.byteLength(line, 'utf8') + 1;
  }

  /** Takes in lines as addLine does each, hashed at once (a read's batch: one call, not one a line). */
  addLines(lines: readonly string[]): void {
    if (lines.length === 0) return;
    const text = `${lines.join('\n')}\n`;
    this.hash.update(text, 'utf8');
    this.lines += lines.length;
    this.length += Buffer.byteLength(text, 'utf8');
  }

  /** Stored bytes: lines, each with its newline, `lines` of which end in them (a line may span two calls). */
  addBytes(bytes: Uint8Array, lines: number): void {
    this.hash.update(bytes);
    this.lines += lines;
    this.length += bytes.length;
  }

  /** The digest of what was taken so far (taking more goes on from there). */
  hex(): string {
    return this.hash.copy().digest('hex');
  }
}

// ---- the text ---------------------------------------------------------------
// A header line (layout, what it names, the body's digest) and the body: a
// line of JSON (the meta line, the calls, the length of each message's text,
// and the state without its messages), then the canonical text of each
// message of the state (message-text.ts), comma-separated, and after them the
// pending turn's assistant message when there is one. A load holds the
// messages as that text (holdMessages): the conversation is parsed only where
// it is read.

interface Header {
  layout: number;
  /** The build of logbook that wrote it: its version and a digest of its code (store/package-version.ts buildIdentity). */
  build: string;
  lines: number;
  length: number;
  digest: string;
  body: string;
}

/**
 * Strings spelled as the journal spells them (well-formed: a lone surrogate
 * the journal stores as U+FFFD is one here too), so that a checkpoint a writer
 * keeps of its own records holds the fold of what the journal stores of them.
 */
const CHECKPOINT: Spelling = { quote, raw: quote };
const q = quote;
/** Any other value of the state, its strings spelled as the journal spells them. */
const json = (v: unknown): string => JSON.stringify(v, (_key, x: unknown) => (typeof x === 'string' && !x.isWellFormed() ? x.toWellFormed() : x));

/** The pending turn without its assistant message (a text of its own). */
function encodePending(p: PendingTurn | null): string {
  if (p === null) return 'null';
  return (
    `{"iteration":${p.iteration},"stop_reason":${q(p.stop_reason)},` +
    `"results":[${p.results.map((r) => encodeToolResultBodyAs(r, CHECKPOINT)).join(',')}],"answered":${json(p.answered)}}`
  );
}

/** The state's JSON, its messages' count in their place. */
function encodeState(s: RunState): string {
  return (
    `{"run_id":${q(s.run_id)},"version":${s.version},"fingerprint":${json(s.fingerprint)},"prompt":${q(s.prompt)},` +
    `"interactive":${s.interactive},"messages":${s.messages.length},"pending":${encodePending(s.pending)},` +
    `"counters":${json(s.counters)},"next_iteration":${s.next_iteration},"last_stop_reason":${q(s.last_stop_reason)},` +
    `"terminal":${json(s.terminal)},"remote_calls":${json(s.remote_calls)},` +
    `"status":${q(s.status)},"last_seq":${s.last_seq},"last_input_tokens":${s.last_input_tokens}}`
  );
}

/**
 * The numbers a model call is kept as, one after another in one flat array
 * (seq, iteration, input and output tokens, cache read and created, -1 where
 * the record has none): one array for thousands of calls, not one each.
 */
const CALL_FIELDS = 6;

/** A checkpoint's text. */
export function encodeFoldCheckpoint(cp: FoldCheckpoint, build: string): string {
  const calls = cp.calls.map((c) => {
    const u = c.usage;
    return `${c.seq},${c.iteration},${u.in_tokens},${u.out_tokens},${u.cache_read_tokens ?? -1},${u.cache_create_tokens ?? -1}`;
  });
  const { messages, pending } = cp.state;
  const texts = (pending === null ? messages : [...messages, pending.assistant]).map(canonicalMessageText);
  const head = `{"meta_line":${q(cp.metaLine)},"calls":[${calls.join(',')}],"texts":[${texts.map((t) => t.length).join(',')}],"state":${encodeState(cp.state)}}`;
  const body = `${head}\n${texts.join(',')}`;
  const header: Header = { layout: CHECKPOINT_LAYOUT, build, lines: cp.lines, length: cp.length, digest: cp.digest, body: sha256().update(body, 'utf8').digest('hex') };
  return `${JSON.stringify(header)}\n${body}`;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/** What a checkpoint's first line says: the lines it names, and where its body is. */
export interface CheckpointHeader {
  lines: number;
  length: number;
  digest: string;
  /** The body's digest, and its bytes (UTF-8, as written). */
  bodyDigest: string;
  body: Buffer;
}

/**
 * The header of the checkpoint `text` (its bytes as stored, or its text):
 * what it names, read before the body is parsed (a checkpoint of other lines
 * is ignored without parsing it); null when there is none, or it is of
 * another layout or not a checkpoint. The body stays bytes until it is
 * parsed: its digest is taken of them, not of a string encoded again.
 */
export function parseCheckpointHeader(text: string | Uint8Array | null, build: string): CheckpointHeader | null {
  if (text === null) return null;
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : Buffer.from(text.buffer, text.byteOffset, text.byteLength);
  const nl = bytes.indexOf(0x0a);
  if (nl < 0) return null;
  try {
    const h = JSON.parse(bytes.toString('utf8', 0, nl)) as unknown;
    if (!isObj(h) || h.layout !== CHECKPOINT_LAYOUT || h.build !== build || !isCount(h.lines) || h.lines < 1 || !isCount(h.length) || typeof h.digest !== 'string' || typeof h.body !== 'string') return null;
    return { lines: h.lines, length: h.length, digest: h.digest, bodyDigest: h.body, body: bytes.subarray(nl + 1) };
  } catch {
    return null;
  }
}

/**
 * The checkpoint `header` heads; null when it is damaged (its body does not
 * match its digest, or is not a checkpoint's shape). The state is taken as
 * written: the body's digest says it is the text that was written, whole.
 */
export function parseCheckpointBody(header: CheckpointHeader): FoldCheckpoint | null {
  try {
    if (sha256().update(header.body).digest('hex') !== header.bodyDigest) return null;
    const body = header.body.toString('utf8');
    const nl = body.indexOf('\n'); // JSON text holds no raw newline: the head's ends at the first
    if (nl < 0) return null;
    const b = JSON.parse(body.slice(0, nl)) as unknown;
    if (!isObj(b) || typeof b.meta_line !== 'string' || !Array.isArray(b.calls) || !Array.isArray(b.texts) || !b.texts.every(isCount) || !isObj(b.state)) return null;
    const state = b.state as unknown as Omit<RunState, 'messages'> & { messages: unknown };
    const held = holdMessages(body.slice(nl + 1), b.texts as number[]);
    const count = state.messages;
    if (held === null || !isCount(count) || held.length !== count + (state.pending === null ? 0 : 1)) return null;
    if (!isCount(state.last_seq) || !isObj(state.counters as unknown)) return null;
    if (state.pending !== null) state.pending.assistant = held.pop()!;
    state.messages = held;
    const numbers = b.calls as number[];
    if (numbers.length % CALL_FIELDS !== 0 || !numbers.every((n) => Number.isSafeInteger(n))) return null;
    const calls = new Array<ModelCall>(numbers.length / CALL_FIELDS);
    for (let i = 0, at = 0; i < calls.length; i++, at += CALL_FIELDS) {
      const usage: UsageCounts = { in_tokens: numbers[at + 2]!, out_tokens: numbers[at + 3]! };
      if (numbers[at + 4]! >= 0) usage.cache_read_tokens = numbers[at + 4]!;
      if (numbers[at + 5]! >= 0) usage.cache_create_tokens = numbers[at + 5]!;
      calls[i] = { seq: numbers[at]!, iteration: numbers[at + 1]!, usage };
    }
    const { lines, length, digest } = header;
    return { lines, length, digest, metaLine: b.meta_line, state: state as RunState, calls };
  } catch {
    return null;
  }
}

/** The checkpoint `text` holds, header and body (parseCheckpointHeader, parseCheckpointBody); null as they say. */
export function parseFoldCheckpoint(text: string | Uint8Array | null, build: string): FoldCheckpoint | null {
  const header = parseCheckpointHeader(text, build);
  return header === null ? null : parseCheckpointBody(header);
}

/**
 * A copy of `state` that what the live loop does next leaves as it is, made
 * without copying the conversation's messages (the fold replaces a message,
 * never changes one): a checkpoint of the state now, encoded later.
 */
export function stateSnapshot(state: RunState): RunState {
  const p = state.pending;
  return {
    ...state,
    messages: state.messages.slice(),
    pending: p === null ? null : { ...p, results: p.results.slice(), answered: p.answered.slice() },
    counters: { ...state.counters },
    remote_calls: state.remote_calls.slice(),
  };
}
