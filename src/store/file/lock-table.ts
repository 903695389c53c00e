/**
 * Whether a writer holds a run, found without touching its lock. On Linux the
 * kernel lists every flock lock in /proc/locks by device and inode, so a
 * listing reads that table instead of trying the lock: a try, even a shared
 * one and even for an instant, would make a writer starting at that moment
 * fail with `locked`. Where there is no such table, nobody can tell, and the
 * answer is unknown rather than a guess.
 *
 * The kernel gives the table a page or so a read and resumes the next read by
 * position, so a lock released between two reads shifts the locks after it
 * back and one of them can fall between the reads, listed by neither. A live
 * run's lock missed so would make its run look interrupted; so each read
 * after the first starts again at the last line the read before it gave, and
 * a reading is whole only where every such line came back the same: then no
 * lock moved across an edge (readTable). A lock no whole reading lists is not
 * held; where no reading came whole, nobody can tell (tableRead).
 */
import { closeSync, lstatSync, openSync, read, readSync } from 'node:fs';
import { errno } from './fs.js';

/** A snapshot of the flock locks held when it was read. */
export interface LockTable {
  /** Whether a flock lock is held on the file at `path`: false when there is no such file, undefined when it cannot be examined. */
  holds(path: string): boolean | undefined;
}

/**
 * One held flock lock per line: `ID: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE START END`,
 * device numbers in hex. A waiter's line has `->` before its type and holds nothing.
 */
const FLOCK_LINE = /^\d+:\s+FLOCK\s+\S+\s+\S+\s+\S+\s+([0-9a-f]+):([0-9a-f]+):(\d+)\s/i;

const key = (major: bigint, minor: bigint, inode: bigint): string => `${major}:${minor}:${inode}`;

/** The keys of the flock locks a /proc/locks text lists. */
export function parseLockTable(text: string): Set<string> {
  const held = new Set<string>();
  for (const line of text.split('\n')) {
    const m = FLOCK_LINE.exec(line);
    if (m !== null) held.add(key(BigInt(`0x${m[1]}`), BigInt(`0x${m[2]}`), BigInt(m[3]!)));
  }
  return held;
}

/** A dev_t split as the kernel (and glibc's major()/minor()) encode it. */
function deviceNumbers(dev: bigint): [bigint, bigint] {
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
  const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
  return [major, minor];
}

/** The flock locks held now, from `source`; null where the system keeps no such table (the answer is then unknown). */
export function readLockTable(source = '/proc/locks'): LockTable | null {
  const fd = openTable(source);
  return fd === null ? null : tableRead(fd);
}

/**
 * readLockTable with its first read on Node's thread pool. The first read of
 * /proc/locks in a process can wait in the kernel, off the CPU (10 to 20 ms on
 * some machines, more under load): a load starts it as it starts reading a
 * journal, so the wait passes while the lines are decoded, and takes its
 * answer once they are. One read, not a readFile, whose open, stat and reads
 * would each wait for the decoding to end before the next began; what a long
 * table holds beyond the first read is read at once after it.
 */
export function lockTableSoon(source = '/proc/locks'): Promise<LockTable | null> {
  const fd = openTable(source);
  if (fd === null) return Promise.resolve(null);
  const first = Buffer.allocUnsafe(TABLE_READ);
  return new Promise((done) => {
    read(fd, first, 0, first.length, 0, (err, n) => {
      if (err === null) return done(tableRead(fd, first.subarray(0, n)));
      closeSync(fd);
      done(null);
    });
  });
}

/** How much of the table one read asks for. */
const TABLE_READ = 64 * 1024;

/** What the kernel gives of the table a read, at most, whatever the read asks for: a page (4 KiB on most machines). */
const KERNEL_READ = 4096;

/**
 * How many times, at most, the table is read for a whole reading (readTable).
 * Each follows the last at once, while the kernel's lock on the table is
 * quick to take (the first read's wait is not paid again): some microseconds
 * a page.
 */
const READINGS = 8;

/** The lock table at `source`, open to read; null where the system keeps none, or it cannot be opened. */
function openTable(source: string): number | null {
  if (process.platform !== 'linux') return null;
  try {
    return openSync(source, 'r');
  } catch {
    return null;
  }
}

/**
 * The table open at `fd`, read from its start (`first`: its first read's
 * bytes, when one was made), and closed; null where a read failed. Read until a reading is whole (readTable), at most READINGS
 * times. A lock any reading listed is held; one none listed is not held where
 * a reading was whole, and where none was (the table kept changing as it was
 * read) nobody can tell.
 */
function tableRead(fd: number, first?: Buffer): LockTable | null {
  try {
    const listed = new Set<string>();
    for (let reading = 0; reading < READINGS; reading++) {
      const { text, whole } = readTable((offset) => readAt(fd, offset), reading === 0 ? first : undefined);
      for (const k of parseLockTable(text)) listed.add(k);
      if (whole) return lockTable(listed, true);
    }
    return lockTable(listed, false);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * One reading of a lock table from its start through `readAt` (one read at a
 * byte offset; `first`: its first read, when made), and whether it is whole.
 * Its size is unknown beforehand (/proc files have none), so it is read until
 * a read gives nothing new. A first read that stopped well short of the
 * kernel's page ended at the table's end: a snapshot, whole. Each read after
 * the first starts at the last line the read before it ended with (a read
 * names its offset; the kernel finds it again from the table's start), and
 * the reading is whole only where each such line came back the same: a lock
 * released or taken before an edge meanwhile moves the lines there, each of
 * which names its place in the table, so the line would differ. A reading
 * whose every edge held still missed no lock held throughout; any other is not
 * whole, and is read to its end all the same (a line cut where an edge moved
 * has lost its start: it lists no lock, or the one it was cut from).
 */
export function readTable(readAt: (offset: number) => Buffer, first?: Buffer): { text: string; whole: boolean } {
  const parts: Buffer[] = [first ?? readAt(0)];
  let end = parts[0]!.length;
  if (end <= KERNEL_READ / 2) return { text: parts[0]!.toString('utf8'), whole: true };
  let whole = true;
  for (;;) {
    const last = parts.at(-1)!;
    // The last line the read before gave, whole: it ends the read, as the kernel gives whole lines.
    const overlap = last.length - (last.lastIndexOf(0x0a, last.length - 2) + 1);
    const next = readAt(end - overlap);
    const held = next.length >= overlap && next.subarray(0, overlap).equals(last.subarray(last.length - overlap));
    // An edge that moved: read on all the same, so that every lock still listed is seen held.
    if (!held) whole = false;
    if (next.length <= overlap) break;
    parts.push(held ? next.subarray(overlap) : next);
    end += next.length - overlap;
  }
  return { text: Buffer.concat(parts).toString('utf8'), whole };
}

/** What one read of the table at byte `offset` gives. */
function readAt(fd: number, offset: number): Buffer {
  const buf = Buffer.allocUnsafe(TABLE_READ);
  return buf.subarray(0, readSync(fd, buf, 0, buf.length, offset));
}

/** The table of the locks `held` lists; `settled`: one it does not list is not held (else: not known). */
function lockTable(held: Set<string>, settled: boolean): LockTable {
  return {
    holds(path: string): boolean | undefined {
      if (held.size === 0 && settled) return false;
      let stat;
      try {
        stat = lstatSync(path, { bigint: true });
      } catch (err) {
        return errno(err) === 'ENOENT' ? false : undefined;
      }
      const [major, minor] = deviceNumbers(stat.dev);
      return held.has(key(major, minor, stat.ino)) || (settled ? false : undefined);
    },
  };
}
