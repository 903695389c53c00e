import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock } from '../../../src/store/file/flock.js';
import { lockTableSoon, parseLockTable, readLockTable, readTable, type LockTable } from '../../../src/store/file/lock-table.js';
import { tempDir } from '../../helpers/tmp.js';

/**
 * A lock table as the kernel gives it: each line numbered by its place, a
 * read at a byte offset giving the table from there (found again from its
 * start), whole lines up to a page. `between(n)` runs before read n (0 first):
 * locks taken or released meanwhile.
 */
function kernelTable(inodes: number[], between: (read: number, inodes: number[]) => void = () => {}): (offset: number) => Buffer {
  let reads = 0;
  return (offset) => {
    between(reads++, inodes);
    const lines = inodes.map((inode, i) => `${i + 1}: FLOCK  ADVISORY  WRITE ${900 + i} fe:00:${inode} 0 EOF\n`);
    let at = 0;
    let i = 0;
    while (i < lines.length && at + lines[i]!.length <= offset) at += lines[i++]!.length;
    let out = lines.slice(i).join('').slice(offset - at);
    if (out.length > 4096) out = out.slice(0, out.lastIndexOf('\n', 4096) + 1);
    return Buffer.from(out);
  };
}

const inodesOf = (text: string): number[] => [...parseLockTable(text)].map((k) => Number(k.split(':')[2])).sort((a, b) => a - b);

describe('one reading of the lock table', () => {
  const locks = Array.from({ length: 300 }, (_, i) => 100_000 + i); // some 14 KiB: four reads and the one finding the end

  it('is whole, every lock listed, when nothing changes as it is read', () => {
    const { text, whole } = readTable(kernelTable([...locks]));
    expect(whole).toBe(true);
    expect(inodesOf(text)).toEqual(locks);
  });

  it('is not whole where a lock released before an edge moves the lines there, and still lists the lock past that edge', () => {
    // Released after the first read: every later line moves back one place, the first past the edge to before it.
    const { text, whole } = readTable(kernelTable([...locks], (read, table) => void (read === 1 && table.splice(10, 1))));
    expect(whole).toBe(false);
    const listed = inodesOf(text);
    for (const inode of locks.filter((_, i) => i !== 10)) expect(listed).toContain(inode);
  });

  it('is not whole where a lock taken before an edge moves the lines there', () => {
    const { whole } = readTable(kernelTable([...locks], (read, table) => void (read === 2 && table.unshift(7))));
    expect(whole).toBe(false);
  });

  it('is whole where locks change only past the edges still to come', () => {
    // The last lines change after the first read: no edge read so far moved.
    const { text, whole } = readTable(kernelTable([...locks], (read, table) => void (read === 1 && table.splice(295, 5))));
    expect(whole).toBe(true);
    expect(inodesOf(text)).toEqual(locks.slice(0, 295));
  });
});

describe('the lock table', () => {
  it('keeps held flock locks by device and inode, not POSIX locks or waiters', () => {
    const table = parseLockTable(
      [
        '1: FLOCK  ADVISORY  WRITE 1502 fe:00:2149842 0 EOF',
        '2: POSIX  ADVISORY  WRITE 1461 fe:00:402116 0 EOF',
        '3: -> FLOCK  ADVISORY  WRITE 1600 fe:00:777 0 EOF',
        '4: FLOCK  ADVISORY  READ 1700 103:1a:12 0 EOF',
        '',
      ].join('\n'),
    );
    expect([...table].sort()).toEqual(['254:0:2149842', '259:26:12']);
  });

  it.runIf(process.platform === 'linux')('sees a lock this process holds, and not once it is released', () => {
    const path = join(tempDir(), 'run.lock');
    expect(readLockTable()!.holds(path)).toBe(false); // no such file
    const lock = acquireLock(path, 'run');
    try {
      expect(readLockTable()!.holds(path)).toBe(true);
    } finally {
      lock.release();
    }
    expect(readLockTable()!.holds(path)).toBe(false);
  });

  it.runIf(process.platform === 'linux')('read on the thread pool, gives what a read at once gives, a table longer than one read whole', async () => {
    const path = join(tempDir(), 'run.lock');
    writeFileSync(path, '');
    const lock = acquireLock(path, 'run');
    try {
      expect((await lockTableSoon())!.holds(path)).toBe(true);
    } finally {
      lock.release();
    }
    expect((await lockTableSoon())!.holds(path)).toBe(false);
    // A table of some 3,000 other locks, this file's listed last: read past the first 64 KiB.
    const { dev, ino } = statSync(path, { bigint: true });
    const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
    const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
    const device = `${major.toString(16)}:${minor.toString(16)}`;
    const others = Array.from({ length: 3000 }, (_, i) => `${i + 1}: FLOCK  ADVISORY  WRITE ${1000 + i} fe:00:${100000 + i} 0 EOF`);
    const table = join(tempDir(), 'locks');
    writeFileSync(table, [...others, `3001: FLOCK  ADVISORY  WRITE 42 ${device}:${ino} 0 EOF`, ''].join('\n'));
    expect(statSync(table).size).toBeGreaterThan(64 * 1024);
    expect((await lockTableSoon(table))!.holds(path)).toBe(true);
    expect(readLockTable(table)!.holds(path)).toBe(true);
    expect(await lockTableSoon(join(tempDir(), 'none'))).toBeNull();
  });

  it.runIf(process.platform === 'linux')('reads the kernel’s table on past a read that gives less than asked, to its end', async () => {
    // Some 300 locks held here: a table of several pages, which the kernel gives a page or so a read.
    const dir = tempDir();
    const paths = Array.from({ length: 300 }, (_, i) => join(dir, `run-${i}.lock`));
    const locks = paths.map((path) => acquireLock(path, 'run'));
    try {
      expect(readFileSync('/proc/locks').length).toBeGreaterThan(8 * 1024);
      // The kernel resumes each read at a position in the table: a lock released elsewhere meanwhile (a test
      // beside this one) can shift one of these past a read's edge. A reader that stopped at a short read
      // would miss most of them.
      const missed = (table: LockTable): number => paths.filter((path) => !table.holds(path)).length;
      // A table read again until two readings agree misses none.
      expect(missed((await lockTableSoon())!)).toBe(0);
      expect(missed(readLockTable()!)).toBe(0);
    } finally {
      for (const lock of locks) lock.release();
    }
  });
});
