/**
 * The file backend: one JSON-lines journal per run, `<id>.jsonl`, beside a
 * `<id>.lock` that a writer holds with flock. A run is created whole (meta
 * included, directory entry fsynced); after that, appends are written and fsynced
 * one record at a time, and reads treat only the final line as possibly torn.
 */
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  ftruncateSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import {
  LogbookError,
  checkAppend,
  decodeRecord,
  defaultDir,
  encodeRecord,
  fold,
  isLogbookError,
  isUnparsable,
  isValidId,
  parseJournal,
  runsDir,
  validateId,
  type JournalRecord,
  type MetaPayload,
  type Payload,
} from '../../core/index.js';
import { afterDurable, shouldTear, tornDeath } from '../../util/failpoints.js';
import { decodeOptions } from '../options.js';
import type { BackendContext } from '../registry.js';
import { runNotFound, type Journal, type LoadedRun, type RunInfo, type RunStatus, type Store } from '../store.js';
import { acquireLock, type FileLock } from './flock.js';
import { readFirstLine, readTailLines } from './lines.js';

const JOURNAL_EXT = '.jsonl';
const LOCK_EXT = '.lock';

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

function ioError(what: string, err: unknown): LogbookError {
  return new LogbookError('unavailable', `${what}: ${(err as Error).message}`, { cause: err });
}

/** A record's line, newline included, as bytes. */
function recordBytes(seq: number, payload: Payload): Buffer {
  return Buffer.from(`${encodeRecord({ seq, ...payload } as JournalRecord)}\n`, 'utf8');
}

/** Writes all of `buf`, looping over short writes. */
function writeAll(fd: number, buf: Uint8Array): void {
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}

function fsyncDir(dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

class FileJournal implements Journal {
  private closed = false;

  constructor(
    readonly runId: string,
    private readonly path: string,
    private readonly fd: number,
    private readonly lock: FileLock,
    /** Advanced only after fsync, so a failed write re-appends the same seq. */
    private last: number,
    /** Bytes of whole, durable records: where a failed write is cut back to. */
    private size: number,
  ) {}

  get lastSeq(): number {
    return this.last;
  }

  async append(seq: number, payload: Payload): Promise<void> {
    if (this.closed) throw new LogbookError('unavailable', `journal ${this.runId} is closed`);
    if (checkAppend(this.last, seq) === 'duplicate') return;
    const bytes = recordBytes(seq, payload);
    if (shouldTear(seq)) {
      writeAll(this.fd, bytes.subarray(0, Math.max(1, bytes.length >> 1)));
      fsyncSync(this.fd);
      tornDeath();
    }
    try {
      writeAll(this.fd, bytes);
      fsyncSync(this.fd);
    } catch (err) {
      // Cut any partial line away so the journal still ends on a whole record and
      // the same seq can be appended again.
      try {
        ftruncateSync(this.fd, this.size);
        fsyncSync(this.fd);
      } catch {
        /* the read side drops a torn final line anyway */
      }
      throw ioError(`cannot append seq ${seq} to ${this.path}`, err);
    }
    this.size += bytes.length;
    this.last = seq;
    afterDurable(seq);
  }

  async records(): Promise<JournalRecord[]> {
    return parseJournal(readFileSync(this.path, 'utf8'), this.path).records;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    try {
      closeSync(this.fd);
    } finally {
      this.lock.release();
    }
  }
}

export class FileStore implements Store {
  readonly backend = 'file';

  constructor(readonly directory: string) {}

  get location(): string {
    return `file store in ${this.directory}`;
  }

  private journalPath(id: string): string {
    return join(this.directory, id + JOURNAL_EXT);
  }

  private lockPath(id: string): string {
    return join(this.directory, id + LOCK_EXT);
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
   * temporary file, which is then linked into place (link fails if the run
   * exists, so two creators cannot both win) and the directory is fsynced.
   */
  async create(id: string, meta: MetaPayload): Promise<Journal> {
    validateId(id);
    if (meta.run_id !== id) throw new LogbookError('corrupt', `meta run_id ${meta.run_id} does not match run id ${id}`);
    const bytes = recordBytes(1, { meta });
    this.ensureDirectory();
    const lock = acquireLock(this.lockPath(id));
    const path = this.journalPath(id);
    const tmp = join(this.directory, `.${id}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`);
    let fd = -1;
    try {
      fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
      if (shouldTear(1)) {
        writeAll(fd, bytes.subarray(0, Math.max(1, bytes.length >> 1)));
        fsyncSync(fd);
        tornDeath();
      }
      writeAll(fd, bytes);
      fsyncSync(fd);
      closeSync(fd);
      fd = -1;
      try {
        linkSync(tmp, path);
      } catch (err) {
        if (errno(err) === 'EEXIST') {
          throw new LogbookError('exists', `run ${id} already exists; pick another id or remove it with \`logbook session rm ${id}\``);
        }
        throw ioError(`cannot create ${path}`, err);
      }
      unlinkSync(tmp);
      fsyncDir(this.directory);
      fd = openSync(path, constants.O_WRONLY | constants.O_APPEND);
    } catch (err) {
      if (fd >= 0) closeSync(fd);
      try {
        unlinkSync(tmp);
      } catch {
        /* already gone */
      }
      lock.release();
      throw isLogbookError(err) ? err : ioError(`cannot create ${path}`, err);
    }
    afterDurable(1);
    return new FileJournal(id, path, fd, lock, 1, bytes.length);
  }

  async open(id: string): Promise<Journal> {
    validateId(id);
    const path = this.journalPath(id);
    if (!exists(path)) throw runNotFound(id);
    const lock = acquireLock(this.lockPath(id));
    let fd = -1;
    try {
      fd = openSync(path, constants.O_RDWR | constants.O_APPEND);
      const { lastSeq, size } = repairTail(fd, path);
      return new FileJournal(id, path, fd, lock, lastSeq, size);
    } catch (err) {
      if (fd >= 0) closeSync(fd);
      lock.release();
      if (errno(err) === 'ENOENT') throw runNotFound(id);
      throw err;
    }
  }

  async load(id: string): Promise<LoadedRun> {
    validateId(id);
    const path = this.journalPath(id);
    let text: string;
    let mtime: Date;
    try {
      text = readFileSync(path, 'utf8');
      mtime = statSync(path).mtime;
    } catch (err) {
      if (errno(err) === 'ENOENT') throw runNotFound(id);
      throw ioError(`cannot read ${path}`, err);
    }
    const { records } = parseJournal(text, path);
    const state = fold(records);
    const first = records[0] as { meta: MetaPayload };
    return {
      state,
      records,
      lastSeq: records[records.length - 1]!.seq,
      created: first.meta.created,
      updated: mtime.toISOString(),
    };
  }

  async list(): Promise<RunInfo[]> {
    let names: string[];
    try {
      names = readdirSync(this.directory);
    } catch (err) {
      if (errno(err) === 'ENOENT') return [];
      throw ioError(`cannot list ${this.directory}`, err);
    }
    const runs: RunInfo[] = [];
    for (const name of names) {
      if (!name.endsWith(JOURNAL_EXT)) continue;
      const id = name.slice(0, -JOURNAL_EXT.length);
      if (!isValidId(id)) continue;
      const info = this.describe(id);
      if (info !== null) runs.push(info);
    }
    return runs;
  }

  /** Meta from the first line, status from the last, updated from mtime: never the whole journal. */
  private describe(id: string): RunInfo | null {
    let fd: number;
    try {
      fd = openSync(this.journalPath(id), constants.O_RDONLY);
    } catch {
      return null; // removed since the directory was read
    }
    try {
      const stat = fstatSync(fd);
      const info: RunInfo = { runId: id, created: '', updated: stat.mtime.toISOString(), model: '', prompt: '', status: 'open' };
      try {
        const first = readFirstLine(fd, stat.size);
        if (first === null) throw new LogbookError('empty', 'journal has no records');
        const rec = decodeRecord(first);
        if (!('meta' in rec)) throw new LogbookError('no_meta', 'journal does not start with a meta record');
        info.created = rec.meta.created;
        info.model = rec.meta.fingerprint.model;
        info.prompt = rec.meta.prompt;
        info.status = tailStatus(fd, stat.size);
      } catch (err) {
        info.status = 'unreadable';
        info.problem = err instanceof Error ? err.message : String(err);
      }
      return info;
    } finally {
      closeSync(fd);
    }
  }

  async delete(id: string): Promise<boolean> {
    validateId(id);
    const path = this.journalPath(id);
    if (!exists(path)) return false;
    const lock = acquireLock(this.lockPath(id));
    try {
      unlinkSync(path);
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


/** Whether a journal is there; any other failure to look is an IO error. */
function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (err) {
    if (errno(err) === 'ENOENT') return false;
    throw ioError(`cannot read ${path}`, err);
  }
}

/** The status from the last whole record: its terminal reason, or open. */
function tailStatus(fd: number, size: number): RunStatus {
  const tail = readTailLines(fd, size);
  let line: string | null = tail.last;
  if (isUnparsable(line)) line = tail.previous;
  if (line === null) return 'open';
  const rec = decodeRecord(line);
  return 'terminal' in rec ? rec.terminal.reason : 'open';
}

/**
 * Before appending to a journal, make it end on a whole record: cut a torn final
 * line away, or finish a final record that lacks its newline. Returns the last
 * seq and the size of the whole records.
 */
function repairTail(fd: number, path: string): { lastSeq: number; size: number } {
  let size = fstatSync(fd).size;
  if (size === 0) throw new LogbookError('empty', `${path} has no records`);
  const tail = readTailLines(fd, size);
  let line = tail.last;
  if (isUnparsable(line)) {
    ftruncateSync(fd, tail.lastStart);
    fsyncSync(fd);
    size = tail.lastStart;
    if (tail.previous === null) throw new LogbookError('empty', `${path} has no whole records`);
    line = tail.previous;
  } else if (!tail.endsWithNewline) {
    writeAll(fd, Buffer.from('\n'));
    fsyncSync(fd);
    size += 1;
  }
  let rec: JournalRecord;
  try {
    rec = decodeRecord(line);
  } catch (err) {
    throw new LogbookError('corrupt', `${path}: last record is corrupt: ${(err as Error).message}`, { cause: err });
  }
  return { lastSeq: rec.seq, size };
}

/**
 * Journals live in one directory: the `directory` option when given (relative to
 * the config file), else D/runs for a state dir D, else the default directory.
 */
export function fileStoreFromOptions(options: Record<string, unknown>, context: BackendContext): FileStore {
  const opts = decodeOptions('file', options, { directory: { kind: 'string' } });
  const directory = opts.directory as string | undefined;
  if (directory !== undefined && directory !== '') {
    return new FileStore(isAbsolute(directory) ? directory : resolve(context.configDir ?? process.cwd(), directory));
  }
  return new FileStore(context.stateDir !== undefined ? runsDir(resolve(context.stateDir)) : defaultDir());
}
