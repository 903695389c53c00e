/**
 * escapeTerminalControls: every terminal control in JSON text written as its
 * \u escape, from DEL (the lowest of them) up; text without one given back as
 * it is.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeMessage, escapeTerminalControls, fold, quote, stateToJson, terminalQuote } from '../../src/core/index.js';
import { journal } from '../helpers/journals.js';

/** Strings of what any escaping acts on: the format's extra escapes, JSON's, terminal controls, lone and paired surrogates. */
const hostile = fc.string({
  unit: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('a', ' ', '~', '0') },
    { weight: 3, arbitrary: fc.constantFrom('<', '>', '&', '\u2028', '\u2029', '"', '\\', '\n', '\t', '\r', '\b', '\f', '\u0001', '\u001b', '\u007f', '\u009b', '\u00ad', '\u202e', '\u200b', '\ufeff', 'é', '🦜', '\u{e0041}', '\ud800', '\udc00') },
  ),
  maxLength: 16,
});

describe('JSON spelled for a terminal a string at a time', () => {
  it('is the string quoted, then its terminal controls escaped', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        expect(terminalQuote(s)).toBe(escapeTerminalControls(quote(s)));
      }),
      { numRuns: 2000 },
    );
  });

  it('spells text of printable ASCII with newlines, tabs, quotes and backslashes as JSON.stringify does', () => {
    const text = fc.string({ unit: fc.constantFrom('a', ' ', '~', '%', "'", '=', '?', '"', '\\', '\n', '\t', '\r', '\\n', '\\"'), maxLength: 24 });
    fc.assert(fc.property(text, (s) => terminalQuote(s) === JSON.stringify(s)), { numRuns: 2000 });
    expect(terminalQuote('a\\"b\n\t\r\\n')).toBe('"a\\\\\\"b\\n\\t\\r\\\\n"');
  });

  it('gives the state JSON whose every message is its journal text with the terminal controls escaped', () => {
    fc.assert(
      fc.property(journal, ({ records }) => {
        const state = fold(records);
        const messages = state.messages.map((m) => escapeTerminalControls(encodeMessage(m))).join(',');
        expect(stateToJson(state)).toContain(`"messages":[${messages}],"pending":`);
      }),
      { numRuns: 300 },
    );
  });
});

describe('escapeTerminalControls', () => {
  it('escapes DEL, a C1 control, a bidi override and a tag character, and nothing else', () => {
    const json = JSON.stringify({ s: 'a\u007fb\u009bc\u202ed\u{e0041}e~é' });
    expect(escapeTerminalControls(json)).toBe('{"s":"a\\u007fb\\u009bc\\u202ed\\udb40\\udc41e~é"}');
    expect(escapeTerminalControls('{"s":"a\u007fb"}')).toBe('{"s":"a\\u007fb"}'); // DEL in otherwise plain text
  });

  it('gives plain ASCII text back as it is', () => {
    const json = JSON.stringify({ s: ' !"#~ \\ <>&', n: [1, 2] });
    expect(escapeTerminalControls(json)).toBe(json);
  });
});

describe('quote', () => {
  it('writes the format\'s escapes and U+FFFD for a lone surrogate, and leaves text that only looks like them as it is', () => {
    expect(quote('plain "text"\n\ttab')).toBe('"plain \\"text\\"\\n\\ttab"');
    expect(quote('a<b>&c\u2028\u2029')).toBe('"a\\u003cb\\u003e\\u0026c\\u2028\\u2029"');
    expect(quote('x\ud800y\udfff')).toBe('"x\ufffdy\ufffd"');
    expect(quote('<\udc00\ud83e\udd9c')).toBe('"\\u003c\ufffd\ud83e\udd9c"');
    // A backslash followed by "ud800" is text, not a surrogate: its backslash is escaped, nothing else changes.
    expect(quote('\\ud800 and \\udfff')).toBe('"\\\\ud800 and \\\\udfff"');
  });

  it('spells every string as JSON.stringify of its well-formed text with the extra escapes, by whichever path it takes', () => {
    const definition = (s: string): string => JSON.stringify(s.toWellFormed()).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    // Each character a literal treats apart, and its neighbours, among plain text.
    const edges = ['"', '\\', '\u0000', '\u001f', ' ', '~', '\u007f', '<', '>', '&', '\u2027', '\u2028', '\u2029', '\u202a', '\ud7ff', '\ud800', '\udbff', '\udc00', '\udfff', '\ue000', 'é', 'a'];
    const text = fc.array(fc.oneof(fc.constantFrom(...edges), fc.string({ unit: 'binary' })), { maxLength: 6 }).map((parts) => parts.join(''));
    fc.assert(fc.property(text, (s) => quote(s) === definition(s)), { numRuns: 2000 });
    for (const c of edges) expect(quote(`ab${c}cd`)).toBe(definition(`ab${c}cd`));
  });
});
