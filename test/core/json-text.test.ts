/**
 * escapeTerminalControls: every terminal control in JSON text written as its
 * \u escape, from DEL (the lowest of them) up; text without one given back as
 * it is.
 */
import { describe, expect, it } from 'vitest';
import { escapeTerminalControls } from '../../src/core/index.js';

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
