/**
 * Exclusive, non-blocking advisory locks on a lock file, through flock(2).
 *
 * A flock belongs to the open file description, so a second open of the same
 * lock file fails whether it comes from this process or another, and the kernel
 * drops the lock when its holder exits or is killed: a crashed run never needs
 * unlocking. Because of that, a refusal cannot say who holds the lock.
 */
import { closeSync, constants } from 'node:fs';
import { LogbookError, isLogbookError } from '../../core/index.js';
import { loadAddon } from '../native.js';
import { ioError, openOwnFile } from './fs.js';

interface FlockAddon {
  tryLockExclusive(fd: number): number;
  unlock(fd: number): number;
  EWOULDBLOCK: number;
}

let addon: FlockAddon | null = null;

function flock(): FlockAddon {
  if (addon !== null) return addon;
  if (process.platform === 'win32') {
    // No flock here: this stub does not exclude. On such platforms the operator
    // must not resume one run twice at the same time.
    addon = { tryLockExclusive: () => 0, unlock: () => 0, EWOULDBLOCK: -1 };
    return addon;
  }
  addon = loadAddon<FlockAddon>("the file store's lock addon (flock)");
  return addon;
}

export interface FileLock {
  release(): void;
}

/**
 * Takes the lock of run `runId` on `path` (created 0600 if absent, never
 * through a link planted there) or throws `locked`, naming the run.
 */
export function acquireLock(path: string, runId: string): FileLock {
  const lib = flock();
  let fd: number;
  try {
    fd = openOwnFile(path, constants.O_WRONLY | constants.O_CREAT);
  } catch (err) {
    throw isLogbookError(err) ? err : ioError(`cannot open the lock file ${path}`, err);
  }
  const rc = lib.tryLockExclusive(fd);
  if (rc !== 0) {
    closeSync(fd);
    if (rc === lib.EWOULDBLOCK) {
      throw new LogbookError('locked', `run ${runId} is locked by another writer; wait for it to finish, or stop it first`);
    }
    throw new LogbookError('io', `cannot lock ${path}: flock failed with errno ${rc}`);
  }
  let held = true;
  return {
    release(): void {
      if (!held) return;
      held = false;
      closeSync(fd); // closing the descriptor is what releases the lock
    },
  };
}
