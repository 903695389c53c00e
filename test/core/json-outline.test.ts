import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonOutline, OUTLINE_STRING_CHARS, outlineJson } from '../../src/core/json-outline.js';

/** JSON.parse's verdict. */
function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The text pushed in pieces cut at `cuts`. */
function inPieces(text: string, cuts: number[]): { json: boolean; outline: string | null } {
  const o = new JsonOutline();
  let at = 0;
  for (const cut of [...cuts.map((c) => c % (text.length + 1))].sort((a, b) => a - b)) {
    o.push(text.slice(at, cut));
    at = cut;
  }
  o.push(text.slice(at));
  return o.finish();
}

/** A value with every string cut to the outline's length. */
function cut(v: unknown): unknown {
  if (typeof v === 'string') return v.length > OUTLINE_STRING_CHARS ? v.slice(0, OUTLINE_STRING_CHARS) : v;
  if (Array.isArray(v)) return v.map(cut);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [cut(k), cut(x)]));
  return v;
}

const spaced = fc.tuple(fc.jsonValue(), fc.constantFrom('', ' ', '\n', '\t \r')).map(([v, ws]) => `${ws}${JSON.stringify(v, null, ws.includes('\n') ? 1 : 0)}${ws}`);
/** JSON texts, and texts near them: cut short, a character changed, inserted or dropped. */
const nearJson = fc.oneof(
  spaced,
  fc.tuple(spaced, fc.nat()).map(([t, n]) => t.slice(0, n % (t.length + 1))),
  fc.tuple(spaced, fc.nat(), fc.constantFrom('"', '\\', ',', ':', '}', ']', '{', '[', '-', '.', 'e', '0', '1', 'x', 'u', '\u0001', ' ', 'n', 't', 'f')).map(
    ([t, n, ch]) => t.slice(0, n % (t.length + 1)) + ch + t.slice(n % (t.length + 1)),
  ),
  fc.tuple(spaced, fc.nat()).map(([t, n]) => t.slice(0, n % (t.length + 1)) + t.slice((n % (t.length + 1)) + 1)),
  fc.string({ unit: fc.constantFrom('"', '\\', 'u', '0', 'a', '1', '-', '.', 'e', 'E', '+', '{', '}', '[', ']', ',', ':', ' ', 't', 'r', 'e', 'n', 'l') }),
);

describe('JsonOutline', () => {
  it('judges a text JSON exactly when JSON.parse does, whatever pieces it comes in', () => {
    fc.assert(
      fc.property(nearJson, fc.array(fc.nat(), { maxLength: 6 }), (text, cuts) => {
        const whole = outlineJson(text);
        expect(whole.json, JSON.stringify(text)).toBe(parses(text));
        expect(inPieces(text, cuts)).toEqual(whole);
      }),
      { numRuns: 3000 },
    );
  });

  it('outlines a JSON text as the same value, long strings cut, in any pieces', () => {
    fc.assert(
      fc.property(spaced, fc.array(fc.nat(), { maxLength: 6 }), (text, cuts) => {
        const { outline } = inPieces(text, cuts);
        expect(JSON.parse(outline!)).toEqual(JSON.parse(text));
      }),
      { numRuns: 1000 },
    );
    const long = 'x'.repeat(OUTLINE_STRING_CHARS + 10);
    const escapes = '\\n'.repeat(OUTLINE_STRING_CHARS + 10);
    const record = `{"seq":7,"protocol":"logbook.tool_result.v3","tool_result":{"tool_use_id":"t","result":{"tool_use_id":"t","content":"${long}"},"note":"${escapes}"}}`;
    const o = outlineJson(record);
    expect(o.json).toBe(true);
    expect(o.outline!.length).toBeLessThan(4 * OUTLINE_STRING_CHARS); // an escape is kept whole, as one character of the string
    expect(JSON.parse(o.outline!)).toEqual(cut(JSON.parse(record)));
  });

  it('gives the outline up past its bound, and still judges the text', () => {
    const text = JSON.stringify(Array.from({ length: 1000 }, (_, i) => i));
    expect(outlineJson(text, 100)).toEqual({ json: true, outline: null });
    expect(outlineJson(`${text},`, 100)).toEqual({ json: false, outline: null });
    expect(outlineJson(text).outline).toBe(text);
  });
});
