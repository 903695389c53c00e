/**
 * decodeResultLine: a tool result line read without JSON.parse is read as
 * decodeRecord reads it, its output kept as the literal its line holds, which
 * is every encoder's spelling of that output; any other line is left to
 * decodeRecord, which refuses what is not a record.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeRecord, decodeResultLine, encodeRecord, LiteralOutput, quote, terminalQuote, type JournalRecord } from '../../src/core/index.js';
import { encodeMessageAs, putMessageAs } from '../../src/core/encode.js';
import { text } from '../helpers/journals.js';

/** The encoder's line of a tool result of `content`, with `body`'s flags. */
function lineOf(content: string, body: { is_error?: true; remote?: true } = {}, id = 'c<1>', seq = 12): string {
  const { remote, ...error } = body;
  const record: JournalRecord = { seq, tool_result: { tool_use_id: id, result: { tool_use_id: id, content, ...error }, ...(remote ? { remote } : {}) } };
  return encodeRecord(record);
}

/** The output body of a tool result record decodeResultLine took. */
function bodyOf(record: JournalRecord | undefined): LiteralOutput {
  if (record === undefined || !('tool_result' in record) || !(record.tool_result.result instanceof LiteralOutput)) throw new Error('not a tool result read with its literal');
  return record.tool_result.result;
}

/** The record as a plain value: a LiteralOutput's output read, as a decoded body holds it. */
const plain = (value: unknown): any => JSON.parse(JSON.stringify(value));

/** Whether decodeRecord takes the line (undefined) or refuses it (its message). */
function refusal(line: string): string | undefined {
  try {
    decodeRecord(line);
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}

const wide = fc.string({
  unit: fc.oneof(fc.constantFrom('a', ' ', '\n', '\t', '\r', '"', '\\', '/', '<', '&', '\u0000', '\u001b', '\u007f', '\u0085', '\u2028', '\ud800', 'é', '🦜'), fc.string({ maxLength: 1 })),
  maxLength: 30,
});

/** Ways a line may be spelled other than the encoder spells it, or be no record at all. */
const EDITS: ((line: string) => string)[] = [
  (line) => line,
  (line) => line.replace('"content":"', '"content":"\\/'),
  (line) => line.replace('"content":"', '"content":"\\u0041'),
  (line) => line.replaceAll('\\n', '\\u000a').replaceAll('\\u003c', '\\u003C'),
  (line) => line.replaceAll('\\u003c', '<').replaceAll('\\u0026', '&'),
  (line) => line.replace('"content":"', '"content":"x","content":"'),
  (line) => line.replace('"content":', '"content" :'),
  (line) => line.replace('"result":{', '"result":{"newer":"\\"content\\":1",'),
  (line) => line.replace(/}}$/, ',"is_error":false}}'),
  (line) => line.replace('"content":"', '"content":"\t'), // a raw control: not JSON
  (line) => line.replace('"content":"', '"content":"\\q'), // no such escape
  (line) => line.replace('"content":"', '"content":"\u001b['), // a raw escape: not JSON, and a terminal's
  (line) => line.replace('{"seq":12', '{"seq":012'),
  (line) => line.replace('{"seq":12', '{"seq":99999999999999999'),
  (line) => line.slice(0, -1),
  (line) => `${line}}`,
  (line) => `${line} `,
  (line) => line.replace('"tool_result":{"tool_use_id":"', '"tool_result":{"tool_use_id":"\\u00e9'),
];

describe('a tool result line read with its output as its literal', () => {
  it('is read as decodeRecord reads it, or left to it, for random outputs and lines', () => {
    fc.assert(
      fc.property(fc.oneof(text, wide), fc.nat(EDITS.length - 1), fc.boolean(), fc.boolean(), (content, e, error, remote) => {
        const line = EDITS[e]!(lineOf(content, { ...(error ? { is_error: true } : {}), ...(remote ? { remote: true } : {}) }));
        const got = decodeResultLine(line);
        if (got === undefined) return;
        expect(refusal(line)).toBeUndefined();
        expect(plain(got)).toEqual(plain(decodeRecord(line)));
        expect(encodeRecord(got)).toBe(line);
        const body = bodyOf(got);
        expect(body.literal).toBe(quote(body.content));
        expect(body.literal).toBe(terminalQuote(body.content));
      }),
      { numRuns: 2000 },
    );
  });

  it("takes the encoder's line of printable ASCII with the escapes quote writes, error or remote, and no line spelled otherwise", () => {
    for (const body of [{}, { is_error: true as const }, { remote: true as const }, { is_error: true as const, remote: true as const }]) {
      const line = lineOf('line 1\n\tline "2" \\ \r\u0001 <b> & \u2028', body, 'c<1>');
      const got = decodeResultLine(line);
      expect(plain(bodyOf(got))).toEqual(plain(decodeRecord(line)).tool_result.result);
      expect(plain(got)).toEqual(plain(decodeRecord(line)));
    }
    for (const other of ['\u007f', '\u009b', 'é', '🦜']) expect(decodeResultLine(lineOf(`x${other}`))).toBeUndefined(); // a terminal's escapes, or beyond ASCII
    for (const edit of EDITS.slice(1)) expect(decodeResultLine(edit(lineOf('x\ny')))).toBeUndefined();
    expect(decodeResultLine(lineOf('x', {}, 'c', 0))).toBeDefined(); // seq 0 is JSON's; the fold refuses it
  });

  it('leaves a line longer than a mebibyte to JSON.parse, whose stack the match would overflow', () => {
    expect(decodeResultLine(lineOf('a\n'.repeat(600_000)))).toBeUndefined();
    expect(decodeResultLine(lineOf('a\n'.repeat(300_000)))).toBeDefined();
  });

  it('decodes the output only when it is read, once', () => {
    const body = bodyOf(decodeResultLine(lineOf('out "a"\n')));
    expect(body.literal).toBe('"out \\"a\\"\\n"');
    expect(body.content).toBe('out "a"\n');
    expect(body.content).toBe(body.content);
    expect(JSON.stringify(body)).toBe('{"tool_use_id":"c<1>","content":"out \\"a\\"\\n"}');
  });

  it('is written in pieces as encodeMessageAs writes it whole, its literal a piece of its own', () => {
    const message = { role: 'user' as const, content: [{ text: { text: 'x' } }, { tool_result: bodyOf(decodeResultLine(lineOf('out\n', { is_error: true }))) }, { text: { text: 'y' } }] };
    const pieces: string[] = [];
    putMessageAs(message, { quote, raw: (t) => t }, (piece) => pieces.push(piece), ',');
    expect(pieces.join('')).toBe(`,${encodeMessageAs(message, { quote, raw: (t) => t })}`);
    expect(pieces).toContain('"out\\n"');
    expect(pieces.join('')).toContain('"content":"out\\n","is_error":true}');
  });
});

describe('a line that is not read with its literal', () => {
  it('is turned down in time linear in its length, whatever its output holds', () => {
    // A run of characters before one the spelling does not hold: a match that tried each way of cutting the run would never end.
    for (const bad of ['\u001b', '\u0000', 'é', '\u007f']) {
      for (const line of [lineOf(`${'x'.repeat(100_000)}!`), lineOf(`${'x\n'.repeat(50_000)}!`)]) expect(decodeResultLine(line.replace('!', bad)) === undefined).toBe(true);
    }
  });
});
