/**
 * Reading a JSON-lines journal: what a crash can leave at its end. It is valid
 * only because a journal is append-only and every line is made durable before
 * the next is written, so damage can only ever be at the end: blank lines, and
 * one final line that is not even JSON (a torn write). Both are dropped; any
 * other line is a record, and one that does not decode is corruption. Every
 * reader and the repair before an append apply this one rule.
 */
import { decodeRecord } from './decode.js';
import { LogbookError, isLogbookError, type ErrorDetails } from './errors.js';
import { decodeResultLine } from './result-line.js';
import type { JournalRecord } from './records.js';

export interface JournalLines {
  /** The whole lines, in order, without their newlines. */
  lines: string[];
  /** Length, in UTF-16 units of the input, of the prefix up to the end of the last kept line (its newline excluded). */
  keptLength: number;
  /** Lines were dropped from the end (blank ones, or a torn write). */
  dropped: boolean;
  /** The last kept line has no newline after it (a writer must add one before appending). */
  missingNewline: boolean;
}

/** A line that is not even JSON: the shape of a torn write. */
export function isUnparsable(line: string): boolean {
  try {
    JSON.parse(line);
    return false;
  } catch {
    return true;
  }
}

const isBlank = (line: string): boolean => line.trim() === '';

/** Splits journal text into its whole lines by the torn-tail rule above. */
export function journalLines(text: string): JournalLines {
  const lines: string[] = [];
  let lastStart = 0;
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    lines.push(text.slice(start, end));
    lastStart = start;
    start = end + 1;
  }
  const total = lines.length;
  // Where line i starts, walking back from the last: each earlier line ends one newline before.
  let at = lastStart;
  let n = total;
  const dropLast = (): void => {
    n--;
    at = n === 0 ? 0 : at - 1 - lines[n - 1]!.length;
  };
  while (n > 0 && isBlank(lines[n - 1]!)) dropLast();
  if (n > 0 && isUnparsable(lines[n - 1]!)) dropLast();
  lines.length = n;
  const keptLength = n === 0 ? 0 : at + lines[n - 1]!.length;
  return { lines, keptLength, dropped: n < total, missingNewline: n > 0 && keptLength === text.length };
}

/**
 * Decodes a journal's whole lines. A line that does not decode is `corrupt`
 * (wherever it is: damage at the end was dropped by journalLines), and the
 * error names `source` and the line number.
 */
export function decodeLines(lines: readonly string[], source: string): JournalRecord[] {
  const records: JournalRecord[] = new Array(lines.length);
  for (let i = 0; i < lines.length; i++) records[i] = decodeLineOf(lines[i]!, source, i + 1);
  return records;
}

/**
 * Decodes a journal's whole lines as decodeLines does, dropping each line from
 * `lines` once it is decoded (the array is left empty): a load of a large run
 * then never holds all of its text and all of its records at once.
 */
export function takeRecords(lines: string[], source: string, decode: LineDecoder = decodeLineOf): JournalRecord[] {
  const records: JournalRecord[] = new Array(lines.length);
  for (let i = 0; i < records.length; i++) {
    records[i] = decode(lines[i]!, source, i + 1);
    lines[i] = '';
  }
  lines.length = 0;
  return records;
}

/** Decodes one stored line; a failure is `corrupt`, naming `where` (a meta of another version stays `version`). */
export function decodeLine(line: string, where: string): JournalRecord {
  try {
    return decodeRecord(line);
  } catch (err) {
    throw lineRefused(err, where);
  }
}

/** decodeLine of line `n` of `source`, whose name (`<source> line <n>`) is made only for an error: a load decodes every line. */
export function decodeLineOf(line: string, source: string, n: number): JournalRecord {
  try {
    return decodeRecord(line);
  } catch (err) {
    throw lineRefused(err, `${source} line ${n}`);
  }
}

/** How line `n` of `source` is decoded: decodeLineOf, or decodeLineKeepingOutput. */
export type LineDecoder = (line: string, source: string, n: number) => JournalRecord;

/** decodeLineOf, a tool result line in the encoder's exact text read with its output kept as its literal (output-literal.ts). */
export function decodeLineKeepingOutput(line: string, source: string, n: number): JournalRecord {
  return decodeResultLine(line) ?? decodeLineOf(line, source, n);
}

function lineRefused(err: unknown, where: string, details?: ErrorDetails): unknown {
  if (isLogbookError(err, 'version')) return err;
  const reason = err instanceof Error ? err.message : String(err);
  return new LogbookError('corrupt', `${where} is corrupt: ${reason}`, details !== undefined ? { cause: err, details } : { cause: err });
}

/**
 * A record read from line `n` of `source` that the fold refused (its
 * `corrupt`), named as a line that does not decode is: `<source> line <n> is
 * corrupt: <the fold's reason>`, with `details`, the refusal its cause. Any
 * other error (`no_meta`, `version`) is given back as it is.
 */
export function recordRefused(err: unknown, source: string, n: number, details?: ErrorDetails): unknown {
  return isLogbookError(err, 'corrupt') ? lineRefused(err, `${source} line ${n}`, details) : err;
}

/** Every record of journal text, by the torn-tail rule. */
export function parseJournal(text: string, source = 'journal'): JournalRecord[] {
  return decodeLines(journalLines(text).lines, source);
}
