/**
 * Reading the ends of a journal file without reading the whole of it: the first
 * line (meta) for listings and opens, the final whole lines for status and for
 * appending. The end is judged by the same torn-tail rule as a whole read
 * (journalLines), applied to a tail that starts on a line boundary.
 */
import { readSync } from 'node:fs';
import { journalLines } from '../../core/index.js';

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

/**
 * Line `index` (1 is the first) of the file open at `fd`, reading from the start
 * no further than its end; null when the file holds fewer whole lines. A line
 * the file ends on is judged by the torn-tail rule, as a whole read judges it.
 */
export function readLineAt(fd: number, size: number, index: number): string | null {
  if (size === 0 || index < 1) return null;
  let chunk = Math.min(FIRST_CHUNK, size);
  for (;;) {
    const buf = bufferFor(chunk);
    const n = readSync(fd, buf, 0, chunk, 0);
    let end = -1;
    for (let found = 0; found < index; found++) {
      end = buf.subarray(0, n).indexOf(NEWLINE, end + 1);
      if (end < 0) break;
    }
    // Through the line's newline, or the whole file when it ends first: then the rule decides.
    if (end >= 0 || n >= size) return journalLines(buf.toString('utf8', 0, end >= 0 ? end + 1 : n)).lines[index - 1] ?? null;
    chunk = Math.min(chunk * 4, size);
  }
}

export interface Tail {
  /** The last whole line, or null when the file holds none. */
  last: string | null;
  /** Byte offset just past the last whole line (its newline excluded): where damage after it begins. */
  keptEnd: number;
  /** Whether the bytes after keptEnd are anything but exactly one newline. */
  needsRepair: boolean;
}

/**
 * The end of a non-empty file by the torn-tail rule. Reads backwards from the
 * end in growing chunks until the chunk, from a line boundary on, keeps a line
 * by the rule, or holds the whole file.
 */
export function readTail(fd: number, size: number): Tail {
  let chunk = Math.min(FIRST_CHUNK, size);
  for (;;) {
    const start = size - chunk;
    const buf = bufferFor(chunk);
    const n = readSync(fd, buf, 0, chunk, start);
    const view = buf.subarray(0, n);
    // Outside the file's start, the chunk's first line may be partial: begin after its first newline.
    const from = start === 0 ? 0 : view.indexOf(NEWLINE) + 1;
    if (from > 0 || start === 0) {
      const text = view.toString('utf8', from);
      const split = journalLines(text);
      // A kept line here is the file's last kept line: what the rule drops lies after it, inside the chunk.
      if (split.lines.length > 0 || start === 0) {
        const last = split.lines.length > 0 ? split.lines[split.lines.length - 1]! : null;
        const keptEnd = start + from + Buffer.byteLength(text.slice(0, split.keptLength));
        const needsRepair = size - keptEnd !== 1 || view[view.length - 1] !== NEWLINE;
        return { last, keptEnd, needsRepair: last === null ? size > 0 : needsRepair };
      }
    }
    if (start === 0) throw new Error('unreachable: a whole file was read');
    chunk = Math.min(chunk * 4, size);
  }
}
