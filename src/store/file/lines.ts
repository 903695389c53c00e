/**
 * Reading the ends of a journal file without reading the whole of it: the first
 * line (meta) for listings and opens, the final whole lines for status and for
 * appending. The end is judged by the same torn-tail rule as a whole read
 * (journalLines), applied to a tail that starts on a line boundary.
 */
import { readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { JsonOutline, isUnparsable, journalLines } from '../../core/index.js';

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
  /**
   * The last whole line, or null when the file holds none. A line longer than
   * LONG_LINE bytes that is JSON is given as its outline (core JsonOutline): it
   * decodes to the same kind of record, seq and status, and is never read whole.
   */
  last: string | null;
  /** Byte offset just past the last whole line (its newline excluded): where damage after it begins. */
  keptEnd: number;
  /** Whether the bytes after keptEnd are anything but exactly one newline. */
  needsRepair: boolean;
}

/** Lines longer than this are judged and outlined a chunk at a time, never held. */
export const LONG_LINE = 1024 * 1024;
const STREAM_CHUNK = 64 * 1024;

/** The buffer of the chunks a long line is read in, shared like `scratch`: its bytes are decoded before the next read. */
const chunkBuffer = Buffer.allocUnsafe(STREAM_CHUNK);

/** Reads bytes [start, end) of the file into a shared buffer when one is large enough: use them before the next read. */
function readRange(fd: number, start: number, end: number): Buffer {
  const size = end - start;
  const buf = size <= FIRST_CHUNK ? scratch : size <= STREAM_CHUNK ? chunkBuffer : Buffer.allocUnsafe(size);
  const n = readSync(fd, buf, 0, size, start);
  return buf.subarray(0, n);
}

/** Where the line ending at byte `end` starts: just past the newline before it, or 0. Reads backwards a chunk at a time. */
function lineStart(fd: number, end: number): number {
  let to = end;
  let chunk = FIRST_CHUNK;
  while (to > 0) {
    const from = Math.max(0, to - chunk);
    const nl = readRange(fd, from, to).lastIndexOf(NEWLINE);
    if (nl >= 0) return from + nl + 1;
    to = from;
    chunk = STREAM_CHUNK;
  }
  return 0;
}

/** What the torn-tail rule asks of a line: is it blank, is it JSON, and its text (an outline for a long JSON line). */
interface Judged {
  blank: boolean;
  json: boolean;
  text: () => string;
}

/** A line judged as it streams by (streamLine). */
interface Streamed {
  blank: boolean;
  json: boolean;
  /** Its outline: null when it is not JSON, or when the outline would itself be long. */
  outline: string | null;
  /** Where it ends: found only when asked, where the judging stopped before its end. */
  lineEnd: () => number;
}

/**
 * The line starting at `start`, up to its newline or `end`, judged a chunk at a
 * time and never held: read no further than where it can be no JSON.
 */
function streamLine(fd: number, start: number, end: number): Streamed {
  const outline = new JsonOutline(LONG_LINE);
  const decoder = new StringDecoder('utf8');
  let blank = true;
  const take = (piece: string): void => {
    if (blank && piece.trim() !== '') blank = false;
    outline.push(piece);
  };
  const finished = (lineEnd: number): Streamed => {
    take(decoder.end());
    const { json, outline: text } = outline.finish();
    return { blank, json, outline: text, lineEnd: () => lineEnd };
  };
  for (let at = start; at < end; at += STREAM_CHUNK) {
    const chunk = readRange(fd, at, Math.min(end, at + STREAM_CHUNK));
    const nl = chunk.indexOf(NEWLINE);
    take(decoder.write(nl >= 0 ? chunk.subarray(0, nl) : chunk));
    if (outline.invalid) return { blank: false, json: false, outline: null, lineEnd: () => newlineFrom(fd, at, end) };
    if (nl >= 0) return finished(at + nl);
  }
  return finished(end);
}

function judge(fd: number, start: number, end: number): Judged {
  if (end - start <= LONG_LINE) {
    const text = readRange(fd, start, end).toString('utf8');
    const blank = text.trim() === '';
    return { blank, json: !blank && !isUnparsable(text), text: () => text };
  }
  const line = streamLine(fd, start, end);
  // A long line that is not JSON, or whose outline would itself be long, is read whole after all.
  return { blank: line.blank, json: line.json, text: () => line.outline ?? readRange(fd, start, end).toString('utf8') };
}

/**
 * The end of a non-empty file by the torn-tail rule (core journalLines): blank
 * lines at the end are dropped, then the last line when it is not even JSON;
 * the line before that is kept whatever it holds. The last few kilobytes are
 * read first, which settles a journal of ordinary lines; otherwise lines are
 * found by reading backwards a chunk at a time, and a long line is judged as it
 * streams by, so the memory taken is bounded whatever the length of the lines.
 */
export function readTail(fd: number, size: number): Tail {
  const start = size - Math.min(FIRST_CHUNK, size);
  const view = readRange(fd, start, size);
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
  return walkBack(fd, size);
}

/** readTail over lines too long for its first read: a line at a time from the end. */
function walkBack(fd: number, size: number): Tail {
  const endsOnNewline = readRange(fd, size - 1, size)[0] === NEWLINE;
  let end = endsOnNewline ? size - 1 : size;
  let droppedTorn = false;
  for (;;) {
    const start = lineStart(fd, end);
    const line = judge(fd, start, end);
    const kept = droppedTorn || (!line.blank && line.json);
    if (kept) return { last: line.text(), keptEnd: end, needsRepair: size - end !== 1 || !endsOnNewline };
    if (!line.blank) droppedTorn = true; // a torn line: the one before it is kept
    if (start === 0) return { last: null, keptEnd: 0, needsRepair: true };
    end = start - 1;
  }
}

/** The offset of the first newline in bytes [from, end) of the file, or `end` when there is none. */
function newlineFrom(fd: number, from: number, end: number): number {
  for (let at = from; at < end; at += STREAM_CHUNK) {
    const nl = readRange(fd, at, Math.min(end, at + STREAM_CHUNK)).indexOf(NEWLINE);
    if (nl >= 0) return at + nl;
  }
  return end;
}

/** Bytes of a long line that is not JSON given in its place (outlinedLines). */
const NOT_JSON_HEAD = 64;

/** What outlinedLines gives for a long line that is not JSON: its head and an ellipsis, which no JSON reader takes either. */
const notJson = (fd: number, start: number): string => `${readRange(fd, start, start + NOT_JSON_HEAD).toString('utf8')}\u2026`;

/**
 * The line longer than a chunk that starts at `start`, judged as it streams by
 * (streamLine): its outline, or notJson's stand-in once the text can be no
 * JSON; and where it ends, found only when the reader goes on past it.
 */
function longLine(fd: number, start: number, end: number): { text: string; lineEnd: () => number } {
  const line = streamLine(fd, start, end);
  if (!line.json) return { text: notJson(fd, start), lineEnd: line.lineEnd };
  // A JSON line whose outline would itself be long is read whole after all, as judge() does.
  return { text: line.outline ?? readRange(fd, start, line.lineEnd()).toString('utf8'), lineEnd: line.lineEnd };
}

/**
 * The lines of bytes [0, end) of the file open at `fd`, a batch per chunk read,
 * where `end` is a Tail's keptEnd (so every line there is whole, the torn-tail
 * rule already applied). A line longer than a chunk is given as its outline:
 * a reader that checks each record's kind, seq and structure reads a journal
 * of any line length in bounded memory.
 */
export function* outlinedLines(fd: number, end: number): Generator<string[]> {
  let pos = 0;
  while (pos < end) {
    const to = Math.min(end, pos + STREAM_CHUNK);
    const chunk = readRange(fd, pos, to);
    // The chunk's lines end at its last newline, or at `end` when the chunk reaches it.
    const stop = to === end ? chunk.length : chunk.lastIndexOf(NEWLINE);
    if (stop < 0) {
      // A line longer than a chunk: judged a chunk at a time as it is read.
      const line = longLine(fd, pos, end);
      yield [line.text];
      pos = line.lineEnd() + 1;
      continue;
    }
    const lines = chunk.toString('utf8', 0, stop).split('\n');
    pos += stop + 1;
    yield lines;
  }
}
