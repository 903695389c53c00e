/**
 * A tool result line read without JSON.parse, its output kept as the literal
 * the line spells it with (a LiteralOutput, decoded only when read).
 *
 * Only a line that is exactly the encoder's text of a tool result is taken:
 * the encoder's own text (encodeRecord's, cut around its strings) around
 * string literals each in the one spelling every encoder gives its string
 * (quote and terminalQuote alike: printable ASCII but `"`, `\`, `<`, `>` and
 * `&`, and the escapes quote writes). Such a line is canonical and well
 * formed, so decodeRecord would give the same record; any other line is left
 * to it (undefined).
 */
import { encodeRecord } from './encode.js';
import { LiteralOutput } from './output-literal.js';
import type { JournalRecord } from './records.js';

/** A character a literal in that spelling holds as it is, and an escape it holds. */
const AS_IS = String.raw`[\x20\x21\x23-\x25\x27-\x3b\x3d\x3f-\x5b\x5d-\x7e]`;
const ESCAPE = String.raw`\\(?:["\\bfnrt]|u(?:00(?:0[0-7bef]|1[0-9a-f])|003c|003e|0026|202[89]))`;

/**
 * One string literal in that spelling, matched where it starts (sticky: tried
 * at one place of the line, never searched for). Runs of characters and
 * escapes alternate, each starting where the other cannot, so a literal is
 * matched one way only and a failed match takes time linear in its length
 * (a run inside a repeated group would take time exponential in it).
 */
const LITERAL = new RegExp(`"${AS_IS}*(?:${ESCAPE}${AS_IS}*)*"`, 'y');

/**
 * Longer lines go through JSON.parse: the match's backtracking stack grows with
 * a literal's escapes, and overflows at a few million of them.
 */
const LONGEST_LINE = 1 << 20;

/**
 * The encoder's own text of a tool result line, cut around its seq, its call's
 * id, its result's id and its output: what stands between them, and after the
 * output (by whether the result is an error and whether it is remote).
 */
function resultLineText(isError: boolean, remote: boolean): string[] {
  const result = { tool_use_id: 'R', content: 'O', ...(isError ? { is_error: true as const } : {}) };
  const line = encodeRecord({ seq: 1, tool_result: { tool_use_id: 'C', result, ...(remote ? { remote: true } : {}) } });
  const [seqHead, afterSeq] = line.split(/(?<=^\{"seq":)1/) as [string, string];
  return [seqHead, ...afterSeq.split(/"[CRO]"/)];
}
const [SEQ_HEAD, RESULT_HEAD, RESULT_ID, RESULT_CONTENT] = resultLineText(false, false) as [string, string, string, string, string];
/** The encoder's text after a tool result's output: [is_error][remote]. */
const RESULT_TAILS = [false, true].map((isError) => [false, true].map((remote) => resultLineText(isError, remote)[4]!)) as [[string, string], [string, string]];

/** Where the literal at `start` ends, when one in that spelling starts there; else -1. */
function literalEnd(line: string, start: number): number {
  LITERAL.lastIndex = start;
  return LITERAL.test(line) ? LITERAL.lastIndex : -1;
}

/** The string a literal in that spelling holds: its text between the quotes when it has no escape. */
const stringOf = (literal: string): string => (literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1));

/** Where the line's seq ends, when it is spelled as JSON spells a non-negative safe integer (its value in `seen.seq`); else -1. */
function seqEnd(line: string): number {
  const start = SEQ_HEAD.length;
  let seq = 0;
  let i = start;
  for (let c = line.charCodeAt(i); c >= 0x30 && c <= 0x39; c = line.charCodeAt(++i)) seq = seq * 10 + (c - 0x30);
  if (i === start || (i > start + 1 && line.charCodeAt(start) === 0x30) || !Number.isSafeInteger(seq)) return -1;
  seen.seq = seq;
  return i;
}

/** What seqEnd read: one scratch value, as decoding is never re-entered. */
const seen = { seq: 0 };

/** Whether `line` ends with `tail` just after `at`. */
const endsAt = (line: string, at: number, tail: string): boolean => line.length - at === tail.length && line.startsWith(tail, at);

/**
 * The record of a tool result line in the encoder's exact text, its output a
 * LiteralOutput; undefined for any other line (decodeRecord's to decode or
 * refuse).
 */
export function decodeResultLine(line: string): JournalRecord | undefined {
  if (line.length > LONGEST_LINE || !line.startsWith(SEQ_HEAD)) return undefined;
  const seqAt = seqEnd(line);
  if (seqAt < 0 || !line.startsWith(RESULT_HEAD, seqAt)) return undefined;
  const callStart = seqAt + RESULT_HEAD.length;
  const callEnd = literalEnd(line, callStart);
  if (callEnd < 0 || !line.startsWith(RESULT_ID, callEnd)) return undefined;
  const idStart = callEnd + RESULT_ID.length;
  const idEnd = literalEnd(line, idStart);
  if (idEnd < 0 || !line.startsWith(RESULT_CONTENT, idEnd)) return undefined;
  const outputStart = idEnd + RESULT_CONTENT.length;
  const outputEnd = literalEnd(line, outputStart);
  if (outputEnd < 0) return undefined;
  const ends = (tail: string): boolean => endsAt(line, outputEnd, tail);
  const [[plain, remoteOnly], [errorOnly, both]] = RESULT_TAILS;
  const error = ends(errorOnly) || ends(both);
  const remote = !error ? ends(remoteOnly) : ends(both);
  if (!error && !remote && !ends(plain)) return undefined;
  const result = new LiteralOutput(stringOf(line.slice(idStart, idEnd)), line.slice(outputStart, outputEnd), error);
  const payload = { tool_use_id: stringOf(line.slice(callStart, callEnd)), result };
  return { seq: seen.seq, tool_result: remote ? { ...payload, remote: true } : payload };
}
