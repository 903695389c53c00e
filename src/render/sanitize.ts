/**
 * Journal text (model prose, tool output, arguments) is untrusted: a journal can
 * hold anything a model or a command produced. Everything shown on a terminal
 * passes through here first, so no byte from a journal can move the cursor,
 * retitle the window, rewrite earlier output or hide or reorder text.
 */
import { escapeTerminalControls, TERMINAL_CONTROLS } from '../core/index.js';

/**
 * Whole escape sequences, 7-bit and 8-bit forms: strings (OSC, DCS, SOS, PM, APC)
 * up to their terminator, CSI with its parameters, and two-byte ESC sequences.
 * An unterminated string sequence is not matched here: its introducer alone is
 * removed below and its payload stays visible, which can hide nothing.
 */
const SEQUENCE = new RegExp(
  [
    '(?:\\u001b[\\]PX^_]|[\\u0090\\u0098\\u009d\\u009e\\u009f])[^\\u0007\\u001b\\u009c]*(?:\\u0007|\\u001b\\\\|\\u009c)',
    '(?:\\u001b\\[|\\u009b)[\\u0030-\\u003f]*[\\u0020-\\u002f]*[\\u0040-\\u007e]',
    '\\u001b[\\u0020-\\u002f]*[\\u0030-\\u007e]',
  ].join('|'),
  'g',
);

/** C0 controls but tab and newline, and the rest of what a terminal acts on or no one sees (DEL, C1, bidi and invisible format characters). */
const UNSAFE = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f${TERMINAL_CONTROLS}]`, 'gu');

/** UNSAFE without the global flag, for testing (a global regex's test() is stateful). */
const ANY_UNSAFE = new RegExp(UNSAFE.source, 'u');
const LINE_BREAK = /[\n\t]/;

function visible(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code); // control pictures: ␀ ␇ ␛ ...
  if (code === 0x7f) return '\u2421'; // ␡
  if (code <= 0x9f) return '\ufffd';
  return ''; // bidi controls and invisible format characters: dropped, they have no glyph
}

/**
 * Multi-line text safe for a terminal: escape sequences removed, carriage
 * returns turned into line breaks (so `\r` cannot overwrite what a line shows),
 * other controls shown as visible symbols. Newlines and tabs are kept.
 */
export function sanitize(text: string): string {
  // Every sequence, carriage return and control above starts with or is a
  // character of UNSAFE's class: text without one is already safe as it is.
  if (!ANY_UNSAFE.test(text)) return text;
  return text.replace(/\r\n?/g, '\n').replace(SEQUENCE, '').replace(UNSAFE, visible);
}

/**
 * Multi-line text a person reviews (a diff), safe for a terminal with nothing
 * hidden: where sanitize removes an escape sequence, and what a string sequence
 * wraps with it, here every control is shown as its symbol (ESC as ␛, a carriage
 * return as ␍) and the rest of the sequence stays as text, so a line shows every
 * character the file holds. Invisible format characters (bidi controls) are
 * shown as their code point. Newlines and tabs are kept.
 */
export function reveal(text: string): string {
  if (!ANY_UNSAFE.test(text)) return text;
  return text.replace(UNSAFE, (ch) => visible(ch) || `<U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`);
}

/** One line of safe text: line breaks and tabs become spaces. */
export function sanitizeLine(text: string): string {
  const safe = sanitize(text);
  return LINE_BREAK.test(safe) ? safe.replace(/[\n\t]/g, ' ') : safe;
}

/** The line and paragraph separators, which JSON.stringify leaves raw and a terminal may break a line at. */
const SEPARATORS = /[\u2028\u2029]/g;

/**
 * A value as one line of JSON that is safe on a terminal: the same value
 * JSON.stringify gives, with every character a terminal could act on or no one
 * sees written as a \u escape (JSON.stringify already escapes C0 controls and
 * lone surrogates).
 */
export function terminalSafeJson(value: unknown): string {
  return escapeTerminalControls(JSON.stringify(value)).replace(SEPARATORS, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

/** Where an escape sequence can begin: ESC, and the 8-bit introducers SEQUENCE knows. */
const INTRODUCER = /[\u001b\u0090\u0098\u009b\u009d\u009e\u009f]/;

/**
 * sanitize for text that arrives in pieces (a model's stream): each push
 * returns what can be shown now, and the pieces returned, with end()'s, are
 * exactly sanitize of the whole text, however it was cut. What could still
 * change meaning is held back: a final carriage return (a line feed may follow),
 * a final high surrogate (its low half may follow), and everything from the
 * first escape-sequence introducer on (a sequence's end may come in a later
 * piece; a model's text has none unless it is hostile, so this costs nothing).
 */
export class StreamSanitizer {
  private held = '';

  push(piece: string): string {
    const text = this.held + piece;
    let cut = text.search(INTRODUCER);
    if (cut < 0) cut = text.length;
    const last = text.charCodeAt(cut - 1);
    if (cut > 0 && (last === 0x0d || (last >= 0xd800 && last <= 0xdbff))) cut--;
    this.held = text.slice(cut);
    return sanitize(text.slice(0, cut));
  }

  /** The rest, at the end of the text. */
  end(): string {
    const rest = sanitize(this.held);
    this.held = '';
    return rest;
  }
}
