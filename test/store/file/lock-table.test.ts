import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock } from '../../../src/store/file/flock.js';
import { parseLockTable, readLockTable } from '../../../src/store/file/lock-table.js';
import { tempDir } from '../../helpers/tmp.js';

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
});
