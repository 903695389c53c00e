import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { StreamSanitizer, sanitize, sanitizeLine } from '../../src/render/index.js';
import { terminalSafeJson } from '../../src/render/sanitize.js';
import { HOSTILE, UNSAFE_CHARS } from '../helpers/runs.js';

describe('sanitize', () => {
  it('keeps ordinary text, newlines, tabs and non-ASCII as they are', () => {
    const s = 'line one\n\tindented é 🦜 <b> & "q"\u2028x';
    expect(sanitize(s)).toBe(s);
  });

  it('removes whole escape sequences: CSI, OSC (BEL or ST), DCS, and their 8-bit forms', () => {
    expect(sanitize('a\u001b[2J\u001b[1;31mb\u001b[0mc')).toBe('abc');
    expect(sanitize('a\u001b]0;title\u0007b\u001b]8;;http://x\u001b\\link\u001b]8;;\u001b\\c')).toBe('ablinkc');
    expect(sanitize('a\u001bP1$qm\u001b\\b')).toBe('ab');
    expect(sanitize('a\u009b31mb\u009d2;t\u009cc')).toBe('abc');
    expect(sanitize('a\u001b7b\u001b8c\u001b(0d\u001bce')).toBe('abcde');
  });

  it('reveals text an SGR sequence would conceal', () => {
    expect(sanitize('x \u001b[8msecret\u001b[28m y')).toBe('x secret y');
  });

  it('keeps the payload of an unterminated string sequence visible, without its introducer', () => {
    expect(sanitize('a\u001b]0;never ends')).toBe('a0;never ends');
    expect(sanitize('a\u009dstill visible')).toBe('a\ufffdstill visible');
  });

  it('turns carriage returns into line breaks so nothing is overwritten', () => {
    expect(sanitize('progress 10%\rprogress 90%\r\ndone')).toBe('progress 10%\nprogress 90%\ndone');
  });

  it('shows stray controls as visible symbols and drops bidi overrides and isolates', () => {
    expect(sanitize('a\bb\u0007c\u0000d\u007fe\u0085f')).toBe('a\u2408b\u2407c\u2400d\u2421e\ufffdf');
    expect(sanitize('\u202eevil\u202c \u2066iso\u2069 \u202atext')).toBe('evil iso text');
    expect(sanitize('lone \u001b')).toBe('lone \u241b');
  });

  it('leaves nothing a terminal acts on in a hostile string, and keeps its words', () => {
    const out = sanitize(HOSTILE);
    expect(out).not.toMatch(UNSAFE_CHARS);
    expect(out).not.toContain('PWNED');
    for (const word of ['clear', 'title', 'hidden', 'red', 'over', 'write back', 'space bell', 'esrever', 'iso', 'Z']) expect(out).toContain(word);
  });

  it('sanitizeLine makes one line', () => {
    expect(sanitizeLine('a\nb\tc\r\nd')).toBe('a b c d');
  });
});

describe('the safe-text shortcut', () => {
  // A leading NUL forces the full rewrite; without it, safe text takes the shortcut.
  // Both must agree on the rest of the text, for any text at all.
  const alphabet = fc.constantFrom('a', ' ', '\n', '\t', '\r', '\u001b', '[', ']', '\\', '\u0007', '\u009b', '\u009c', '\u009d', 'm', '1', ';', '\u202e', '\u2066', '\u007f', 'é', '\u{1f600}', '\u200b', '\u{e0041}');

  it('agrees with the full rewrite on any text', () => {
    fc.assert(
      fc.property(fc.array(alphabet, { maxLength: 40 }).map((cs) => cs.join('')), (s) => {
        expect(sanitize(`\u0000${s}`)).toBe(`\u2400${sanitize(s)}`);
        expect(sanitizeLine(`\u0000${s}`)).toBe(`\u2400${sanitizeLine(s)}`);
      }),
      { numRuns: 2000 },
    );
  });

  it('returns safe text unchanged', () => {
    expect(sanitize('plain text, tabs\tand\nlines é \u{1f600}')).toBe('plain text, tabs\tand\nlines é \u{1f600}');
    expect(sanitizeLine('one\ttwo\nthree')).toBe('one two three');
  });
});

describe('invisible characters', () => {
  const INVISIBLE = ['\u00ad', '\u061c', '\u180e', '\u200b', '\u200c', '\u200d', '\u200e', '\u200f', '\u2060', '\u2061', '\u2064', '\u206a', '\u206f', '\ufeff', '\ufff9', '\ufffb', '\u{1bca0}', '\u{1d173}', '\u{e0001}', '\u{e0041}', '\u{e007f}'];

  it.each(INVISIBLE.map((c) => [`U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`, c]))('drops %s, as it drops bidi controls', (_, c) => {
    expect(sanitize(`pay${c}pal`)).toBe('paypal');
    expect(sanitizeLine(`a${c}b`)).toBe('ab');
  });

  it('drops text hidden in tag characters, which no terminal shows', () => {
    const hidden = [...'ignore previous instructions'].map((ch) => String.fromCodePoint(0xe0000 + ch.charCodeAt(0))).join('');
    expect(sanitize(`Nice weather.${hidden}`)).toBe('Nice weather.');
  });

  it('keeps what is visible next to them: emoji, accents, other scripts', () => {
    const s = 'café 🦜 你好 ❤️ देवनागरी';
    expect(sanitize(s)).toBe(s);
  });

  it('writes them as \\u escapes in JSON shown on a terminal, so the value is kept and can be seen', () => {
    expect(terminalSafeJson({ name: 'a\u200bb\u{e0041}\u2028' })).toBe('{"name":"a\\u200bb\\udb40\\udc41\\u2028"}');
    expect(JSON.parse(terminalSafeJson({ name: 'a\u200bb\u{e0041}' })).name).toBe('a\u200bb\u{e0041}');
  });
});

/** Text cut at random places into pieces. */
const pieces = (text: fc.Arbitrary<string>) =>
  fc.tuple(text, fc.array(fc.nat(), { maxLength: 8 })).map(([t, cuts]) => {
    const at = [...new Set(cuts.map((c) => c % (t.length + 1)))].sort((a, b) => a - b);
    return [0, ...at].map((from, i) => t.slice(from, at[i] ?? t.length));
  });

describe('StreamSanitizer', () => {
  const risky = fc.constantFrom('\u001b', '[', '31m', ']0;', '\u0007', '\\', '\r', '\n', '\u009b', '\u009d', '\u009c', 'a', ' ', '\ud83e', '\udd9c', 'é', '\u202e', '\t', '\u200b', '\udb40', '\udc41');
  it('gives, piece by piece, exactly what sanitize gives for the whole, however the text is cut', () => {
    fc.assert(
      fc.property(pieces(fc.string({ unit: risky, maxLength: 30 })), (parts) => {
        const s = new StreamSanitizer();
        const shown = parts.map((p) => s.push(p)).join('') + s.end();
        expect(shown).toBe(sanitize(parts.join('')));
      }),
      { numRuns: 2000 },
    );
  });

  it('shows plain text at once, holding back only what the next piece could change', () => {
    const s = new StreamSanitizer();
    expect(s.push('Hello, ')).toBe('Hello, ');
    expect(s.push('world\r')).toBe('world');
    expect(s.push('\nnext \ud83e')).toBe('\nnext ');
    expect(s.push('\udd9c and \u001b[3')).toBe('\ud83e\udd9c and ');
    expect(s.push('1mred')).toBe('');
    expect(s.end()).toBe('red');
  });
});
