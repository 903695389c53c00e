/**
 * What logbook keeps beside a run as notes (Store.putNote), never in its
 * journal: the journal stays the reference's byte for byte, and a note is
 * written once and never changes. Each note's key and its reading live here:
 *
 * - `forked`: where a fork came from, the run and the last seq it took from it
 *   (`session fork`, or a completed run continued with a follow-up as a new run);
 *   for a continuation (a compacted run's, which copies none of its records),
 *   the run it continues and the seq it was cut at, marked `compacted`;
 * - `compacted`: beside a compacted run, where it continues (the continuation's
 *   id, chosen before that run exists, and the seq of the cut), the
 *   continuation's first user turn, and the usage of the summary call: written
 *   once the summary is made and before the continuation is, so a crash after it
 *   makes the same continuation and pays for no second summary;
 * - `started`: the directory a run was started in and the config file it used;
 * - `tools-HASH`: the tool set the run's fingerprint hashed (agent/run-meta.ts);
 * - `remote-tools`: which agent runs each of its remote tools (agent/remote-origins.ts);
 * - `task`, `canceled`: a served task's request, and who canceled it and why
 *   (agent/tasks/origin.ts);
 * - `turn-N`: the text typed as the user record at seq N (cut to TURN_NOTE_CHARS),
 *   kept by the store as that record becomes durable, so a listing shows a
 *   run's last typed turn without reading its journal;
 * - `failed-N`: the error code of the failure the terminal record at seq N
 *   ends the run on (its message is in the record; its code, which says what
 *   a resume would meet, is not), kept by the command that ran it;
 * - `ws-N-NONCE`: a snapshot of the run's workspace made after the record at
 *   seq N was durable (the git tree that holds it, store/workspace), or why
 *   none could be made; several may share a seq (a resume's, a rewind's),
 *   ordered by their time;
 * - `rewind-NONCE`: a rewind of the workspace (and of the conversation, into
 *   a fork), or the undo of one (or the redo of an undo: the undo of an undo):
 *   the snapshots it went from and to, the directories that stood on the way
 *   of the files it changed (git keeps none), and the step it undoes; what
 *   `rewind --undo` and `--redo` put back;
 * - `compacting-SEQ-N`: a writer claims the compaction of the run at seq SEQ
 *   (its Nth claim: one whose writer went quiet gives way to the next), so
 *   that where a held run is not held against other writers (JetStream)
 *   concurrent compactions make one summary call (agent/compaction.ts);
 * - `holding-SEQ-N`: a writer that opened the run at seq SEQ claims going on
 *   with it (its Nth claim, the writer's id as text), so that where a held run
 *   is not held against other writers (JetStream) two that opened it at once
 *   do not both go on: the first claimant still answering goes on (claims.ts);
 * - `instructions-SEQ-HASH`: the project instructions (agent/instructions.ts)
 *   given to the model from seq SEQ on: their file and sha-256 (HASH: its
 *   first 12 hex digits, `none` when none were given), never their text;
 * - `sent-CALL`: a model call was sent (CALL: its iteration, or `summary-SEQ`
 *   for a compaction's summary of the run at seq SEQ, then a nonce), written
 *   before it is sent; `cost-CALL`: what a sent call the journal does not hold
 *   cost (stopped, failed, or a summary refused), its usage or unknown. A sent
 *   call with neither a record nor a cost was cut by a crash (agent/call-notes.ts).
 *
 * A copy of a run (store/copy.ts) carries the notes that say what the run is
 * (carriedNoteKeys): without its `compacted` note a copied compacted run
 * would be compacted again, without its `forked` note a copied continuation
 * would lose its origin. The notes a store derives as records are written
 * (`turn-N`, its times, its marks) are the target's own.
 *
 * A note that cannot be read says nothing: each reader treats it as absent.
 */
import { messageText, type JournalRecord, type MetaPayload, type UsageCounts } from '../core/index.js';

/** Where a fork came from: the run and the last seq it took from it. */
export interface ForkOrigin {
  from: string;
  at: number;
  /**
   * The run continues `from` compacted: it holds none of its records (its
   * first user turn summarizes them), so its own records start at its seq 1.
   */
  compacted?: true;
}

/** The usage of one model call, as an assistant record keeps it. */
export type CallUsage = UsageCounts;

/** Beside a compacted run: where it continues, and what its summary call made and spent. */
export interface CompactionNote {
  /** The continuation's run id. */
  into: string;
  /** The seq of the compacted run's last record before the cut. */
  at: number;
  /** The continuation's first user turn: the summary, then the exchanges kept word for word. */
  prompt: string;
  /** The summary call's usage (it is part of the compacted run's spend). */
  usage: CallUsage;
  /** The iteration the continuation's first model call takes: the compacted run's next. */
  iteration: number;
  /** How many exchanges the prompt keeps word for word. */
  kept: number;
  /** The run was a chat compacted at its prompt: the continuation waits for the next typed turn before its first model call. */
  input_first?: boolean;
}

/** Where a run was started: the working directory, and the config file it used (absolute paths). */
export interface RunPlace {
  dir: string;
  config?: string;
}

export const FORK_NOTE = 'forked';
export const COMPACTION_NOTE = 'compacted';
export const PLACE_NOTE = 'started';
export const REMOTE_TOOLS_NOTE = 'remote-tools';
/** A served task's run: the request it serves (agent/tasks/origin.ts reads and writes it). */
export const TASK_NOTE = 'task';
/** A task's run canceled by its caller: by whom and why. */
export const CANCELED_NOTE = 'canceled';
/** A task's run whose conversation went on in another run: that run (a pointer to another run, so a copy does not carry it). */
export const CONTINUED_NOTE = 'continued';
const TURN_NOTE = /^turn-([1-9][0-9]{0,14})$/;

/** The key of the note that holds the tool set a fingerprint's `toolsHash` hashed. */
export function toolSetNoteKey(toolsHash: string): string {
  return `tools-${toolsHash.slice(0, 32)}`;
}

/** The keys of the notes a copy of the run with `meta` carries with its records: what the run is, as opposed to what its store derives from them. */
export function carriedNoteKeys(meta: MetaPayload): string[] {
  return [FORK_NOTE, COMPACTION_NOTE, PLACE_NOTE, REMOTE_TOOLS_NOTE, TASK_NOTE, CANCELED_NOTE, toolSetNoteKey(meta.fingerprint.tools_hash)];
}

/**
 * The key prefixes of the note families a copy of a run carries too: what its
 * calls cost (a copy spends what its source spent) and what instructions its
 * model was given. Defined below; listed here beside carriedNoteKeys.
 */
export function carriedNotePrefixes(): string[] {
  return [SENT_NOTE_PREFIX, COST_NOTE_PREFIX, INSTRUCTIONS_NOTE_PREFIX];
}

/** The most of a typed turn its note keeps: enough for a listing's line and a picker's search. */
export const TURN_NOTE_CHARS = 500;

/** A note's JSON object; null for no note, or one that cannot be read (it says nothing). */
export const noteObject = (text: string | null): Record<string, unknown> | null => {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

export function encodeForkOrigin(origin: ForkOrigin): string {
  return JSON.stringify({ from: origin.from, at: origin.at, ...(origin.compacted ? { compacted: true } : {}) });
}

export function parseForkOrigin(text: string | null): ForkOrigin | null {
  const o = noteObject(text);
  if (o === null || typeof o.from !== 'string' || typeof o.at !== 'number') return null;
  return { from: o.from, at: o.at, ...(o.compacted === true ? { compacted: true as const } : {}) };
}

const count = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

export function encodeCompaction(note: CompactionNote): string {
  const usage = usageJson(note.usage);
  return JSON.stringify({ into: note.into, at: note.at, iteration: note.iteration, kept: note.kept, ...(note.input_first ? { input_first: true } : {}), usage, prompt: note.prompt });
}

export function parseCompaction(text: string | null): CompactionNote | null {
  const o = noteObject(text);
  if (o === null || typeof o.into !== 'string' || !count(o.at) || !count(o.iteration) || !count(o.kept) || typeof o.prompt !== 'string') return null;
  const usage = parseUsage(o.usage);
  if (usage === null) return null;
  return { into: o.into, at: o.at, prompt: o.prompt, usage, iteration: o.iteration, kept: o.kept, ...(o.input_first === true ? { input_first: true } : {}) };
}

export function encodePlace(place: RunPlace): string {
  return JSON.stringify({ dir: place.dir, ...(place.config !== undefined ? { config: place.config } : {}) });
}

export function parsePlace(text: string | null): RunPlace | null {
  const o = noteObject(text);
  if (o === null || typeof o.dir !== 'string') return null;
  return { dir: o.dir, ...(typeof o.config === 'string' ? { config: o.config } : {}) };
}

/** The key of the note that keeps the code of the failure the terminal record at `seq` ends on. */
export function failureNoteKey(seq: number): string {
  return `failed-${seq}`;
}

export function encodeFailure(code: string): string {
  return JSON.stringify({ code });
}

/** The error code a `failed-N` note keeps, or null. */
export function parseFailure(text: string | null): string | null {
  const o = noteObject(text);
  return o !== null && typeof o.code === 'string' ? o.code : null;
}

/** The prefix of every `sent-CALL` note, and of every `cost-CALL` note. */
export const SENT_NOTE_PREFIX = 'sent-';
export const COST_NOTE_PREFIX = 'cost-';

/** Which model call a `sent-CALL` note is of: a run's turn (its iteration), or the summary call of a compaction cut at seq `summaryOf`. */
export type SentCall = { iteration: number } | { summaryOf: number };

/** A `sent-CALL` note read: which call, and when it was sent (RFC 3339). */
export interface SentNote {
  call: SentCall;
  time: string;
}

/** Why a sent call is not held by the journal though it cost: the operator stopped it, it failed, or (a summary) it was refused. */
export type UnheldWhy = 'stopped' | 'failed' | 'refused';

/** A `cost-CALL` note read: what the call cost (null: unknown, the provider reported none) and why no record holds it. */
export interface CostNote {
  usage: CallUsage | null;
  why: UnheldWhy;
}

/** The CALL of the keys of a call's notes: what it is, and a nonce of its own (a call may be sent again). */
export function callKeyPart(call: SentCall, nonce: string): string {
  return 'iteration' in call ? `${call.iteration}-${nonce}` : `summary-${call.summaryOf}-${nonce}`;
}

/** The iteration a call's key part names (callKeyPart), or null for a summary call's or a part of no call. */
export function keyPartIteration(part: string): number | null {
  const m = /^(\d+)-[^-]+$/.exec(part);
  return m === null ? null : Number(m[1]);
}

export function encodeSent(note: SentNote): string {
  return JSON.stringify({ ...('iteration' in note.call ? { iteration: note.call.iteration } : { summary_of: note.call.summaryOf }), time: note.time });
}

export function parseSent(text: string | null): SentNote | null {
  const o = noteObject(text);
  if (o === null || typeof o.time !== 'string') return null;
  if (count(o.iteration)) return { call: { iteration: o.iteration }, time: o.time };
  if (count(o.summary_of)) return { call: { summaryOf: o.summary_of }, time: o.time };
  return null;
}

function usageJson(u: CallUsage): Record<string, number> {
  return {
    in_tokens: u.in_tokens,
    out_tokens: u.out_tokens,
    ...(u.cache_read_tokens ? { cache_read_tokens: u.cache_read_tokens } : {}),
    ...(u.cache_create_tokens ? { cache_create_tokens: u.cache_create_tokens } : {}),
  };
}

function parseUsage(v: unknown): CallUsage | null {
  if (v === null || typeof v !== 'object') return null;
  const u = v as Record<string, unknown>;
  if (!count(u.in_tokens) || !count(u.out_tokens)) return null;
  const usage: CallUsage = { in_tokens: u.in_tokens, out_tokens: u.out_tokens };
  if (count(u.cache_read_tokens)) usage.cache_read_tokens = u.cache_read_tokens;
  if (count(u.cache_create_tokens)) usage.cache_create_tokens = u.cache_create_tokens;
  return usage;
}

export function encodeCost(note: CostNote): string {
  return JSON.stringify({ why: note.why, ...(note.usage === null ? { unknown: true } : { usage: usageJson(note.usage) }) });
}

export function parseCost(text: string | null): CostNote | null {
  const o = noteObject(text);
  if (o === null || (o.why !== 'stopped' && o.why !== 'failed' && o.why !== 'refused')) return null;
  return { why: o.why, usage: o.unknown === true ? null : parseUsage(o.usage) };
}

/** What project instructions a run's model was given from a seq on: their file and its sha-256, or none (null). */
export interface InstructionsNote {
  seq: number;
  given: { path: string; sha256: string } | null;
}

export const INSTRUCTIONS_NOTE_PREFIX = 'instructions-';

export function instructionsNoteKey(note: InstructionsNote): string {
  return `${INSTRUCTIONS_NOTE_PREFIX}${note.seq}-${note.given === null ? 'none' : note.given.sha256.slice(0, 12)}`;
}

export function encodeInstructions(note: InstructionsNote): string {
  return JSON.stringify({ seq: note.seq, ...(note.given !== null ? { path: note.given.path, sha256: note.given.sha256 } : {}) });
}

export function parseInstructions(text: string | null): InstructionsNote | null {
  const o = noteObject(text);
  if (o === null || !count(o.seq)) return null;
  if (typeof o.path === 'string' && typeof o.sha256 === 'string') return { seq: o.seq, given: { path: o.path, sha256: o.sha256 } };
  return o.path === undefined ? { seq: o.seq, given: null } : null;
}

/** A writer's claim of a compaction: who (a nonce of its own) and when (ms since the epoch). */
export interface CompactionClaim {
  nonce: string;
  time: number;
}

/** The key of the `n`th claim of the compaction of a run at seq `at`. */
export function compactionClaimKey(at: number, n: number): string {
  return `compacting-${at}-${n}`;
}

export function encodeClaim(claim: CompactionClaim): string {
  return JSON.stringify({ nonce: claim.nonce, time: claim.time });
}

export function parseClaim(text: string | null): CompactionClaim | null {
  const o = noteObject(text);
  return o !== null && typeof o.nonce === 'string' && typeof o.time === 'number' && Number.isFinite(o.time) ? { nonce: o.nonce, time: o.time } : null;
}

/** The prefix of the claims to go on with a run opened at seq `at` (claims.ts). */
export function holdingClaimPrefix(at: number): string {
  return `holding-${at}-`;
}

/** The key of the note that keeps the turn typed at `seq`. */
export function turnNoteKey(seq: number): string {
  return `turn-${seq}`;
}

/** The key, among a run's note keys, of its last typed turn; null when none is kept. */
export function lastTurnKey(keys: readonly string[]): string | null {
  let best: { key: string; seq: number } | null = null;
  for (const key of keys) {
    const m = TURN_NOTE.exec(key);
    if (m === null) continue;
    const seq = Number(m[1]);
    if (best === null || seq > best.seq) best = { key, seq };
  }
  return best?.key ?? null;
}

/** The text typed in a user record (its text blocks, one per line), or null when the record is no user record. */
export function typedText(record: JournalRecord): string | null {
  if (!('user' in record)) return null;
  return messageText(record.user.message);
}

/** A typed turn as its note keeps it: at most TURN_NOTE_CHARS characters, never half a character. */
export function turnNoteText(text: string): string {
  if (text.length <= TURN_NOTE_CHARS) return text;
  const chars = [...text];
  return chars.length <= TURN_NOTE_CHARS ? text : chars.slice(0, TURN_NOTE_CHARS).join('');
}

/** When a workspace snapshot is made (run-notes `ws-N-NONCE`). */
export type SnapshotMoment =
  /** After an assistant record that calls tools, before the first runs. */
  | 'tools'
  /** After an assistant record that calls none: the turn's tools are done, a chat waits. */
  | 'answer'
  /** After a typed turn: what changed since the answer was made by someone else. */
  | 'input'
  /** At the terminal record. */
  | 'end'
  /** Before a resume carries on. */
  | 'resume'
  /** Just before a rewind restores files: the state it replaces. */
  | 'rewind'
  /** Just after a rewind restored files: the state it made. */
  | 'rewound';

const MOMENTS: readonly SnapshotMoment[] = ['tools', 'answer', 'input', 'end', 'resume', 'rewind', 'rewound'];

/** A snapshot of a run's workspace after the record at `seq`, or why there is none. */
export interface SnapshotNote {
  seq: number;
  moment: SnapshotMoment;
  /** When it was made, RFC 3339. */
  at: string;
  /** The workspace directory. */
  dir: string;
  /** The git tree that holds it; absent when none was made. */
  tree?: string;
  /**
   * The rules it was made with besides the workspace's .gitignore files (the
   * excludes: workspace.exclude, the defaults, `.git/info/exclude`), as a git
   * blob beside the tree: what a rewind of the run tracks, whatever the config says then.
   */
  rules?: string;
  /** Why none was made (a limit passed, a file that could not be read). */
  problem?: string;
}

/** The prefix of every snapshot note's key (Store.notesWith). */
export const SNAPSHOT_NOTE_PREFIX = 'ws-';
const SNAPSHOT_NOTE = /^ws-([1-9][0-9]{0,14})-([0-9a-f]{6,32})$/;

/** The key of a snapshot note after the record at `seq` (`nonce`: hex, so several can share a seq). */
export function snapshotNoteKey(seq: number, nonce: string): string {
  return `ws-${seq}-${nonce}`;
}

/** The seq a snapshot note key names, or null for another key. */
export function snapshotNoteSeq(key: string): number | null {
  const m = SNAPSHOT_NOTE.exec(key);
  return m === null ? null : Number(m[1]);
}

export function encodeSnapshot(note: SnapshotNote): string {
  return JSON.stringify({
    seq: note.seq,
    moment: note.moment,
    at: note.at,
    dir: note.dir,
    ...(note.tree !== undefined ? { tree: note.tree } : {}),
    ...(note.rules !== undefined ? { rules: note.rules } : {}),
    ...(note.problem !== undefined ? { problem: note.problem } : {}),
  });
}

export function parseSnapshot(text: string | null): SnapshotNote | null {
  const o = noteObject(text);
  if (o === null || !count(o.seq) || typeof o.at !== 'string' || typeof o.dir !== 'string' || !MOMENTS.includes(o.moment as SnapshotMoment)) return null;
  const tree = objectIdOrUndefined(o.tree);
  const rules = tree !== undefined ? objectIdOrUndefined(o.rules) : undefined;
  const problem = typeof o.problem === 'string' ? o.problem : undefined;
  if (tree === undefined && problem === undefined) return null;
  return {
    seq: o.seq,
    moment: o.moment as SnapshotMoment,
    at: o.at,
    dir: o.dir,
    ...(tree !== undefined ? { tree } : {}),
    ...(rules !== undefined ? { rules } : {}),
    ...(problem !== undefined ? { problem } : {}),
  };
}

/** A git object id as a note names one; undefined for anything else. */
function objectIdOrUndefined(v: unknown): string | undefined {
  return typeof v === 'string' && /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(v) ? v : undefined;
}

/** A rewind of a run's workspace (and conversation): what `rewind --undo` puts back. */
export interface RewindNote {
  /** The run rewound, and the turn and seq it was rewound to. */
  run: string;
  turn: number;
  seq: number;
  /** The workspace, the snapshot of it the rewind replaced, and the one it restored. */
  dir: string;
  from: string;
  to: string;
  /** The fork the conversation goes on in (absent for a rewind of files only). */
  fork?: string;
  /** The rules the snapshot `from` was made with (SnapshotNote.rules): what its undo tracks. */
  rules?: string;
  at: string;
  /** The step (the key of its note) this one undoes: a rewind, a redo, or an undo (then it is a redo); absent for a rewind. */
  undoes?: string;
  /** The directories that stood on the way of the files it changed before it ran, which its undo makes again where they are gone. */
  dirs?: string[];
}

/** The prefix of every rewind note's key (Store.notesWith). */
export const REWIND_NOTE_PREFIX = 'rewind-';
const REWIND_NOTE = /^rewind-([0-9a-f]{6,32})$/;

export function rewindNoteKey(nonce: string): string {
  return `rewind-${nonce}`;
}

export function isRewindNoteKey(key: string): boolean {
  return REWIND_NOTE.test(key);
}

export function encodeRewind(note: RewindNote): string {
  return JSON.stringify(note);
}

export function parseRewind(text: string | null): RewindNote | null {
  const o = noteObject(text);
  const tree = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(v);
  if (o === null || typeof o.run !== 'string' || !count(o.turn) || !count(o.seq) || typeof o.dir !== 'string' || !tree(o.from) || !tree(o.to) || typeof o.at !== 'string') {
    return null;
  }
  const rules = objectIdOrUndefined(o.rules);
  const dirs = Array.isArray(o.dirs) && o.dirs.every((d) => typeof d === 'string') ? { dirs: o.dirs as string[] } : {};
  return {
    run: o.run,
    turn: o.turn,
    seq: o.seq,
    dir: o.dir,
    from: o.from,
    to: o.to,
    at: o.at,
    ...(typeof o.fork === 'string' ? { fork: o.fork } : {}),
    ...(typeof o.undoes === 'string' && isRewindNoteKey(o.undoes) ? { undoes: o.undoes } : {}),
    ...dirs,
    ...(rules !== undefined ? { rules } : {}),
  };
}
