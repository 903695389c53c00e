/** Small filesystem helpers of the file backend; every failure becomes a LogbookError naming what and where. */
import { closeSync, constants, fsyncSync, openSync, statSync, writeSync } from 'node:fs';
import { LogbookError } from '../../core/index.js';

export function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | undefined)?.code;
}

/** What an errno means for a person, where it is one a user can act on. */
const ERRNO_WORDS: Record<string, string> = {
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space is left on the device',
  EDQUOT: 'the disk quota is exceeded',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EMFILE: 'too many open files',
  EIO: 'an I/O error on the device',
};

/** `io`: `what` failed, and why in words (with the errno for searching). */
export function ioError(what: string, err: unknown): LogbookError {
  const code = errno(err);
  const words = code !== undefined ? ERRNO_WORDS[code] : undefined;
  const why = words !== undefined ? `${words} (${code})` : (err as Error).message;
  return new LogbookError('io', `${what}: ${why}`, { cause: err });
}

/** Writes all of `buf`, looping over short writes. */
export function writeAll(fd: number, buf: Uint8Array): void {
  let off = 0;
  while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
}

/** Makes a directory's entries (a new file's name) durable. */
export function fsyncDir(dir: string): void {
  const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Whether a path is there; any other failure to look is an IO error. */
export function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch (err) {
    if (errno(err) === 'ENOENT') return false;
    throw ioError(`cannot read ${path}`, err);
  }
}
