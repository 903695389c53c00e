/**
 * Reading a JSON-lines journal: the torn-tail rule. It is valid only because a
 * journal is append-only and every line is made durable before the next is
 * written, so damage can only ever be at the end.
 */
import { decodeRecord } from './codec.js';
import { LogbookError, isLogbookError } from './errors.js';
import type { JournalRecord } from './records.js';

export interface ParsedJournal {
  records: JournalRecord[];
  /** Length, in UTF-16 units of the input, of the prefix holding whole records. */
  goodLength: number;
  /** The final line was unparsable and has been dropped. */
  tornTail: boolean;
  /** The final record has no terminating newline (a writer must add one before appending). */
  missingNewline: boolean;
}

/**
 * Decodes every line. An unparsable final line is a torn tail and is dropped; an
 * unparsable interior line is `corrupt`, and the error names its line number.
 * A record that parses as JSON but is not a valid record is corrupt wherever it is.
 */
export function parseJournal(text: string, source = 'journal'): ParsedJournal {
  const records: JournalRecord[] = [];
  let start = 0;
  let lineNo = 0;
  let goodLength = 0;
  while (start < text.length) {
    lineNo++;
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    const line = text.slice(start, end);
    const isLast = nl < 0 || nl === text.length - 1;
    try {
      records.push(decodeRecord(line));
    } catch (err) {
      if (isLast && isUnparsable(line)) {
        return { records, goodLength, tornTail: true, missingNewline: false };
      }
      if (isLogbookError(err, 'version')) throw err;
      const reason = err instanceof Error ? err.message : String(err);
      throw new LogbookError('corrupt', `${source} line ${lineNo} is corrupt: ${reason}`, { cause: err });
    }
    if (nl < 0) return { records, goodLength: text.length, tornTail: false, missingNewline: true };
    start = nl + 1;
    goodLength = start;
  }
  return { records, goodLength, tornTail: false, missingNewline: false };
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
