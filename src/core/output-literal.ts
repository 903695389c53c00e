/**
 * A tool result line read without JSON.parse, its output kept as the literal
 * the line spells it with and decoded only when read. A reader that writes the
 * output again (`session show --json`) then neither parses it nor spells it
 * anew: most of a long run's bytes are tool outputs.
 *
 * Only a line that is exactly the encoder's text of a tool result is taken:
 * the encoder's members in its order, around string literals each in the one
 * spelling every encoder gives its string (quote and terminalQuote alike:
 * printable ASCII but `"`, `\`, `<`, `>` and `&`, and the escapes quote
 * writes). Such a line is canonical and well formed, so decodeRecord would
 * give the same record; any other line is left to it (undefined).
 */
import { PROTOCOL_IDS, type JournalRecord, type ToolResultBody } from './records.js';

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

/** The encoder's text between a tool result line's seq and its call's id, between that id and its result's, and before its output. */
const RESULT_HEAD = `,"protocol":"${PROTOCOL_IDS.tool_result}","tool_result":{"tool_use_id":`;
const RESULT_ID = ',"result":{"tool_use_id":';
const RESULT_CONTENT = ',"content":';
/** The encoder's text after a tool result's output, by whether it is an error and whether it is remote. */
const RESULT_TAILS = [
  ['}}}', '},"remote":true}}'],
  [',"is_error":true}}}', ',"is_error":true},"remote":true}}'],
] as const;
const SEQ_HEAD = '{"seq":';

/**
 * A tool result whose output is the literal of its journal line, decoded the
 * first time `content` is read. Its `literal` is what every encoder writes
 * for that output (encode.ts writes it as it is). A message keeps the body
 * itself (fold.ts toolResultsMessage), so an output written again and never
 * read is never decoded.
 */
export class LiteralOutput implements ToolResultBody {
  private decoded: string | undefined;
  declare readonly is_error?: true;

  constructor(
    readonly tool_use_id: string,
    /** The output's string literal, quotes included. */
    readonly literal: string,
    isError: boolean,
  ) {
    if (isError) this.is_error = true;
  }

  get content(): string {
    return (this.decoded ??= JSON.parse(this.literal) as string);
  }

  /** As a decoded body stringifies. */
  toJSON(): ToolResultBody {
    return this.is_error ? { tool_use_id: this.tool_use_id, content: this.content, is_error: true } : { tool_use_id: this.tool_use_id, content: this.content };
  }
}

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
