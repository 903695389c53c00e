/**
 * The file backend: one JSON-lines journal per run, `<id>.jsonl`, beside a
 * `<id>.lock` that a writer holds with flock. A run is created whole (meta
 * included, directory entry fsynced); after that, lines are written and fsynced
 * one at a time, and reads apply the torn-tail rule (core journalLines).
 */
import { type BigIntStats, closeSync, constants, fstatSync, fsyncSync, ftruncateSync, linkSync, lstatSync, mkdirSync, readdirSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { LogbookError, isLogbookError, type LinesDigest, type RunTimes } from '../../core/index.js';
import type { Backend, BackendContext, HeldRun, OpenedRun, RunNames, RunSummary, StoredRun, StreamOptions, Streamed } from '../backend.js';
import { JournalStore, listByNames } from '../journal-store.js';
import { decodeOptions } from '../options.js';
import { runNotFound } from '../store.js';
import { acquireLock, type FileLock } from './flock.js';
import { followJournal, journalLineReader, journalLineReaderAfter, outlinedLineReader } from './follow.js';
import { createOwnFile, errno, exists, fsyncDir, ioError, openOwnFile, readOwnBytes, readOwnFile, removeQuietly, removeQuietlyAsync, replaceFileUnsynced, tempPath, writeAll, writeFileWhole } from './fs.js';
import { readFirstLine, readLineAt, readTail } from './lines.js';
import { lockTableSoon, readLockTable, type LockTable } from './lock-table.js';
import { runsDir } from './paths.js';
import { readTimesNote, TimesNote } from './times.js';

const JOURNAL_EXT = '.jsonl';
const LOCK_EXT = '.lock';
/** A note beside a run is `<id>.<key>.note` (ids hold no dot, so `<id>.` is the run's alone). */
const NOTE_EXT = '.note';
/** The times note beside a run (times.ts): appended to, unlike the write-once notes. */
const TIMES_EXT = '.times';
/**
 * A check mark is an empty file `<id>.<version>.checked`: the journal's version
 * (inode, size, change time) when it was last checked whole. Its name says it
 * all, so a listing learns every mark from the directory read it makes anyway.
 */
const CHECKED_EXT = '.checked';
/** The listing index (listing-index.ts): rewritten whole by a listing that read some run's ends, never synced. */
const LISTING_INDEX = '.listing-index.json';
/** The fold checkpoint beside a run (store/checkpoint.ts): replaced whole as the run grows, never synced. */
const CHECKPOINT_EXT = '.fold';
/** The live text beside a run (Backend.putLive): replaced whole as it changes, never synced, removed when cleared. */
const LIVE_EXT = '.live';
/** How often a follower looks at a live-text file. */
const LIVE_POLL_MS = 50;
/** A live-text file its writer has not shown again for this long is a crashed writer's: it shows nothing (the writer shows it every second). */
const LIVE_STALE_MS = 5000;
const NEWLINE = Buffer.from('\n');
/**
 * The scratch buffer a held journal encodes its lines in: a line of up to a
 * third of it (UTF-8 takes at most 3 bytes per UTF-16 unit) is written from
 * it; a longer one gets a buffer of its own, so a huge tool result is not kept.
 */
const LINE_SCRATCH_BYTES = 64 * 1024;
/**
 * How long a create that finds the run's lock held waits for the journal of the
 * creator holding it to appear (it links the journal in right after taking the
 * lock, so this bounds a stalled disk, not a normal race).
 */
const CREATE_RACE_WAIT_MS = 5000;

const runExists = (id: string): LogbookError =>
  new LogbookError('exists', `run ${id} already exists`, { details: { runId: id } });

/** A held journal file: its descriptor, open for appending, and its lock. */
class HeldFile implements HeldRun {
  private released = false;
  /** The file this descriptor is: the path must still name it when a record is reported durable. */
  private readonly inode: number;

  constructor(
    private readonly path: string,
    private readonly fd: number,
    private readonly lock: FileLock,
    /** Bytes of whole, durable records: where a failed write is cut back to. */
    private size: number,
    /** Marks the journal checked at a version (FileBackend.markChecked). */
    private readonly markChecked: (version: string) => Promise<void>,
    /** Where each durable record's time is noted, after it is durable. */
    private readonly times: TimesNote,
  ) {
    this.inode = fstatSync(fd).ino;
  }

  async write(seq: number, line: string): Promise<number | undefined> {
    this.writeDurably(this.lineBytes(line), seq, `seq ${seq}`);
    return this.times.durable(seq);
  }

  /** Where a line is encoded for writing, reused from record to record (LINE_SCRATCH_BYTES). */
  private scratch: Buffer | null = null;

  /** `line` and its newline as UTF-8: in the scratch buffer when it fits there (no buffer made a record), else a buffer of its own. */
  private lineBytes(line: string): Uint8Array {
    if (line.length * 3 + 1 > LINE_SCRATCH_BYTES) return Buffer.from(`${line}\n`, 'utf8');
    this.scratch ??= Buffer.allocUnsafeSlow(LINE_SCRATCH_BYTES);
    const n = this.scratch.write(line, 0, 'utf8');
    this.scratch[n] = 0x0a;
    return this.scratch.subarray(0, n + 1);
  }

  /** One write of the lines (the caller bounds them: JournalStore's copy batches) and one fsync, as `write` makes for one. */
  async writeCopied(first: number, lines: readonly string[]): Promise<void> {
    this.writeDurably(Buffer.from(`${lines.join('\n')}\n`, 'utf8'), first, `seqs ${first} to ${first + lines.length - 1}`);
  }

  /**
   * Appends whole lines, durable (fsynced) and still in the journal's file
   * (checked from record `seq`) when it returns; on a failure the journal is
   * cut back to its last whole record. `what` names the records in the error.
   */
  private writeDurably(bytes: Uint8Array, seq: number, what: string): void {
    try {
      writeAll(this.fd, bytes);
      fsyncSync(this.fd);
      this.checkStillThere(seq);
    } catch (err) {
      if (isLogbookError(err)) throw err;
      this.cutBack();
      throw ioError(`cannot append ${what} to ${this.path}`, err);
    }
    this.size += bytes.length;
  }

  /** Cuts any partial line away so the journal still ends on a whole record and the same seqs can be written again. */
  private cutBack(): void {
    try {
      ftruncateSync(this.fd, this.size);
      fsyncSync(this.fd);
    } catch {
      /* the read side drops a torn final line anyway */
    }
  }

  /**
   * A record written to a journal that was removed or replaced meanwhile went
   * nowhere anyone will read: that is a failure, not a durable record.
   */
  private checkStillThere(seq: number): void {
    let inode: number | null;
    try {
      inode = lstatSync(this.path).ino;
    } catch (err) {
      if (errno(err) !== 'ENOENT') throw err;
      inode = null;
    }
    if (inode === this.inode) return;
    throw new LogbookError(
      'journal_gone',
      `the journal ${this.path} was ${inode === null ? 'removed' : 'replaced by another file'} while this run was writing it; ` +
        `seq ${seq} and what follows are not kept. Restore the journal from a copy, or start a new run`,
    );
  }

  async release(options: { checked?: boolean } = {}): Promise<void> {
    if (this.released) return;
    this.released = true;
    try {
      // Marked while still held, so no other writer can have changed it in between.
      if (options.checked === true) await this.markChecked(versionOf(fstatSync(this.fd, { bigint: true }))).catch(() => {}); // a mark only saves a listing work
      closeSync(this.fd);
    } finally {
      this.times.close();
      this.lock.release();
    }
  }
}

/** A journal's version (RunSummary.version): any write to the file changes its size or its change time. */
function versionOf(stat: BigIntStats): string {
  return `${stat.ino}-${stat.size}-${stat.ctimeNs}`;
}

/** The notes of a run that has none: one array for all of them. */
const NO_NOTES: readonly string[] = Object.freeze([]);

/**
 * What a directory's `names` hold, in one pass: the runs' ids (`<id>.jsonl`),
 * each run's check mark (`<id>.<version>.checked`) and note keys (`<id>.<key>.note`).
 */
function runFiles(names: readonly string[]): { ids: string[]; marks: Map<string, string>; notes: Map<string, string[]> } {
  const ids: string[] = [];
  const marks = new Map<string, string>();
  const notes = new Map<string, string[]>();
  for (const name of names) {
    if (name.endsWith(JOURNAL_EXT)) {
      ids.push(name.slice(0, -JOURNAL_EXT.length));
    } else if (name.endsWith(CHECKED_EXT)) {
      const dot = name.indexOf('.');
      marks.set(name.slice(0, dot), name.slice(dot + 1, -CHECKED_EXT.length));
    } else if (name.endsWith(NOTE_EXT)) {
      const dot = name.indexOf('.');
      const id = name.slice(0, dot);
      const key = name.slice(dot + 1, -NOTE_EXT.length);
      const list = notes.get(id);
      if (list === undefined) notes.set(id, [key]);
      else list.push(key);
    }
  }
  return { ids, marks, notes };
}

/** The file backend: one JSON-lines file per run, appended and fsynced, held with flock. */
export class FileBackend implements Backend {
  readonly name = 'file';
  /** A run's writer holds its lock (flock) from open to release. */
  readonly exclusiveOpen = true;

  /** Whether a process holds the run's lock now, as the kernel's lock table says (never taking the lock); its first read waits off the event loop (lockTableSoon). */
  async holder(id: string): Promise<boolean | undefined> {
    return (await lockTableSoon())?.holds(this.lockPath(id));
  }
  /** The check marks the last listing found, by run id: where markChecked finds a run's mark. */
  private listedMarks: Map<string, string> | null = null;
  /**
   * The marks of the runs this backend created, by run id: the version it
   * marked, or '' before the first. A run created here has no earlier mark to
   * look for (a removed run's went with it), so marking it reads no directory.
   */
  private readonly createdMarks = new Map<string, string>();

  constructor(
    readonly directory: string,
    /** Where workspace snapshots are kept: `STATE/workspace` beside the runs directory, else `.workspace` inside it. */
    readonly workspaceHome: string = join(directory, '.workspace'),
  ) {}

  get location(): string {
    return `file store in ${this.directory}`;
  }

  /** Where run `id`'s journal is (whether or not it exists). */
  journalPath(id: string): string {
    return this.inDirectory(id + JOURNAL_EXT);
  }

  /** Its journal's path, as read names it. */
  sourceOf(id: string): string {
    return this.journalPath(id);
  }

  private lockPath(id: string): string {
    return this.inDirectory(id + LOCK_EXT);
  }

  /** The directory, normalized, with its separator: join's result for a file name, without join's work per name (a listing makes two per run). */
  private prefix: string | undefined;

  /** The path of file `name` (one name, no separator) in the runs directory: what join(directory, name) gives. */
  private inDirectory(name: string): string {
    this.prefix ??= join(this.directory, '_').slice(0, -1);
    return this.prefix + name;
  }

  private livePath(id: string): string {
    return join(this.directory, id + LIVE_EXT);
  }

  async putLive(id: string, body: string | null): Promise<void> {
    const path = this.livePath(id);
    if (body === null) {
      await removeQuietlyAsync(path);
      return;
    }
    this.ensureDirectory();
    await replaceFileUnsynced(path, body);
  }

  async *followLive(id: string, signal: AbortSignal): AsyncIterable<string | null> {
    const path = this.livePath(id);
    let shown: string | null = null;
    let version: string | null = null;
    for (let first = true; !signal.aborted; first = false) {
      let now: string | null = null;
      try {
        const stat = statSync(path);
        if (Date.now() - stat.mtimeMs < LIVE_STALE_MS) now = `${stat.ino}:${stat.mtimeMs}:${stat.size}`;
      } catch {
        now = null;
      }
      if (now !== version) {
        version = now;
        let body: string | null = null;
        try {
          body = now === null ? null : readOwnFile(path);
        } catch {
          body = null; // unreadable: it shows nothing
        }
        if (body !== shown || first) {
          if (!(first && body === null)) yield body;
          shown = body;
        }
      }
      await pause(LIVE_POLL_MS, signal);
    }
  }

  private timesPath(id: string): string {
    return join(this.directory, id + TIMES_EXT);
  }

  private ensureDirectory(): void {
    try {
      mkdirSync(this.directory, { recursive: true, mode: 0o700 });
    } catch (err) {
      throw ioError(`cannot create the run directory ${this.directory}`, err);
    }
  }

  /**
   * A run appears whole or not at all: its meta is written and fsynced in a
   * new temporary file, which is then linked into place (link fails if the run
   * exists, a link planted there included, so two creators cannot both win) and
   * the directory is fsynced. The temporary file's descriptor is the journal's.
   */
  async create(id: string, metaLine: string): Promise<HeldRun> {
    const bytes = Buffer.from(`${metaLine}\n`, 'utf8');
    this.ensureDirectory();
    const lockPath = this.lockPath(id);
    const lock = await this.lockForCreate(id);
    const path = this.journalPath(id);
    const tmp = tempPath(path);
    let fd = -1;
    let created = false;
    try {
      fd = createOwnFile(tmp, constants.O_WRONLY | constants.O_APPEND);
      writeAll(fd, bytes);
      fsyncSync(fd);
      try {
        linkSync(tmp, path);
      } catch (err) {
        if (errno(err) === 'EEXIST') throw runExists(id);
        throw err;
      }
      created = true;
      unlinkSync(tmp);
      fsyncDir(this.directory);
    } catch (err) {
      if (fd >= 0) closeSync(fd);
      removeQuietly(tmp);
      // No run came of it: its lock file goes too (a run that exists keeps its own).
      if (!created && !isLogbookError(err, 'exists')) removeQuietly(lockPath);
      lock.release();
      throw isLogbookError(err) ? err : ioError(`cannot create run ${id} in ${this.directory}`, err);
    }
    // A times note left by a run of this id that was removed is not this run's.
    removeQuietly(this.timesPath(id));
    this.createdMarks.set(id, '');
    const times = new TimesNote(this.timesPath(id));
    times.durable(1);
    return new HeldFile(path, fd, lock, bytes.length, (version) => this.markChecked(id, version), times);
  }

  /**
   * The lock of a run about to be created. Held by another process, it means
   * the run exists and has a writer, or another creator of the same id took it
   * first and is about to link the journal in: either way this create lost, so
   * it says the run exists once the journal is there. Should the lock come
   * free with no journal (that creator failed), this one goes on.
   */
  private async lockForCreate(id: string): Promise<FileLock> {
    const deadline = Date.now() + CREATE_RACE_WAIT_MS;
    for (;;) {
      try {
        return acquireLock(this.lockPath(id), id);
      } catch (err) {
        if (!isLogbookError(err, 'locked')) throw err;
        if (exists(this.journalPath(id))) throw runExists(id);
        if (Date.now() >= deadline) throw err;
      }
      await new Promise((wake) => setTimeout(wake, 10));
    }
  }

  async open(id: string): Promise<OpenedRun> {
    const path = this.journalPath(id);
    if (!exists(path)) throw runNotFound(id);
    const lock = acquireLock(this.lockPath(id), id);
    let fd = -1;
    try {
      fd = openOwnFile(path, constants.O_RDWR | constants.O_APPEND);
      const { first, last, size } = repairTail(fd, path);
      const times = new TimesNote(this.timesPath(id));
      const run = new HeldFile(path, fd, lock, size, (version) => this.markChecked(id, version), times);
      times.resumed(leadingSeq(last));
      return { run, first, last };
    } catch (err) {
      if (fd >= 0) closeSync(fd);
      lock.release();
      if (errno(err) === 'ENOENT') throw runNotFound(id);
      throw isLogbookError(err) ? err : ioError(`cannot open ${path}`, err);
    }
  }

  /**
   * Read a chunk at a time (follow.ts), which applies the torn-tail rule as a
   * whole read does: each line its own string, never the whole file as one,
   * which Node decodes far more slowly and which would outlive the lines cut from it.
   */
  async read(id: string): Promise<StoredRun | null> {
    const lines: string[] = [];
    const run = await this.readEach(id, (batch) => {
      for (const line of batch) lines.push(line);
    });
    return run === null ? null : { ...run, lines };
  }

  async readEach(id: string, each: (lines: string[], source: string) => void | Promise<void>): Promise<StoredRun | null> {
    const path = this.journalPath(id);
    const batches = journalLineReader(path);
    if (batches === null) return null;
    // Whether a writer holds the run, as it is read: the table read while the lines are decoded (lockTableSoon).
    const locks = lockTableSoon();
    let updated: Date;
    try {
      for (const batch of batches) {
        const paced = each(batch, path);
        if (paced !== undefined) await paced;
      }
      updated = lstatSync(path).mtime;
    } catch (err) {
      if (errno(err) === 'ENOENT') return null;
      throw isLogbookError(err) ? err : ioError(`cannot read ${path}`, err);
    }
    const stored: StoredRun = { lines: [], updated, source: path, times: readTimesNote(this.timesPath(id)) };
    const held = (await locks)?.holds(this.lockPath(id));
    if (held !== undefined) stored.held = held;
    return stored;
  }

  private checkpointPath(id: string): string {
    return this.inDirectory(id + CHECKPOINT_EXT);
  }

  async readCheckpoint(id: string): Promise<Uint8Array | null> {
    try {
      return readOwnBytes(this.checkpointPath(id));
    } catch {
      return null; // not a file the store wrote, or unreadable: the run is folded whole
    }
  }

  async writeCheckpoint(id: string, text: string): Promise<void> {
    try {
      await replaceFileUnsynced(this.checkpointPath(id), text);
    } catch (err) {
      throw ioError(`cannot write ${this.checkpointPath(id)}`, err);
    }
  }

  async streamAfter(id: string, prefix: { lines: number; length: number }, digest: LinesDigest): Promise<AsyncIterable<Streamed> | null> {
    const batches = journalLineReaderAfter(this.journalPath(id), prefix, digest);
    if (batches === null) return null;
    return (async function* () {
      for (const lines of batches) yield { lines };
    })();
  }

  /** Reads the journal file without its lock, a chunk at a time (follow.ts). */
  async *stream(id: string, options: StreamOptions): AsyncGenerator<Streamed> {
    const path = this.journalPath(id);
    if (options.follow) {
      yield* followJournal(path, options.signal);
      return;
    }
    const batches = options.outline === true ? outlinedLineReader(path) : journalLineReader(path);
    if (batches === null) throw runNotFound(id);
    for (const lines of batches) {
      if (options.signal?.aborted) return;
      yield { lines };
    }
  }

  /** The runs directory's names; none when it does not exist yet. */
  private names(): string[] {
    try {
      return readdirSync(this.directory);
    } catch (err) {
      if (errno(err) === 'ENOENT') return [];
      throw ioError(`cannot list ${this.directory}`, err);
    }
  }

  /** One directory read: each journal's id, with the keys of the notes beside it and its check mark. */
  async runNames(): Promise<RunNames[]> {
    const { ids, marks, notes } = runFiles(this.names());
    this.listedMarks = marks;
    return ids.map((id) => {
      const checkedVersion = marks.get(id);
      return checkedVersion === undefined ? { id, notes: notes.get(id) ?? NO_NOTES } : { id, notes: notes.get(id) ?? NO_NOTES, checkedVersion };
    });
  }

  async summaries(ids: readonly string[], known?: (id: string, version: string) => boolean): Promise<RunSummary[]> {
    const locks = readLockTable(); // once for the whole listing
    const runs: RunSummary[] = [];
    for (const id of ids) {
      const summary = (known !== undefined ? this.summarizeKnown(id, locks, known) : null) ?? this.summarize(id, locks);
      if (summary !== null) runs.push(summary);
    }
    return runs;
  }

  list(known?: (id: string, version: string) => boolean): Promise<RunSummary[]> {
    return listByNames(this, known);
  }

  /**
   * Renames the run's mark to the new version (or makes one): one mark per run.
   * The mark a listing just found is taken when it is still there, so marking
   * after a listing reads no directory.
   */
  async markChecked(id: string, version: string): Promise<void> {
    const mark = this.markPath(id, version);
    const listed = this.listedMarks?.get(id) ?? this.createdMarks.get(id);
    const previous =
      listed === '' ? [] : listed !== undefined && exists(this.markPath(id, listed)) ? [this.markPath(id, listed)] : this.sidecars(id, CHECKED_EXT);
    try {
      if (previous.length === 0) closeSync(createOwnFile(mark, constants.O_WRONLY));
      else if (previous[0] !== mark) renameSync(previous[0]!, mark);
    } catch (err) {
      if (errno(err) !== 'EEXIST') throw ioError(`cannot write ${mark}`, err); // EEXIST: marked at this version already
    }
    for (const stale of previous.slice(1)) if (stale !== mark) removeQuietly(stale);
    this.listedMarks?.set(id, version);
    if (this.createdMarks.has(id)) this.createdMarks.set(id, version);
  }

  private markPath(id: string, version: string): string {
    return join(this.directory, `${id}.${version}${CHECKED_EXT}`);
  }

  /**
   * A run whose ends `known` vouches for at its version as it is now: named by
   * one lstat, its ends not read. Null where it must be summarized whole (not
   * vouched for, not a regular file, gone): summarize then says what it is.
   */
  private summarizeKnown(id: string, locks: LockTable | null, known: (id: string, version: string) => boolean): RunSummary | null {
    let stat: BigIntStats;
    try {
      stat = lstatSync(this.journalPath(id), { bigint: true });
    } catch {
      return null;
    }
    const version = versionOf(stat);
    if (!stat.isFile() || !known(id, version)) return null;
    const summary: RunSummary = { id, first: null, last: null, updated: stat.mtime, version, endsKnown: true };
    const held = locks?.holds(this.lockPath(id));
    if (held !== undefined) summary.held = held;
    return summary;
  }

  /** The listing index: a file in the runs directory whose name no run's file can have (ids hold no dot). */
  private get listingIndexPath(): string {
    return join(this.directory, LISTING_INDEX);
  }

  async readListingIndex(): Promise<string | null> {
    try {
      return readOwnFile(this.listingIndexPath);
    } catch {
      return null; // not a file the store wrote, or unreadable: the listing reads the ends
    }
  }

  async writeListingIndex(text: string): Promise<void> {
    if (!exists(this.directory)) return;
    try {
      await writeFileWhole(this.listingIndexPath, text, { sync: false });
    } catch (err) {
      throw ioError(`cannot write ${this.listingIndexPath}`, err);
    }
  }

  /**
   * The first line and the last whole line, mtime, and whether the lock is
   * held: never the whole journal, never the lock. A journal that is a link is
   * listed as a run that cannot be read, saying so.
   */
  private summarize(id: string, locks: LockTable | null): RunSummary | null {
    let fd: number;
    try {
      fd = openOwnFile(this.journalPath(id), constants.O_RDONLY);
    } catch (err) {
      if (!isLogbookError(err)) return null; // removed since the directory was read
      const updated = statQuietly(this.journalPath(id))?.mtime;
      return updated === undefined ? null : { id, first: null, last: null, updated, problem: err.message };
    }
    try {
      const stat = fstatSync(fd, { bigint: true });
      const size = Number(stat.size);
      const summary: RunSummary = { id, first: null, last: null, updated: stat.mtime, version: versionOf(stat) };
      const held = locks?.holds(this.lockPath(id));
      if (held !== undefined) summary.held = held;
      try {
        summary.first = readFirstLine(fd, size);
        summary.last = size === 0 ? null : readTail(fd, size).last;
      } catch (err) {
        summary.problem = ioError(`cannot read ${this.journalPath(id)}`, err).message;
      }
      return summary;
    } finally {
      closeSync(fd);
    }
  }

  private notePath(id: string, key: string): string {
    return join(this.directory, `${id}.${key}${NOTE_EXT}`);
  }

  /** Written beside the run and renamed into place: a note is whole or absent (fs.ts writeFileWhole). */
  async putNote(id: string, key: string, text: string): Promise<void> {
    const path = this.notePath(id, key);
    if (exists(path)) return;
    this.ensureDirectory();
    try {
      await writeFileWhole(path, text);
    } catch (err) {
      throw ioError(`cannot write ${path}`, err);
    }
  }

  async times(id: string): Promise<RunTimes> {
    return readTimesNote(this.timesPath(id));
  }

  async getNote(id: string, key: string): Promise<string | null> {
    try {
      return readOwnFile(this.notePath(id, key));
    } catch (err) {
      throw isLogbookError(err) ? err : ioError(`cannot read ${this.notePath(id, key)}`, err);
    }
  }

  async noteKeys(id: string): Promise<string[]> {
    // Cut from the names as listed: a long run has a note per model call and per snapshot, each read at a resume.
    return this.sidecarNames(id, NOTE_EXT).map((name) => name.slice(id.length + 1, -NOTE_EXT.length));
  }

  /** The files beside run `id` whose names end in `ext` (its notes, its check mark). */
  private sidecars(id: string, ext: string): string[] {
    return this.sidecarNames(id, ext).map((name) => join(this.directory, name));
  }

  /** The names of the files beside run `id` whose names end in `ext`. */
  private sidecarNames(id: string, ext: string): string[] {
    const prefix = `${id}.`;
    try {
      return readdirSync(this.directory).filter((name) => name.startsWith(prefix) && name.endsWith(ext));
    } catch {
      return [];
    }
  }

  async readLine(id: string, index: number): Promise<string | null> {
    const path = this.journalPath(id);
    let fd: number;
    try {
      fd = openOwnFile(path, constants.O_RDONLY);
    } catch (err) {
      if (errno(err) === 'ENOENT') return null;
      throw isLogbookError(err) ? err : ioError(`cannot read ${path}`, err);
    }
    try {
      return readLineAt(fd, fstatSync(fd).size, index);
    } catch (err) {
      throw ioError(`cannot read ${path}`, err);
    } finally {
      closeSync(fd);
    }
  }

  async delete(id: string): Promise<boolean> {
    const path = this.journalPath(id);
    if (!exists(path)) return false;
    const lock = acquireLock(this.lockPath(id), id);
    this.createdMarks.delete(id);
    try {
      unlinkSync(path);
      for (const sidecar of [...this.sidecars(id, NOTE_EXT), ...this.sidecars(id, CHECKED_EXT)]) removeQuietly(sidecar);
      removeQuietly(this.livePath(id));
      removeQuietly(this.timesPath(id));
      removeQuietly(this.checkpointPath(id));
      unlinkSync(this.lockPath(id));
      return true;
    } catch (err) {
      if (errno(err) === 'ENOENT') return false;
      throw ioError(`cannot remove ${path}`, err);
    } finally {
      lock.release();
    }
  }

  async close(): Promise<void> {}
}

/** The seq a stored line starts with (`{"seq":N`), 0 when it does not: the journal layer decodes it. */
function leadingSeq(line: string): number {
  const m = /^\s*\{\s*"seq"\s*:\s*(\d{1,15})\b/.exec(line);
  return m === null ? 0 : Number(m[1]);
}

/** What lstat says of `path`; undefined when it cannot say (the entry is gone). */
function statQuietly(path: string): BigIntStats | undefined {
  try {
    return lstatSync(path, { bigint: true });
  } catch {
    return undefined;
  }
}

/**
 * Before appending to a journal, make it end on a whole record and its newline:
 * cut what the torn-tail rule drops, or finish a final record that lacks its
 * newline. Returns the first and last lines and the size of the whole records.
 */
function repairTail(fd: number, path: string): { first: string; last: string; size: number } {
  const size = fstatSync(fd).size;
  const tail = size === 0 ? null : readTail(fd, size);
  if (tail === null || tail.last === null) throw new LogbookError('empty', `${path} has no whole records`);
  if (tail.needsRepair) {
    ftruncateSync(fd, tail.keptEnd);
    writeAll(fd, NEWLINE);
    fsyncSync(fd);
  }
  return { first: readFirstLine(fd, tail.keptEnd)!, last: tail.last, size: tail.keptEnd + 1 };
}

/** The file backend as a Store. */
export class FileStore extends JournalStore {
  constructor(readonly directory: string) {
    super(new FileBackend(directory));
  }

  /** Where run `id`'s journal is (whether or not it exists). */
  journalPath(id: string): string {
    return (this.backendImpl as FileBackend).journalPath(id);
  }
}

/**
 * Journals live in one directory: the `directory` option when given (relative to
 * the config file), else D/runs for the context's state dir D.
 */
export async function fileBackendFromOptions(options: Record<string, unknown>, context: BackendContext): Promise<FileBackend> {
  const opts = decodeOptions('file', options, { directory: { kind: 'string' } });
  const given = opts.directory as string | undefined;
  let directory: string;
  if (given !== undefined && given !== '') {
    directory = isAbsolute(given) ? given : resolve(context.configDir ?? '.', given);
  } else if (context.stateDir !== undefined) {
    directory = runsDir(resolve(context.stateDir));
  } else {
    throw new LogbookError('backend_options', 'the file backend needs a `directory` option or a state directory to keep runs in');
  }
  const shared = sharedDirectoryWarning(directory);
  if (shared !== null) context.onWarning?.(shared);
  return new FileBackend(directory, context.stateDir !== undefined ? join(resolve(context.stateDir), 'workspace') : undefined);
}

/**
 * Whoever can write to the runs directory can remove or replace runs, and plant
 * links (which the store refuses to follow): a directory the group or others
 * may write to is said once, when the store is opened. One the store makes is
 * its owner's alone (0700).
 */
export function sharedDirectoryWarning(directory: string): string | null {
  let mode: number;
  try {
    mode = statSync(directory).mode;
  } catch {
    return null; // made 0700 when the first run is created
  }
  if ((mode & 0o022) === 0) return null;
  const who = (mode & 0o002) !== 0 ? 'anyone' : 'its group';
  const quoted = /^[\w@%+=:,./-]+$/.test(directory) ? directory : `'${directory.replace(/'/g, `'\\''`)}'`;
  return (
    `the runs directory ${directory} can be written by ${who} (mode ${(mode & 0o7777).toString(8).padStart(4, '0')}), ` +
    `who could then remove or replace its runs; make it yours alone: chmod go-w ${quoted}`
  );
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
