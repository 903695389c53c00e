/**
 * Reading the ends of a journal file without reading the whole of it: the first
 * line (meta) for listings, the last line for status and for appending.
 */
import { readSync } from 'node:fs';

const NEWLINE = 0x0a;
const FIRST_CHUNK = 4096;

/**
 * The first read of either end goes into this one buffer: a listing reads both
 * ends of every run, and the text is copied out before these calls return.
 */
const scratch = Buffer.allocUnsafe(FIRST_CHUNK);

/** A buffer of `size` bytes: the shared one for the first, smallest read. */
const bufferFor = (size: number): Buffer => (size <= FIRST_CHUNK ? scratch : Buffer.allocUnsafe(size));

/** The first line of the file open at `fd` (without its newline), or null when the file is empty. */
export function readFirstLine(fd: number, size: number): string | null {
  if (size === 0) return null;
  let chunk = Math.min(FIRST_CHUNK, size);
  for (;;) {
    const buf = bufferFor(chunk);
    const n = readSync(fd, buf, 0, chunk, 0);
    const nl = buf.subarray(0, n).indexOf(NEWLINE);
    if (nl >= 0) return buf.toString('utf8', 0, nl);
    if (n >= size) return buf.toString('utf8', 0, n);
    chunk = Math.min(chunk * 4, size);
  }
}

export interface TailLines {
  /** The final line (no newline), possibly torn. */
  last: string;
  /** Byte offset where the final line starts. */
  lastStart: number;
  /** Whether the file ends with a newline. */
  endsWithNewline: boolean;
  /** The line before the final one, or null when the final line is the first. */
  previous: string | null;
  previousStart: number;
}

/**
 * The final two lines of a non-empty file. Reads backwards from the end in
 * growing chunks, so the cost depends on line length, not on the number of lines.
 */
export function readTailLines(fd: number, size: number): TailLines {
  let chunk = Math.min(FIRST_CHUNK, size);
  for (;;) {
    const start = size - chunk;
    const buf = bufferFor(chunk);
    const n = readSync(fd, buf, 0, chunk, start);
    const view = buf.subarray(0, n);
    const endsWithNewline = view[view.length - 1] === NEWLINE;
    const lastEnd = endsWithNewline ? view.length - 1 : view.length;
    const lastNl = lastEnd > 0 ? view.lastIndexOf(NEWLINE, lastEnd - 1) : -1;
    const prevNl = lastNl > 0 ? view.lastIndexOf(NEWLINE, lastNl - 1) : -1;
    if (prevNl >= 0 || start === 0) {
      const last = view.toString('utf8', lastNl + 1, lastEnd);
      const lastStart = start + lastNl + 1;
      if (lastNl < 0) return { last, lastStart, endsWithNewline, previous: null, previousStart: 0 };
      return {
        last,
        lastStart,
        endsWithNewline,
        previous: view.toString('utf8', prevNl + 1, lastNl),
        previousStart: start + prevNl + 1,
      };
    }
    chunk = Math.min(chunk * 4, size);
  }
}
