/**
 * Small filesystem helpers of the file backend; every failure becomes a
 * LogbookError naming what and where.
 *
 * The store opens nothing in its runs directory through a symbolic link: anyone
 * who can write to that directory could plant one in place of a journal, a
 * lock, a note or a temporary file, and lead a write (or a read) to any file
 * the user can reach. So a file that may already be there is opened with
 * O_NOFOLLOW (openOwnFile), a new one is made with O_CREAT|O_EXCL, which never
 * follows a link nor takes over a file already there (createOwnFile), a
 * temporary one gets a name nobody can guess (tempPath), and what is opened
 * must be a regular file. A note, or any other file kept whole beside a run,
 * is written through writeFileWhole and read through readOwnFile.
 */
import { closeSync, constants, fstatSync, fsync, fsyncSync, lstatSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { LogbookError, nodeCrypto } from '../../core/index.js';

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

/** The refusal of something other than the store's own regular file where one is expected. */
function notOwnFile(path: string, what: string, cause?: unknown): LogbookError {
  return new LogbookError(
    'io',
    `${path} is ${what}, which the file store does not open (one planted in its runs directory could lead a write anywhere): put the file itself there, or remove it`,
    { cause },
  );
}

/** Refuses an open descriptor that is not a regular file (a FIFO, a device, a directory), closing it. */
function checkRegular(fd: number, path: string): number {
  if (fstatSync(fd).isFile()) return fd;
  closeSync(fd);
  throw notOwnFile(path, 'not a regular file');
}

/**
 * Opens `path`, never through a symbolic link (`io`, naming it). `flags` may
 * hold O_CREAT, for a file that is made when missing. O_NONBLOCK keeps a FIFO
 * planted there from blocking the open, which is then refused as not a regular
 * file. Other failures are thrown as they are, for the caller to name.
 */
export function openOwnFile(path: string, flags: number, mode = 0o600): number {
  let fd: number;
  try {
    fd = openSync(path, flags | constants.O_NOFOLLOW | constants.O_NONBLOCK, mode);
  } catch (err) {
    if (errno(err) === 'ELOOP') throw notOwnFile(path, 'a symbolic link', err);
    throw err;
  }
  return checkRegular(fd, path);
}

/** Makes the new file `path` and opens it (EEXIST when anything, a link included, is there). */
export function createOwnFile(path: string, flags: number, mode = 0o600): number {
  return openSync(path, flags | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
}

/**
 * A temporary name beside `path` that nobody can guess, hidden from listings (a
 * leading dot, a `.tmp` end): 96 bits of node:crypto's random bytes, which the
 * start has loaded already (WebCrypto's getRandomValues would load its own
 * modules for it).
 */
export function tempPath(path: string): string {
  const random = nodeCrypto().randomBytes(12).toString('hex');
  return join(dirname(path), `.${basename(path)}.${random}.tmp`);
}

/**
 * Writes `path` whole or not at all: into a new temporary file beside it,
 * fsynced, then renamed over it (a rename replaces a link there, never what it
 * points to). The caller names what failed. The fsync is made off the event
 * loop's thread (libuv's pool), so files written at once (Promise.all) are
 * synced at once: the file system commits them together.
 */
export async function writeFileWhole(path: string, data: string | Uint8Array, options: { sync?: boolean } = {}): Promise<void> {
  const tmp = tempPath(path);
  const fd = createOwnFile(tmp, constants.O_WRONLY);
  try {
    try {
      writeAll(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
      // Not synced (sync: false) for a file that says what is not durable anyway (live text): whole to a reader, lost in a crash.
      if (options.sync !== false) await new Promise<void>((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (err) {
    removeQuietly(tmp);
    throw err;
  }
}

/**
 * Writes `path` whole or not at all, as writeFileWhole does unsynced, off the
 * event loop: for a file that says what is not durable anyway and is replaced
 * while a person watches the process (live text). A rename over a file makes
 * ext4 start writing the new data out, which can hold the caller for
 * milliseconds; here it holds a worker thread instead.
 */
export async function replaceFileUnsynced(path: string, data: string): Promise<void> {
  const tmp = tempPath(path);
  try {
    const handle = await open(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      await handle.writeFile(data, 'utf8');
    } finally {
      await handle.close();
    }
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => {});
    throw err;
  }
}

/** Removes `path` off the event loop, if it is there. */
export async function removeQuietlyAsync(path: string): Promise<void> {
  await unlink(path).catch(() => {});
}

/** The text of the file at `path`, read without following a link; null when there is none. */
export function readOwnFile(path: string): string | null {
  return readOwn(path, (fd) => readFileSync(fd, 'utf8'));
}

/** The bytes of the file at `path`, read without following a link; null when there is none (a large file read without decoding it whole). */
export function readOwnBytes(path: string): Buffer | null {
  return readOwn(path, (fd) => readFileSync(fd));
}

function readOwn<T>(path: string, read: (fd: number) => T): T | null {
  let fd: number;
  try {
    fd = openOwnFile(path, constants.O_RDONLY);
  } catch (err) {
    if (errno(err) === 'ENOENT') return null;
    throw err;
  }
  try {
    return read(fd);
  } finally {
    closeSync(fd);
  }
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

/** Whether anything is at `path` (a link counts, and is not followed); any other failure to look is an IO error. */
export function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (err) {
    if (errno(err) === 'ENOENT') return false;
    throw ioError(`cannot read ${path}`, err);
  }
}

export function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    /* already gone */
  }
}
