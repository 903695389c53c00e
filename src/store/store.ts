/**
 * The store interface every caller uses. A store keeps journals (append-only
 * record sequences) under run ids; JournalStore implements it once over any
 * backend (backend.ts), so the journal rules are the same whatever keeps the bytes.
 */
import { LogbookError, type Fingerprint, type JournalRecord, type MetaPayload, type ModelCall, type RunState, type RunStatus, type RunTimes } from '../core/index.js';
import type { CheckpointTrail } from './checkpoint.js';
import type { LiveText, LiveTextWriter } from './live-text.js';
import type { ForkOrigin, RunPlace } from './run-notes.js';
import type { ObjectShelf } from './backend.js';

/** Where a store keeps workspace snapshots: a git directory on this machine, and a shelf other machines read (JetStream's object store). */
export interface WorkspaceStorage {
  /** The local git directory's parent (store/workspace/repo.ts). */
  home: string;
  /** Where the objects are shared, when they are. */
  shelf?: ObjectShelf;
}

export type { ForkOrigin, RunPlace } from './run-notes.js';

/** How Store.notesWith reads. */
export interface NoteReadOptions {
  /** Fail on a note that cannot be read instead of leaving it out. */
  strict?: boolean;
  /** Keys not to read (a reader that keeps notes written once, and reads only the new). */
  skip?: (key: string) => boolean;
  /**
   * The run's note keys as Store.noteKeys listed them, read from instead of
   * listing again: several reads of notes that existed before the listing
   * (a resume's, before its first request) pay for one listing.
   */
  keys?: readonly string[];
}

/** An open run, exclusively held for appending until closed. */
export interface Journal {
  readonly runId: string;
  /** The seq of the last durable record; advanced only once a record is durable. */
  readonly lastSeq: number;
  /**
   * Appends a record. A seq at or below lastSeq is a duplicate and is skipped; a
   * gap is refused with `seq_gap`. Resolves once the record is durable, with
   * the time kept beside the journal for it (Store.times) where the backend
   * knows it as it writes, else (and for a skipped duplicate) undefined.
   */
  append(record: JournalRecord): Promise<number | undefined>;
  /** Appends a stored line exactly as it is (a copy between stores), with the same seq rules. */
  appendLine(line: string): Promise<number | undefined>;
  /**
   * Claims going on with the run for this writer: false when another writer
   * that opened it at the same last seq claimed it first and still holds it
   * (claims.ts); then this journal must be closed without appending. Always
   * true where an open holds the run against every other writer (exclusiveOpen).
   */
  claim(): Promise<boolean>;
  /**
   * Keeps the run's fold checkpoint (store/checkpoint.ts) of `state`, the
   * fold of every record durable so far, when the run grew enough since its
   * last one; else, or where the store keeps none, does nothing. Never fails.
   * What a writer calls while it waits (its model request sent), never on its way out.
   */
  keepCheckpoint(state: RunState): Promise<void>;
  /** Releases the run. Safe to call more than once. */
  close(): Promise<void>;
}

/** A run's state as its records fold, without the records. */
export interface LoadedState {
  state: RunState;
  /** The meta record's line exactly as stored. */
  metaLine: string;
  lastSeq: number;
  /** The run's model calls, in order (LoadStateOptions.calls). */
  calls?: ModelCall[];
  /**
   * What a writer that goes on with the run needs to checkpoint it (LoadStateOptions.forWriting): given to Store.open.
   * @internal
   */
  trail?: CheckpointTrail;
}

/** How Store.loadState reads a run. */
export interface LoadStateOptions {
  /**
   * Shown each record as it is folded, for what else is derived from the same
   * read: every record is then read (the run's checkpoint is not used).
   */
  onRecord?: (record: JournalRecord) => void;
  /** Gives the run's model calls (LoadedState.calls): what prices them, whether read or taken from a checkpoint. */
  calls?: boolean;
  /** The run is to be held and gone on with: keeps what its next checkpoint needs (LoadedState.trail). */
  forWriting?: boolean;
}

/** Who Store.loadFolded shows what, for what else is derived from the same read. */
export interface LoadFoldedOptions {
  /** Each record as it is decoded, before it is folded, with the line it was decoded from where the backend reads a run's lines in batches (Backend.readEach). */
  onRecord?: (record: JournalRecord, line?: string) => void;
  /**
   * The state after each record is folded into it (the first: the meta's
   * initial state). It is the live state, the same object each time, changed
   * in place by later records and returned by the load: what this changes in
   * it, the load returns changed (a stream that takes out the messages it
   * has written leaves them out of the result).
   */
  onFolded?: (state: RunState) => void;
  /**
   * Asked between the batches a backend reads a run's lines in (Backend.readEach):
   * a promise it returns is awaited before the next is read, so a caller that
   * writes as the run folds lets its output drain instead of piling it up.
   */
  pace?: () => Promise<void> | undefined;
  /**
   * Each tool output whose line is in the journal's own spelling is kept as
   * its JSON string literal and decoded the first time it is read: for a
   * caller that writes the outputs out again as JSON rather than reading them.
   */
  outputsAsLiterals?: boolean;
}

/** A loaded run without its records: its state and what is known beside them. */
export interface FoldedRun extends LoadedState {
  /** From meta, as written. */
  created: string;
  /** When the journal last changed, RFC 3339. */
  updated: string;
  /** Whether a writer holds the run now; absent where the backend cannot tell (backend.ts). */
  held?: boolean;
  /** When its records became durable (Store.times): empty where none are kept. */
  times: RunTimes;
}

export interface LoadedRun extends FoldedRun {
  records: JournalRecord[];
}

/**
 * Where a run stands in a listing: `running` while a writer holds it;
 * `forked` when it holds what `session fork` put in it and nothing since;
 * `interrupted` when it ends on no terminal record and nobody holds it (its
 * writer crashed or was killed); `open` when it ends on none and the backend
 * cannot tell whether anybody holds it; else its last terminal record's reason;
 * `unreadable` when it cannot be read.
 */
export const LISTED_STATUSES = ['running', 'interrupted', 'open', 'completed', 'suspended', 'error', 'budget', 'max_iterations', 'forked', 'unreadable'] as const;
/** A newer writer's terminal reason is listed as read. */
export type ListedStatus = (typeof LISTED_STATUSES)[number] | (string & {});

/**
 * A run's listed status from its last record's status, whether a writer holds
 * it, and, for a fork, whether anything ran in it since it was made.
 */
export function listedStatus(status: RunStatus, held: boolean | undefined, fork?: { origin: ForkOrigin; lastSeq: number }): Exclude<ListedStatus, 'unreadable'> {
  if (held === true) return 'running';
  if (status === 'open' && fork !== undefined && !fork.origin.compacted && fork.origin.at === fork.lastSeq) return 'forked';
  if (status === 'open' && held === false) return 'interrupted';
  return status;
}

/** A run's lines as read now (Store.storedLines). */
export interface StoredLines {
  /** Every whole line, exactly as stored; the first is the meta record. */
  lines: string[];
  /** Where they were read from, for people (StoredRun.source): what an error about one of them names. */
  source: string;
  /** Whether a writer held the run as it was read: its lines are then what is durable so far; absent where the backend cannot tell. */
  held?: boolean;
}

/** A record read from a stream: decoded, with the line it was stored as. */
export interface StreamedRecord {
  record: JournalRecord;
  /** The stored line, exactly (without its newline). */
  line: string;
  /** When it became durable, where the backend reads that with the line (Backend.times: JetStream does, the file backend does not). */
  time?: number;
}

/** How Store.records reads. */
export interface RecordsOptions {
  /**
   * Which lines after the first (meta) to decode and give: a line it returns
   * false for is skipped without being decoded, so it is not checked either. A
   * cheap pre-test (a search's) saves decoding lines that cannot matter.
   */
  select?: (line: string) => boolean;
  /** Ends the read early. */
  signal?: AbortSignal;
}

/** How Store.list lists. */
export interface ListingOptions {
  /**
   * Reads whole each run no check mark vouches for (Backend.markChecked), so
   * damage anywhere in it, not only at its ends, is listed as `unreadable`, as
   * loading it would report it; a run found whole is marked. What `session ls`
   * shows; a caller that reads the runs anyway, or wants only their ids, leaves it.
   */
  checkWhole?: boolean;
  /**
   * Reads the origin of every run that has one (RunInfo.forkedFrom), which
   * lineages are made of (lineage.ts); without it only a run that may be listed
   * `forked` has its origin read.
   */
  origins?: boolean;
  /** Reads where each run was started (RunInfo.place). */
  places?: boolean;
  /** Reads each run's last typed turn (RunInfo.lastTurn). */
  lastTurns?: boolean;
  /**
   * Lists the runs of run `lineage`'s lineage alone (lineage.ts, read with
   * their origins): those the listing would give, in its order, found where
   * the backend can (Backend.runNames) by the origin notes beside the runs,
   * reading the ends of only the runs those connect to `lineage`.
   */
  lineage?: string;
  /** Gives each run's note keys where the backend listed them with it (RunInfo.noteKeys). */
  noteKeys?: boolean;
}

/** How Store.open holds a run. */
export interface OpenOptions {
  /**
   * The last seq of a load of the run the caller made just before opening it:
   * when the run still ends there, every line was checked by that load, and the
   * writer marks the run checked when it lets it go (Backend.markChecked).
   */
  checkedThrough?: number;
  /**
   * A load's trail (LoadedState.trail), when it is the load `checkedThrough` names: the writer checkpoints from it.
   * @internal
   */
  trail?: CheckpointTrail;
}

/** How Store.watch follows a run. */
export interface WatchOptions {
  /** Ends the watch (the iteration returns). */
  signal?: AbortSignal;
  /** Told once when the run does not exist yet and the watch waits for it to appear. */
  onAbsent?: () => void;
}

/** How Store.createFromLines makes a run. */
export interface CreateFromLinesOptions {
  /** Stops the copy at its next write (a record, or a batch of them where the backend writes copies in batches: `interrupted`); what was written is removed. */
  signal?: AbortSignal;
  /** Notes kept beside the new run before its records (a copy's carried notes, run-notes.ts carriedNoteKeys), with the run or not at all. */
  notes?: ReadonlyMap<string, string>;
  /** The copied records' own times (Store.times of the source), given as theirs where the backend keeps times. */
  times?: RunTimes;
}

/** A run as a listing shows it, read from its ends (and notes beside it), not whole. */
export interface RunInfo {
  runId: string;
  /** From meta, as written. */
  created: string;
  /** When the run last changed, RFC 3339. */
  updated: string;
  model: string;
  /** The prompt; for a chat opened without one, the first turn typed into it (empty until there is one). */
  prompt: string;
  interactive: boolean;
  status: ListedStatus;
  /** Whether a writer holds the run now; absent where the backend cannot tell. */
  held?: boolean;
  /** Why the run could not be read, when status is `unreadable`. */
  problem?: string;
  /** The seq of its last record, when it can be read. */
  lastSeq?: number;
  /**
   * The run it was forked from, when `session fork` made it or it continues a
   * completed run: always with ListingOptions.origins, else only where it may
   * be listed `forked`.
   */
  forkedFrom?: ForkOrigin;
  /** Its fingerprint, from meta, when it can be read: what the resume gates judge. */
  fingerprint?: Fingerprint;
  /** The status its records fold to (RunState.status), when it can be read: `status` is how a listing names it. */
  foldStatus?: RunStatus;
  /** Where it was started, when that was kept (ListingOptions.places). */
  place?: RunPlace;
  /**
   * The last turn typed into it, where that was kept; else its prompt, or the
   * first turn typed into a chat opened without one (ListingOptions.lastTurns).
   */
  lastTurn?: string;
  /** The keys of the notes beside it as listed (ListingOptions.noteKeys), for NoteReadOptions.keys; absent where the backend lists none with it. */
  noteKeys?: readonly string[];
}

/** Where journals are kept: the file store, JetStream, memory, or a backend of your own (registerBackend), all behind the same journal rules (JournalStore). */
export interface Store {
  /** The backend's registry name. */
  readonly backend: string;
  /** Where this store keeps runs, for people ("file store in /home/a/.local/state/logbook/runs"). */
  readonly location: string;
  /** Whether a held run is held against every other writer (Backend.exclusiveOpen), not only fenced at their appends. */
  readonly exclusiveOpen: boolean;
  /** Creates a run with meta as seq 1 and returns it held (`exists` if present, `invalid_meta` if meta names another run). */
  create(id: string, meta: MetaPayload): Promise<Journal>;
  /**
   * Creates a run from stored lines, byte for byte (a copy between stores): the
   * whole run or none of it. Aborting `signal` stops it (`interrupted`) and
   * removes what was written.
   */
  createFromLines(id: string, lines: readonly string[], options?: CreateFromLinesOptions): Promise<Journal>;
  /**
   * Finishes run `id`, made from `lines` by createFromLines and cut short by a
   * crash (its meta and a head of `lines`): notes beside it what it holds as
   * copied, with `times` (as createFromLines does before the records, so the
   * copied records are never given the times they get now), and appends the
   * lines it lacks.
   */
  finishFromLines(id: string, lines: readonly string[], options?: Pick<CreateFromLinesOptions, 'times'>): Promise<void>;
  /** Holds an existing run for appending (`not_found`, `locked`). */
  open(id: string, options?: OpenOptions): Promise<Journal>;
  /** Reads and folds without holding, so inspecting never blocks a running writer. */
  load(id: string): Promise<LoadedRun>;
  /**
   * A load that keeps no records: each is checked and folded as it is decoded
   * (LoadFoldedOptions say who is shown it), then dropped. Read and refused as
   * a load is, with the same errors.
   */
  loadFolded(id: string, options?: LoadFoldedOptions): Promise<FoldedRun>;
  /**
   * A run's state, checked and folded as a load does, without holding the run;
   * read a chunk at a time, keeping neither its lines nor its records: what a
   * resume needs of a long run, at the least memory. Taken from the run's fold
   * checkpoint, and only the lines after it read, where it names the
   * journal's first lines as they are (store/checkpoint.ts).
   */
  loadState(id: string, options?: LoadStateOptions): Promise<LoadedState>;
  /** A run's stored lines, exactly as stored. */
  lines(id: string): Promise<string[]>;
  /** A run's stored lines as `lines` gives them, with whether a writer held the run as they were read. */
  storedLines(id: string): Promise<StoredLines>;
  /**
   * A run's records one at a time, read as they are iterated: never the whole
   * run in memory. Decoded and checked as a load checks them (the first is this
   * run's meta, seqs increase), without holding the run.
   */
  records(id: string, options?: RecordsOptions): AsyncIterable<StreamedRecord>;
  /**
   * Follows a run as it grows: every stored record, then each new one as it
   * becomes stored, checked as `records` checks them and folded as a load
   * folds them (a record the fold refuses is refused naming its line). It ends when the run ends
   * on a terminal record with nothing after it (a run resumed later can be
   * watched again), or when `signal` aborts; it waits for a run that does not
   * exist yet. A watcher never holds the run, so it never blocks a writer.
   */
  watch(id: string, options?: WatchOptions): AsyncIterable<StreamedRecord>;
  /** One entry per run (of a lineage, with `lineage`), read from its ends (and, with `checkWhole`, whole where no mark vouches for it). */
  list(options?: ListingOptions): Promise<RunInfo[]>;
  /** Whether run `id` exists with at least its first line: found without listing the store. */
  has(id: string): Promise<boolean>;
  /**
   * Whether a writer, of any process, holds run `id` now: true or false where
   * the backend can tell (a lock; a JetStream writer answering for it),
   * undefined where it cannot. Holding nothing itself, it never blocks a writer.
   */
  held(id: string): Promise<boolean | undefined>;
  /**
   * The time kept beside the journal for the record at `seq` of run `id`
   * (as Store.times gives it), read alone where the backend can: what a live
   * view asks when Journal.append did not say it (JetStream).
   */
  recordTime(id: string, seq: number): Promise<number | undefined>;
  /** Removes a run; false when there was none. Refuses (`locked`) while a writer holds it. */
  delete(id: string): Promise<boolean>;
  /** Where run `id` was forked from, when `session fork` made it; null otherwise. */
  forkOrigin(id: string): Promise<ForkOrigin | null>;
  /** Notes where run `id` was forked from (kept beside it, as a note). */
  markFork(id: string, origin: ForkOrigin): Promise<void>;
  /** Where run `id` was started, when that was kept; null otherwise. */
  placeOf(id: string): Promise<RunPlace | null>;
  /** Notes where run `id` was started: the directory and config file (kept beside it, as a note). */
  markPlace(id: string, place: RunPlace): Promise<void>;
  /**
   * When run `id`'s records became durable and when writers took it up again
   * (Backend.times), without the times a copy got as it was made (`session cp`,
   * a fork: not its records' own): empty where none are kept.
   */
  times(id: string): Promise<RunTimes>;
  /** Keeps a note beside a run (see Backend.putNote); a no-op where the backend keeps none. */
  putNote(id: string, key: string, text: string): Promise<void>;
  /** A note kept beside a run, or null (always null where the backend keeps none). */
  getNote(id: string, key: string): Promise<string | null>;
  /**
   * Where this store keeps the snapshots of its runs' workspaces (run-notes
   * `ws-N-NONCE` say which belongs to which seq); null where it keeps none.
   */
  readonly workspace: WorkspaceStorage | null;
  /**
   * The notes kept beside run `id` whose keys begin with `prefix`, by key:
   * what a family of notes written one per event holds (run-notes.ts). A note
   * that cannot be read is left out, unless `strict`: then the read fails with
   * the backend's error (a reader that must not mistake an unreadable note
   * for an absent one). Empty where the backend keeps none.
   */
  notesWith(id: string, prefix: string, options?: NoteReadOptions): Promise<Map<string, string>>;
  /**
   * The keys of the notes kept beside run `id`, as listed now: a snapshot for
   * NoteReadOptions.keys, true of the notes written before it (a file store
   * lists its whole runs directory for it). Empty where the backend keeps none.
   */
  noteKeys(id: string): Promise<string[]>;
  /** The writer's side of run `id`'s live text (live-text.ts): what a model call streams, shown to watchers before it is journaled; shows nothing where the backend cannot. */
  liveText(id: string): LiveTextWriter;
  /**
   * What run `id`'s writer streams before it is journaled: the snapshot shown
   * now, where the backend can tell, then each new one, and null when it is
   * cleared; until `signal` aborts. Nothing where the backend shows none.
   */
  watchLive(id: string, options: { signal: AbortSignal }): AsyncIterable<LiveText | null>;
  /** Releases the store's own resources (connections). */
  close(): Promise<void>;
}

/** The refusal every backend gives for a run it does not hold. */
export function runNotFound(id: string): LogbookError {
  return new LogbookError('not_found', `no run ${id}`, { details: { runId: id } });
}
