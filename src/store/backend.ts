/**
 * The backend contract: what a session backend supplies, which is bytes in and
 * bytes out for the runs it keeps. Everything a journal means (ids, record
 * order, duplicates and gaps, encoding and decoding, the meta record, the fold) is applied
 * once, above every backend, by JournalStore (journal-store.ts).
 *
 * A line is one encoded record without its newline. A backend stores the lines
 * it is given exactly, never re-encoding them, so a run moves between backends
 * byte for byte. Every rule below is exercised by the shared store contract
 * tests (test/store/contract.ts), which every backend passes.
 */
import type { LinesDigest, RunTimes } from '../core/index.js';

/** A run a writer holds: no other writer can append to it until it is released. */
export interface HeldRun {
  /**
   * Makes `line`, the record with this seq, durable and resolves only once it
   * is. When it rejects, nothing at `seq` counts as stored: the caller may write
   * the same seq again (a backend cuts a partial write away, or adopts its own
   * earlier copy of these very bytes). Resolves with the time kept beside the
   * journal for it (Backend.times), where the backend knows it as it writes;
   * undefined where it does not (a JetStream message's time is the server's: Backend.recordTime reads it).
   */
  write(seq: number, line: string): Promise<number | undefined>;
  /**
   * Makes `lines`, the records with seqs `first`, `first + 1`, … (a run's
   * records copied from elsewhere: Store.createFromLines), durable together in
   * large writes, and resolves only once all are: one wait for durability, not
   * one per record. When it rejects, none of them counts as stored, as for
   * `write`. Keeps no times for them: a copy's records keep their source's
   * (JournalStore's copied note). A backend without it is written one `write`
   * at a time.
   */
  writeCopied?(first: number, lines: readonly string[]): Promise<void>;
  /**
   * Lets the run go. Safe to call more than once. `checked`: every line of the
   * run was checked as a load checks it (this writer encoded them, or read them
   * whole before holding the run), so a backend that keeps check marks
   * (Backend.markChecked) marks the run checked as it is now.
   */
  release(options?: { checked?: boolean }): Promise<void>;
  /**
   * This writer's id, where the backend's writers answer for the runs they
   * hold (Backend.holder): what a claim to go on with the run names.
   */
  readonly writer?: string;
}

/** A run a backend has opened for its writer. */
export interface OpenedRun {
  run: HeldRun;
  /** The run's first line (its meta record). */
  first: string;
  /** Its last whole line; a torn tail has been repaired (cut away) before this is read. */
  last: string;
}

/** A run read whole from a backend. */
export interface StoredRun {
  /** Every whole line, in order; the first is the meta record. */
  lines: string[];
  /** When the run last changed. */
  updated: Date;
  /** Where it was read from, for people ("/home/a/runs/x.jsonl"); errors name lines after it. */
  source: string;
  /** Whether a writer holds the run now, as RunSummary.held. */
  held?: boolean;
  /** When its records became durable, read with them, where the backend keeps times (Backend.times). */
  times?: RunTimes;
}

/** What a listing needs of one run, read without reading the whole run. */
export interface RunSummary {
  id: string;
  /** The first line, or null when the run has none (empty or unreadable). */
  first: string | null;
  /** The last whole line. */
  last: string | null;
  updated: Date;
  /**
   * Whether a writer holds the run right now: true or false where the backend
   * can tell, absent where it cannot. Finding out never disturbs a writer: it
   * never takes the run's lock, not even a shared one for an instant, since a
   * writer starting at that moment would then be refused.
   */
  held?: boolean;
  /** Why the run could not be read, when it could not. */
  problem?: string;
  /**
   * Names the run's stored bytes as listed: any change to them changes it (the
   * file backend: the journal's inode, size and change time). Absent where the
   * backend cannot name them.
   */
  version?: string;
  /** Its ends were left unread (first and last null) because `known` vouched for them at `version` (Backend.list). */
  endsKnown?: true;
  /** The version at which the run was last marked checked whole (Backend.markChecked), if ever. */
  checkedVersion?: string;
  /**
   * The keys of the notes kept beside the run, where the backend learns them
   * with the listing itself (a directory read, one subject listing), so a
   * caller reads only the notes that are there. Absent where it cannot: a
   * caller then asks for each note it wants.
   */
  notes?: readonly string[];
}

/** A run as Backend.runNames names it: its id and the keys of its notes. */
export interface RunNames {
  id: string;
  notes: readonly string[];
  /** The version its check mark names (RunSummary.checkedVersion), where the backend keeps marks with the names. */
  checkedVersion?: string;
}

/** What a session backend supplies: lines in and lines out, for the runs it keeps; JournalStore applies every journal rule above it. */
export interface Backend {
  /** The backend's registry name. */
  readonly name: string;
  /** Where runs are kept, for people ("file store in /home/a/.local/state/logbook/runs"). */
  readonly location: string;
  /**
   * Whether `open` holds a run against every other writer (a lock) rather
   * than fencing a second writer out at its first append only: what a step
   * that must be taken once, before anything is appended (a compaction's
   * summary call), relies on. Absent: it does not.
   */
  readonly exclusiveOpen?: boolean;
  /**
   * Whether a writer, of any process, holds run `id` now (only writer
   * `writer` where one is named): true or false where the backend can tell,
   * undefined where it cannot. Never disturbs the writer (RunSummary.held).
   */
  holder?(id: string, writer?: string): Promise<boolean | undefined>;
  /**
   * The time kept for the record at `seq` of run `id` (Backend.times), read
   * alone: where a write does not know it (JetStream), what a live view asks
   * so that it states the very time a later read gives. Absent: read `times`.
   */
  recordTime?(id: string, seq: number): Promise<number | undefined>;
  /**
   * Creates run `id` whole, its meta line durable as seq 1, and holds it. A run
   * appears whole or not at all; `exists` when it is already there (even
   * half-removed). `id` has been validated.
   */
  create(id: string, metaLine: string): Promise<HeldRun>;
  /** Holds an existing run (`not_found`, `locked`). `id` has been validated. */
  open(id: string): Promise<OpenedRun>;
  /** Reads a run without holding it, so a reader never waits for a writer; null when absent. */
  read(id: string): Promise<StoredRun | null>;
  /**
   * Where run `id` is read from, as its StoredRun.source names it, without
   * reading it: what an error about a line of it that was streamed names. A
   * backend without it has such a line named by its run's id alone.
   */
  sourceOf?(id: string): string;
  /**
   * Reads a run as `read` does, but hands its lines to `each` a bounded batch at
   * a time (what one read brings) instead of keeping them: the result's `lines`
   * is empty. A reader that decodes as it goes (a load) then never holds the
   * run's text whole. What `each` throws ends the read and is thrown; a promise
   * it returns is awaited before the next batch is read (a reader that writes as
   * it goes lets its output drain). A backend without it is read with `read`.
   */
  readEach?(id: string, each: (lines: string[], source: string) => void | Promise<void>): Promise<StoredRun | null>;
  /**
   * Streams run `id`'s stored lines in order, from the first, a bounded batch at
   * a time (what one read brings: a chunk of a file, a fetch from a stream): it
   * never holds the whole run in memory, and never holds the run, so a writer is
   * neither blocked nor slowed by it. Breaking out of the loop releases what it
   * holds. A line is given only once it is whole: a torn final line is not given
   * (the torn-tail rule of `read`).
   *
   * Without `follow` it gives the lines stored now and ends, or fails with
   * `not_found` when there is no run. With `follow` it never ends by itself: each
   * time it has given every line stored so far it yields `{ caughtUp: true }`
   * (also at once when the run does not exist yet, which it then waits for) and
   * waits for the next line, with a bounded delay and no busy loop; a run removed
   * or replaced under it fails the stream (`journal_gone`) rather than going quiet.
   */
  stream(id: string, options: StreamOptions): AsyncIterable<Streamed>;
  /**
   * Every run, each described from its ends only. Ids that fail validateId are
   * skipped. `known`: where it says the caller already holds what the ends of
   * run `id` at `version` say (listing-index.ts), a backend that can name a
   * run's version without reading it may leave its ends unread
   * (RunSummary.endsKnown). The built-in backends list with runNames and
   * summaries, composed once (listByNames in journal-store.ts).
   */
  list(known?: (id: string, version: string) => boolean): Promise<RunSummary[]>;
  /**
   * Every run's id with the keys of the notes beside it, in `list`'s order,
   * learnt from names alone (one directory read, subject listings): no run is
   * read. With `summaries`, what lists the few runs a caller wants, found by
   * their notes (a lineage, by its origin notes), without reading the ends of
   * every run. A backend without them is listed whole.
   */
  runNames?(): Promise<RunNames[]>;
  /**
   * The summaries `list` gives of runs `ids` alone, in that order (a run not
   * there is left out), without their `notes` or check marks (runNames gives
   * them); `known` as `list` takes it.
   */
  summaries?(ids: readonly string[], known?: (id: string, version: string) => boolean): Promise<RunSummary[]>;
  /** The listing index kept beside the runs (listing-index.ts), or null; a backend that keeps none leaves these out. */
  readListingIndex?(): Promise<string | null>;
  /** Replaces the listing index whole; never synced (it only saves a listing work). */
  writeListingIndex?(text: string): Promise<void>;
  /**
   * Line `index` of a run (1 is the meta record), read without reading the
   * rest of the run; null when the run is absent or holds fewer whole lines.
   * `id` has been validated.
   */
  readLine(id: string, index: number): Promise<string | null>;
  /**
   * Marks that run `id` was checked whole (every line decoded and folded) when
   * its bytes were `version` (a RunSummary.version), replacing any earlier mark,
   * so a listing need not read it again while it stays so. A backend without
   * versions leaves this out.
   */
  markChecked?(id: string, version: string): Promise<void>;
  /** Removes a run, its notes and marks included; false when there was none; `locked` while a writer holds it. */
  delete(id: string): Promise<boolean>;
  /**
   * The fold checkpoint kept beside run `id` (store/checkpoint.ts), or null.
   * A backend that keeps none leaves these three out.
   */
  readCheckpoint?(id: string): Promise<Uint8Array | null>;
  /**
   * Replaces run `id`'s checkpoint whole (a reader finds the old one or the
   * new one, never a part): never synced, since one lost or damaged in a crash
   * only costs a load the work it saved, and is ignored.
   */
  writeCheckpoint?(id: string, text: string): Promise<void>;
  /**
   * Run `id`'s lines after its first `prefix.lines`, which are its first
   * `prefix.length` bytes as stored (each line and its newline): those are
   * fed into `digest` (core LinesDigest) as they are read, whole, before the
   * lines after them are streamed as `stream` gives them (without `follow`).
   * Null when the run is absent or holds fewer bytes. Whether the digest is
   * the one a checkpoint names is the caller's to judge (store/checkpoint.ts);
   * a caller that does not iterate the stream breaks out of it.
   */
  streamAfter?(id: string, prefix: { lines: number; length: number }, digest: LinesDigest): Promise<AsyncIterable<Streamed> | null>;
  /**
   * Keeps a note beside a run: a few bytes of data derived from it, never part of
   * its journal (so never copied with it, and never read by the reference). A key
   * names what it holds once and for all (a hash of it, or a fact fixed when
   * the run was made, as run-notes.ts lists), so a note is written once and never
   * changes; writing it again is a no-op. A run's notes may be kept before the
   * run itself is created (a compaction keeps its continuation's first, so that
   * a crash leaves them to whoever finishes it). A backend without notes leaves these out.
   */
  putNote?(id: string, key: string, text: string): Promise<void>;
  /** A note kept beside a run, or null. */
  getNote?(id: string, key: string): Promise<string | null>;
  /** The keys of the notes kept beside run `id` (empty when none), read in one listing. */
  noteKeys?(id: string): Promise<string[]>;
  /**
   * Where the snapshots of the runs' workspaces are kept on this machine: a
   * git directory of logbook's own (store/workspace). Absent where the backend
   * keeps none.
   */
  readonly workspaceHome?: string;
  /**
   * Where the snapshots' objects are kept for other machines to read (a
   * JetStream object store); absent when they live on this machine only.
   */
  readonly workspaceObjects?: ObjectShelf;
  /**
   * When each of run `id`'s records became durable, and when a writer took the
   * run up again after a record (`open`: a resume), kept beside the journal and
   * never in it: the file backend appends them to a note after each durable
   * write (never fsynced, so a crash may lose the last few), JetStream takes
   * each message's own timestamp. A time is kept for every record a writer of
   * this backend writes (create, write) and a resume mark for every `open`;
   * `read` gives the same times with the lines, and a stream gives each line's
   * time with it where it reads them together (`Streamed.times`). Losing
   * times never costs a record: a missing or damaged note reads as no times.
   * Empty for a run that has none (or none any more); a backend that keeps no
   * times leaves this out.
   */
  times?(id: string): Promise<RunTimes>;
  /**
   * Shows watchers what a writer of run `id` streams before it is journaled
   * (live text, store/live-text.ts): `body` replaces what was shown, null
   * clears it. Never part of the run, never durable: the file backend keeps it
   * in a file beside the journal (`<id>.live`), JetStream publishes it on a
   * core subject beside the run's (`<prefix>-live.<id>`), outside the stream.
   */
  putLive?(id: string, body: string | null): Promise<void>;
  /** Follows what putLive shows of run `id`: what is shown now (where the backend can tell), then each change, until `signal` aborts. */
  followLive?(id: string, signal: AbortSignal): AsyncIterable<string | null>;
  /** Releases the backend's own resources (connections). */
  close(): Promise<void>;
}

/**
 * A shelf of content-addressed objects (a snapshot's files and trees), each
 * stored once under its git id, never changed: what lets a run's workspace be
 * diffed and rewound from another machine.
 */
export interface ObjectShelf {
  /** Where, for people ("object store LOGBOOK_WORKSPACE"). */
  readonly location: string;
  /** Which of `names` the shelf holds. */
  holds(names: readonly string[]): Promise<Set<string>>;
  /** Keeps an object under its name (a second put of the same name keeps the same bytes). */
  put(name: string, bytes: Uint8Array): Promise<void>;
  /** An object's bytes, or null when the shelf lacks it. */
  get(name: string): Promise<Uint8Array | null>;
}

/** One step of a streamed read (Backend.stream). */
export type Streamed =
  /**
   * The run's next stored lines, in order: a bounded batch (what one read
   * brought), never the whole run; with `times[i]` when lines[i] became durable,
   * where the backend reads that with the line (Backend.times).
   */
  | { lines: string[]; times?: (number | undefined)[] }
  /** Every line stored so far has been given; a following stream waits for more. */
  | { caughtUp: true };

/** How a backend streams a run. */
export interface StreamOptions {
  /** Go on after the lines stored so far, giving each line as it is stored, until `signal` aborts. */
  follow: boolean;
  /** Ends the stream: it returns, releasing what it holds. */
  signal?: AbortSignal;
  /**
   * Without `follow`: a long line (the file backend: over 64 KiB) may be given as its outline
   * (core JsonOutline: the same record kind, seq and structure, long strings
   * cut), so a reader that checks structure only reads in bounded memory.
   */
  outline?: boolean;
}

/** Connection settings for backends that talk to NATS. */
export interface NatsSettings {
  /** One server URL, or several separated by commas. */
  url: string;
  /** A NATS credentials file. */
  creds?: string;
}

/**
 * Hears what a backend is waiting for, so a caller can show it (a spinner
 * saying "waiting for the leader of stream RUNS"), and null once it waits no
 * more. Only waits a caller would otherwise see as a hang are reported.
 */
export type WaitListener = (waitingFor: string | null) => void;

/** What a backend factory is given besides its options: where the state directory is, the NATS server, and who hears of long waits. */
export interface BackendContext {
  /** A state directory D: the file backend keeps journals in D/runs. */
  stateDir?: string;
  /** The directory of the config file, against which relative option paths resolve. */
  configDir?: string;
  nats?: NatsSettings;
  /** Told of the backend's long waits (a JetStream leader election). */
  onWait?: WaitListener;
  /** Told, once, of what the operator should fix but that stops nothing (a runs directory others can write to). */
  onWarning?: (message: string) => void;
}

/**
 * Builds a backend from its `session.options` (decoded strictly: an unknown key
 * or a wrong type fails here, with `backend_options`) and the context. A backend
 * built here must keep every rule of this module's contract.
 */
export type BackendFactory = (options: Record<string, unknown>, context: BackendContext) => Promise<Backend>;
