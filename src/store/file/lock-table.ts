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
 * run's lock missed so would make its run look interrupted; so a table of
 * more than one read is read again until two readings agree, and a lock no
 * reading lists is not held only then (tableRead).
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
  return fd === null ? null : tableRead(fd, []);
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
    read(fd, first, 0, first.length, 0, (err, n) => done(tableRead(fd, err === null ? [first.subarray(0, n)] : null)));
  });
}

/** How much of the table one read asks for. */
const TABLE_READ = 64 * 1024;

/** What the kernel gives of the table a read, at most, whatever the read asks for: a page (4 KiB on most machines). */
const KERNEL_READ = 4096;

/**
 * How many times, at most, a table longer than one read is read for two
 * readings in a row to agree. Each follows the last at once, while the
 * kernel's lock on the table is quick to take (the first read's wait is not
 * paid again): some microseconds a page.
 */
const READINGS = 4;

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
 * The table open at `fd`, read from its start, on from what `parts` holds
 * (what reads of it gave so far, if any), and closed; null where a read failed
 * (`parts` null: one already has).
 *
 * A table the kernel gave in one read is a snapshot, taken as it is. A longer
 * one is read again, each reading's first read asking for less than the last's
 * so that their edges fall elsewhere, until two readings in a row give the
 * same text: a lock held throughout that both missed would need the same locks
 * to go at different edges and leave the same lines. A lock any reading listed
 * is held; one none listed is not held where two agreed, and where none did
 * (the table kept changing as it was read) nobody can tell.
 */
function tableRead(fd: number, parts: Buffer[] | null): LockTable | null {
  try {
    if (parts === null) return null;
    const first = readPass(fd, parts);
    const listed = parseLockTable(first.text);
    if (first.whole) return lockTable(listed, true);
    let last = first.text;
    for (let reading = 1; reading < READINGS; reading++) {
      const start = Buffer.allocUnsafe(KERNEL_READ - Math.round((KERNEL_READ * reading) / READINGS));
      const { text } = readPass(fd, [start.subarray(0, readSync(fd, start, 0, start.length, 0))]);
      for (const k of parseLockTable(text)) listed.add(k);
      if (text === last) return lockTable(listed, true);
      last = text;
    }
    return lockTable(listed, false);
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * One reading of the table from its start, on from what `parts` holds: its
 * text, and whether it came whole in one read (a snapshot: one read that
 * stopped short of filling the kernel's page ended at the table's end). Its
 * size is unknown beforehand (/proc files have none), so it is read until a
 * read gives nothing; each read names its offset, so a reading starts over at
 * the table's start.
 */
function readPass(fd: number, parts: Buffer[]): { text: string; whole: boolean } {
  let offset = parts.reduce((sum, part) => sum + part.length, 0);
  while (parts.length === 0 || parts.at(-1)!.length > 0) {
    const next = Buffer.allocUnsafe(TABLE_READ);
    const n = readSync(fd, next, 0, next.length, offset);
    parts.push(next.subarray(0, n));
    offset += n;
  }
  const whole = parts.length === 1 || (parts.length === 2 && parts[0]!.length <= KERNEL_READ / 2);
  return { text: Buffer.concat(parts).toString('utf8'), whole };
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
