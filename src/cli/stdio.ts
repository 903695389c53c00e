/**
 * The command's terminal and its output streams, and what happens when they go
 * away. One place decides it for every prompt and every write:
 *
 * - A terminal that hangs up (its window closed, an SSH session dropped) is a
 *   SIGHUP however it is noticed: by the signal, by its input ending or failing
 *   once it is gone, or by a write to it failing. The stop handlers
 *   (signals.ts) hear it once, whichever comes first; with none, the process
 *   ends by SIGHUP as any terminal program does.
 * - A stdout or stderr that is not a terminal and cannot be written (its reader
 *   left, `| head -1`: EPIPE; a full disk, `2>/dev/full`: ENOSPC) ends nothing:
 *   what is written to it from then on is dropped, and unless its reader merely
 *   left, the exit code says that output was lost: 1 for a command that would
 *   have exited 0.
 * - Node 20 aborts at exit when it cannot restore a terminal that hung up (its
 *   tcsetattr fails with EIO): the descriptors of such a terminal are closed just
 *   before, and Node leaves closed descriptors alone.
 */
import type { EventEmitter } from 'node:events';
import { closeSync } from 'node:fs';
import { text } from 'node:stream/consumers';
import { isatty } from 'node:tty';
import { ioError } from '../store/file/fs.js';
import { EXIT } from './exit-codes.js';

export type OutputStream = 'stdout' | 'stderr';

const STDIO = [0, 1, 2] as const;

/** Which of descriptors 0 to 2 were terminals when the command started (guardStdio). */
let startedOnTerminal: boolean[] = [false, false, false];
let guarded = false;
let hungUp = false;
const hangUpListeners = new Set<() => void>();
/** The errno each output that is not a terminal first failed with. */
const failed = new Map<OutputStream, string>();
/** Aborted as each of them fails (outputGone). */
const gone: Record<OutputStream, AbortController> = { stdout: new AbortController(), stderr: new AbortController() };

/**
 * Installs the rules above for this process: the command's first act (main).
 * Errors writing stdout or stderr are never thrown from then on.
 */
export function guardStdio(): void {
  if (guarded) return;
  guarded = true;
  startedOnTerminal = STDIO.map((fd) => isatty(fd));
  for (const name of ['stdout', 'stderr'] as const) process[name].on('error', (err: NodeJS.ErrnoException) => outputFailed(name, err));
  process.on('exit', atExit);
}

/**
 * The prompt a command is given: its words, else (`piped`) what stdin holds
 * when it is not a terminal, read to its end however slowly it is written
 * (stdin is read as a stream: once Node has opened it, a pipe is non-blocking
 * and a synchronous read of one not yet written fails with EAGAIN).
 */
export async function promptOf(words: readonly string[], piped = true): Promise<string> {
  if (words.length > 0) return words.join(' ');
  if (!piped || isatty(0)) return '';
  return (await text(process.stdin)).trim();
}

/** True once a descriptor that was a terminal at the start no longer is one: the terminal hung up. */
export function terminalGone(): boolean {
  return STDIO.some((fd) => startedOnTerminal[fd] === true && !isatty(fd));
}

/**
 * The terminal is gone: a SIGHUP, heard once. The signal may still come after
 * the hang-up was noticed some other way; from then on it is ignored, so that
 * it cannot end the process while the stop is under way.
 */
export function hangUp(): void {
  if (hungUp) return;
  hungUp = true;
  if (hangUpListeners.size === 0) {
    process.kill(process.pid, 'SIGHUP'); // no stop handler: the signal's own default ends the process
    return;
  }
  process.on('SIGHUP', () => {});
  for (const listener of [...hangUpListeners]) listener();
}

/** Calls `listener` at the hang-up (signals.ts). Returns the function that removes it. */
export function onHangUp(listener: () => void): () => void {
  hangUpListeners.add(listener);
  return () => void hangUpListeners.delete(listener);
}

/**
 * For whatever reads the terminal (a readline interface, Ink's stdin): an error
 * reading it or setting its mode is a hang-up, and so is its end once the
 * terminal is gone (Ctrl-D is an end too, and is not one). Call it before the
 * reader's own handlers of `end`, so the run's stop signal is aborted before
 * the reader settles on no answer.
 */
export function watchTerminalInput(reader: EventEmitter, end: 'close' | 'end'): void {
  reader.on('error', () => hangUp());
  reader.on(end, () => {
    if (terminalGone()) hangUp();
  });
}

/**
 * Aborted when `name` can no longer be written, for a command whose output is
 * all it does (a watch, a search): it stops reading once nobody reads it.
 */
export function outputGone(name: OutputStream): AbortSignal {
  return gone[name].signal;
}

function outputFailed(name: OutputStream, err: NodeJS.ErrnoException): void {
  if (process[name].isTTY === true) {
    hangUp(); // a terminal that cannot be written is gone
    return;
  }
  if (failed.has(name)) return;
  failed.set(name, err.code ?? 'EIO');
  gone[name].abort();
  // Said on stderr when it is stdout that failed; stdout carries output alone, so a failed stderr is told by the exit code.
  if (name === 'stdout' && err.code !== 'EPIPE' && !failed.has('stderr')) {
    process.stderr.write(`logbook: ${ioError('cannot write to stdout', err).message}; the rest of its output is dropped\n`);
  }
}

function atExit(): void {
  const lost = [...failed.values()].some((errno) => errno !== 'EPIPE');
  if (lost && (process.exitCode === undefined || process.exitCode === EXIT.ok)) process.exitCode = EXIT.error;
  for (const fd of STDIO) {
    if (startedOnTerminal[fd] !== true || isatty(fd)) continue;
    try {
      closeSync(fd);
    } catch {
      /* already closed */
    }
  }
}
