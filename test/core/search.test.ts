/**
 * The search matcher: case-insensitive literal text (never made a pattern) or
 * a pattern of bounded length, and its pre-test on stored lines, which must never turn away a line that holds a
 * match (checked over random journals whose texts exercise every escape).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RawJson, encodeRecord, textMatcher, type JournalRecord } from '../../src/index.js';
import { MAX_PATTERN_LENGTH, checkPattern, foldCase, quoted } from '../../src/core/index.js';
import { searchPlaces } from '../../src/render/index.js';
import { journal, text } from '../helpers/journals.js';

/** A non-empty piece of non-empty `s` picked by a and b (code points), upper-cased when `upper` says. */
function piece(s: string, a: number, b: number, upper: boolean): string {
  const chars = [...s];
  const from = a % chars.length;
  const cut = chars.slice(from, from + 1 + (b % (chars.length - from))).join('');
  return upper ? cut.toUpperCase() : cut;
}

describe('textMatcher', () => {
  it('finds text case-insensitively, literally or as a pattern, and refuses what it cannot use', () => {
    expect(textMatcher('ZeBRa').find('a zebra here')).toEqual({ index: 2, length: 5 });
    expect(textMatcher('a.c').find('abc')).toBeNull();
    expect(textMatcher('a.c', { regex: true }).find('xABC')).toEqual({ index: 1, length: 3 });
    expect(() => textMatcher('')).toThrow(/search text is empty/);
    expect(() => textMatcher('(', { regex: true })).toThrow(/is not a regular expression/);
  });

  it('matches plain text as it is, however long, and never as a pattern', () => {
    const long = 'x'.repeat(15_000);
    expect(textMatcher(long).find(`--${long.toUpperCase()}--`)).toEqual({ index: 2, length: 15_000 });
    expect(textMatcher('(a+)+b').find('zz (A+)+B')).toEqual({ index: 3, length: 6 });
    expect(textMatcher('a+').find('aaa')).toBeNull();
  });

  it('compares letters in lower case, keeping every index an index into the text searched', () => {
    // U+0130 lowers to two code units: the text is folded a character at a time, so the match is where it is.
    expect(textMatcher('istanbul').find('\u0130stanbul, ISTANBUL')).toEqual({ index: 10, length: 8 });
    expect(foldCase('\u0130X')).toBe('\u0130x');
    // A final sigma and a sigma are one letter.
    expect(textMatcher('\u03bf\u03b4\u03bf\u03c3').find('\u039f\u0394\u039f\u03a3')).toEqual({ index: 0, length: 4 });
    expect(textMatcher('\u{10400}').find('a\u{10428}')).toEqual({ index: 1, length: 2 });
  });

  it('refuses a pattern too long or not one, quoting only its start', () => {
    expect(() => checkPattern('a'.repeat(MAX_PATTERN_LENGTH))).not.toThrow();
    expect(() => checkPattern('a'.repeat(MAX_PATTERN_LENGTH + 1))).toThrow(/at most 1,000 characters, and this one has 1,001/);
    const message = (() => {
      try {
        checkPattern(`${'['.repeat(500)}`);
      } catch (err) {
        return (err as Error).message;
      }
      return '';
    })();
    expect(message).toBe(`"${'['.repeat(60)}"\u2026 (500 characters) is not a regular expression: Unterminated character class`);
    expect(quoted('short')).toBe('"short"');
  });

  it('turns a stored line away only when none of its places can match', () => {
    const m = textMatcher('zebra');
    expect(m.mightMatch('{"seq":2,"text":"a horse"}')).toBe(false);
    expect(m.mightMatch('{"seq":2,"text":"a ZEBRA"}')).toBe(true);
    // An escape could spell the text: such a line is decoded to be sure.
    expect(m.mightMatch('{"seq":2,"text":"a \\u007aebra"}')).toBe(true);
    // Text an escape stands for, and patterns, are looked for in every line.
    expect(textMatcher('a"b').mightMatch('{}')).toBe(true);
    expect(textMatcher('x', { regex: true }).mightMatch('{}')).toBe(true);
  });

  it('never turns away a line that holds a match, over random journals', () => {
    fc.assert(
      fc.property(journal, fc.nat(), fc.nat(), fc.boolean(), ({ records }, a, b, upper) => {
        for (const record of records) {
          const line = encodeRecord(record);
          for (const place of searchPlaces(record)) {
            if (place.text === '') continue;
            const needle = piece(place.text, a, b, upper);
            const m = textMatcher(needle);
            if (m.find(place.text) !== null) expect(m.mightMatch(line), `${needle} in ${line}`).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('never turns away a command result or a tool call that holds a match, however it is escaped', () => {
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), fc.boolean(), fc.boolean(), (output, a, b, upper, escapeAll) => {
        if (output === '') return;
        const needle = piece(output, a, b, upper);
        const m = textMatcher(needle);
        const content = JSON.stringify({ command: ['sh'], exit_code: 0, output });
        const result = { seq: 3, tool_result: { tool_use_id: 't', result: { tool_use_id: 't', content } } } as JournalRecord;
        // A model may escape any character of its JSON, letters included.
        const input = escapeAll ? `{"q":"${[...output].map((c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`).join('')}"}` : JSON.stringify({ q: output });
        const call = {
          seq: 2,
          assistant: { iteration: 0, message: { role: 'assistant', content: [{ tool_use: { id: 't', name: 'n', input: RawJson.fromText(input) } }] }, in_tokens: 1, out_tokens: 1 },
        } as JournalRecord;
        for (const record of [result, call]) {
          const found = searchPlaces(record).some((p) => m.find(p.text) !== null);
          if (found) expect(m.mightMatch(encodeRecord(record))).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
