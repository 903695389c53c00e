/**
 * A journal file read as a stream of lines, and followed as it grows, without
 * its lock: a reader opens the file read-only and never touches the `.lock`, so
 * a writer is neither blocked nor slowed by any number of readers.
 *
 * Lines are read in bounded chunks (64 KiB, or one line when a line is longer)
 * and given a chunk's worth at a time, so a stream holds one chunk whatever the
 * run's length. The torn-tail rule (core journalLines)
 * decides what is given, exactly as for a whole read: a blank line, or a final
 * line that is not even JSON, is held until something follows it (it is then
 * interior, and given, for the journal layer to refuse as corrupt); at the end
 * of a read that does not follow, what is held is dropped.
 */
import { closeSync, constants, fstatSync, lstatSync, readSync, watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';
import { LogbookError, isLogbookError, isUnparsable, type LinesDigest } from '../../core/index.js';
import type { Streamed } from '../backend.js';
import { errno, ioError, openOwnFile } from './fs.js';
import { outlinedLines, readTail } from './lines.js';

const NEWLINE = 0x0a;
const CHUNK = 64 * 1024;
/** The reads a checkpoint's prefix is digested in: large, since nothing is decoded from them. */
const PREFIX_CHUNK = 1024 * 1024;

/**
 * The longest a follower goes without looking at the file when no change event
 * wakes it (a file system where inotify says nothing, such as some network
 * mounts): the bound on its latency there. Change events wake it at once.
 */
export const POLL_MS = 250;

const isBlank = (line: string): boolean => line.trim() === '';

/**
 * The buffer every cursor reads its chunks into. A chunk is decoded to text
 * before anything else runs, so cursors can share it, and a search over many
 * runs allocates no buffer per run; a cursor meeting a longer line takes its own.
 */
const scratch = Buffer.allocUnsafe(CHUNK);

/** Whether `buf[from, to)` holds anything but whitespace. */
function hasContent(buf: Buffer, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = buf[i]!;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return true;
  }
  return false;
}

/** Reads whole lines from an open journal, from its start, as far as it goes each time. */
export class LineCursor {
  /** Lines waiting for what follows them to say whether they are interior (see the module comment). */
  private held: string[] = [];
  private buf = scratch;

  constructor(
    private readonly fd: number,
    private readonly path: string,
    /** Where the first line not yet read starts: 0, or the end of a line. */
    private pos = 0,
  ) {}

  /** Where reading goes on: past the lines given and those held. */
  get offset(): number {
    return this.pos;
  }

  /** Where the lines given so far end (after the newline of the last one). */
  get given(): number {
    let held = 0;
    for (const line of this.held) held += Buffer.byteLength(line) + 1;
    return this.pos - held;
  }

  /** Reads again from the end of the lines given: what was held there has been cut away (a writer's repair). */
  rewind(): void {
    this.pos = this.given;
    this.held = [];
  }

  private read(at: number): number {
    try {
      return readSync(this.fd, this.buf, 0, this.buf.length, at);
    } catch (err) {
      throw ioError(`cannot read ${this.path}`, err);
    }
  }

  /** The lines that became whole since the last call, by the rule above: a batch per chunk read. */
  *available(): Generator<string[]> {
    for (;;) {
      const n = this.read(this.pos);
      if (n === 0) return;
      const last = this.buf.lastIndexOf(NEWLINE, n - 1);
      if (last < 0) {
        if (n < this.buf.length) return; // the start of a line still being written (or torn): wait for the rest
        this.buf = Buffer.allocUnsafe(this.buf.length * 2); // a line longer than the buffer
        continue;
      }
      // Decoded whole: a chunk starts on a line and ends on a newline, both character boundaries.
      const lines = this.buf.toString('utf8', 0, last).split('\n');
      const followed = hasContent(this.buf, last + 1, n);
      this.pos += last + 1;
      const whole = this.take(lines, followed);
      if (whole.length > 0) yield whole;
      if (n < this.buf.length) return;
    }
  }

  /**
   * The lines of a chunk that are given now. Only the chunk's last non-blank
   * line can be a torn tail, and only when nothing but whitespace follows it;
   * blank lines after it wait with it.
   */
  private take(lines: string[], followed: boolean): string[] {
    let final = lines.length - 1;
    while (final >= 0 && isBlank(lines[final]!)) final--;
    if (final === lines.length - 1 && this.held.length === 0 && (followed || !isUnparsable(lines[final]!))) return lines;
    if (final < 0) {
      this.held.push(...lines);
      return [];
    }
    // A non-blank line follows whatever was held: it is interior.
    const out = this.held.length > 0 ? [...this.held, ...lines.slice(0, final)] : lines.slice(0, final);
    this.held = [];
    const tail = lines[final]!;
    if (!followed && isUnparsable(tail)) this.held.push(tail);
    else out.push(tail);
    for (let i = final + 1; i < lines.length; i++) this.held.push(lines[i]!);
    return out;
  }

  /**
   * At the end of a read that does not follow: a final line without its newline
   * is whole when it is JSON (a writer finishes it before appending); what is
   * still held is the damage the rule drops.
   */
  end(): string[] {
    const n = this.read(this.pos);
    const rest = n === 0 ? '' : this.buf.toString('utf8', 0, n);
    const out = !isBlank(rest) && !isUnparsable(rest) ? [...this.held, rest] : [];
    this.held = [];
    return out;
  }
}

/** Opens `path` read-only, never through a link; -1 when it is not there. */
function openIfThere(path: string): number {
  try {
    return openOwnFile(path, constants.O_RDONLY);
  } catch (err) {
    if (errno(err) === 'ENOENT') return -1;
    throw isLogbookError(err) ? err : ioError(`cannot open ${path}`, err);
  }
}

/** The whole lines of the journal at `path` as it is now, a batch per chunk, read as it is iterated; null when there is no journal. */
export function journalLineReader(path: string): Generator<string[], void, undefined> | null {
  const fd = openIfThere(path);
  return fd < 0 ? null : linesFrom(fd, path, 0);
}

/**
 * The whole lines of the journal at `path` after its first `prefix.length`
 * bytes (`prefix.lines` lines), as journalLineReader gives them, those bytes
 * fed into `digest` first; null when there is no journal or it is shorter.
 */
export function journalLineReaderAfter(path: string, prefix: { lines: number; length: number }, digest: LinesDigest): Generator<string[], void, undefined> | null {
  const fd = openIfThere(path);
  if (fd < 0) return null;
  try {
    if (fstatSync(fd).size >= prefix.length && digestPrefix(fd, path, prefix.length, prefix.lines, digest)) return linesFrom(fd, path, prefix.length);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  closeSync(fd);
  return null;
}

/** Feeds the first `length` bytes of the open journal (`lines` lines) into `digest`; false when it holds fewer. */
function digestPrefix(fd: number, path: string, length: number, lines: number, digest: LinesDigest): boolean {
  const buf = Buffer.allocUnsafe(Math.min(length, PREFIX_CHUNK));
  for (let at = 0; at < length; ) {
    let n: number;
    try {
      n = readSync(fd, buf, 0, Math.min(buf.length, length - at), at);
    } catch (err) {
      throw ioError(`cannot read ${path}`, err);
    }
    if (n === 0) return false; // cut short since its size was read
    at += n;
    digest.addBytes(buf.subarray(0, n), at === length ? lines : 0);
  }
  return true;
}

/** A journal's lines from byte `start` (0, or the end of a line) on, read as they are iterated; closes `fd` when done. */
function linesFrom(fd: number, path: string, start: number): Generator<string[], void, undefined> {
  return (function* () {
    try {
      const cursor = new LineCursor(fd, path, start);
      yield* cursor.available();
      const rest = cursor.end();
      if (rest.length > 0) yield rest;
    } finally {
      closeSync(fd);
    }
  })();
}

/**
 * The whole lines of the journal at `path` as journalLineReader gives them, but
 * with each line longer than a read chunk (64 KiB) given as its outline (lines.ts
 * outlinedLines): bounded memory whatever the lines' length. Null when there is
 * no journal.
 */
export function outlinedLineReader(path: string): Generator<string[], void, undefined> | null {
  const fd = openIfThere(path);
  if (fd < 0) return null;
  return (function* () {
    try {
      const size = fstatSync(fd).size;
      if (size > 0) yield* outlinedLines(fd, readTail(fd, size).keptEnd);
    } catch (err) {
      throw isLogbookError(err) ? err : ioError(`cannot read ${path}`, err);
    } finally {
      closeSync(fd);
    }
  })();
}

/** A wake-up call: set by change events, kept until the follower next waits, so none is lost. */
class Wake {
  private woken = false;
  private resolve: (() => void) | null = null;

  readonly ring = (): void => {
    this.woken = true;
    this.resolve?.();
  };

  /** Resolves at the next ring (at once if one came since the last wait), after `ms`, or on abort. */
  async wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    if (!this.woken && !signal?.aborted) {
      let timer: NodeJS.Timeout | undefined;
      let onAbort: (() => void) | undefined;
      await new Promise<void>((resolve) => {
        this.resolve = resolve;
        timer = setTimeout(resolve, ms);
        onAbort = resolve;
        signal?.addEventListener('abort', onAbort, { once: true });
      });
      clearTimeout(timer);
      if (onAbort !== undefined) signal?.removeEventListener('abort', onAbort);
      this.resolve = null;
    }
    this.woken = false;
  }
}

/** Change events on `path` ring `wake`; null where they cannot be had (the poll still bounds the wait). */
function watchQuietly(path: string, wake: Wake): FSWatcher | null {
  try {
    const watcher = watch(path, { persistent: true }, wake.ring);
    watcher.on('error', wake.ring); // the file went away: the next look says so
    return watcher;
  } catch {
    return null;
  }
}

/**
 * The same file still at `path`, holding every line given: else the journal
 * went away under the reader. A writer's repair before it appends (core
 * journalLines, file-backend repairTail) cuts away what the rule drops, which
 * this reader holds and never gave, and rewrites the newline of the last whole
 * line: the file is then briefly one byte short of what was given, which is no
 * loss; the cursor reads on from the end of what it gave.
 */
function checkStillThere(path: string, fd: number, inode: number, cursor: LineCursor): void {
  let now: number | null;
  try {
    now = lstatSync(path).ino;
  } catch (err) {
    if (errno(err) !== 'ENOENT') throw ioError(`cannot read ${path}`, err);
    now = null;
  }
  if (now === null) {
    throw new LogbookError('journal_gone', `the journal ${path} was removed while it was being followed`);
  }
  if (now !== inode) {
    throw new LogbookError('journal_gone', `the journal ${path} was replaced by another file while it was being followed; follow the run again to read the new one`);
  }
  const size = fstatSync(fd).size;
  if (size < cursor.given - 1) {
    throw new LogbookError('journal_gone', `the journal ${path} was cut short while it was being followed (records already read are gone); follow the run again`);
  }
  if (size < cursor.offset) cursor.rewind();
}

/**
 * Follows the journal at `path`: waits for it to appear, gives every whole line
 * and then each new one, `caughtUp` each time it has given all there is, until
 * `signal` aborts. The journal going away under it is `journal_gone`.
 */
export async function* followJournal(path: string, signal: AbortSignal | undefined): AsyncGenerator<Streamed> {
  const wake = new Wake();
  let watcher: FSWatcher | null = null;
  let fd = -1;
  try {
    for (let told = false; ; told = true) {
      // Watch before looking, so a journal linked into place in between still rings.
      watcher ??= watchQuietly(dirname(path), wake);
      fd = openIfThere(path);
      if (fd >= 0) break;
      if (!told) yield { caughtUp: true };
      await wake.wait(POLL_MS, signal);
      if (signal?.aborted) return;
    }
    watcher?.close();
    watcher = watchQuietly(path, wake);
    const inode = fstatSync(fd).ino;
    const cursor = new LineCursor(fd, path);
    for (let gave = true; ; ) {
      for (const lines of cursor.available()) {
        yield { lines };
        gave = true;
        if (signal?.aborted) return;
      }
      checkStillThere(path, fd, inode, cursor);
      if (gave) yield { caughtUp: true };
      gave = false;
      if (signal?.aborted) return;
      await wake.wait(POLL_MS, signal);
      if (signal?.aborted) return;
    }
  } finally {
    watcher?.close();
    if (fd >= 0) closeSync(fd);
  }
}
