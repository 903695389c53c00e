/**
 * The byte rules of the record format: JSON with no whitespace between tokens,
 * and `<`, `>`, `&`, U+2028 and U+2029 always written as lowercase \u escapes,
 * both in strings the encoder writes and inside carried raw JSON. A lone UTF-16
 * surrogate is written as U+FFFD, as the reference writer replaces invalid text
 * (JSON.stringify would write it as a `\udxxx` escape).
 */

const NEEDS_EXTRA_ESCAPE = /[<>&\u2028\u2029]/;
const EXTRA_ESCAPES = /[<>&\u2028\u2029]/g;

/** A character as \u escapes, one per UTF-16 unit (two for a character beyond the BMP). */
function escapeChar(c: string): string {
  let out = '';
  for (let i = 0; i < c.length; i++) out += `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`;
  return out;
}

/**
 * Characters a string's literal does not hold as they are: those JSON escapes
 * (`"`, `\`, C0 controls), the format's extra escapes, and surrogates (a lone
 * one becomes U+FFFD; a pair is taken the long way too, to keep this test short).
 */
const NOT_AS_IS = /["\\\u0000-\u001f<>&\u2028\u2029\ud800-\udfff]/;

/** What JSON.stringify leaves as it is but the format does not: the extra escapes, and surrogates (only a lone one is changed). */
const BEYOND_JSON = /[<>&\u2028\u2029\ud800-\udfff]/;

/**
 * A JSON string literal in the format's spelling. Most strings (ids, names,
 * prose) are their own text in quotes, found with one scan; most others (text
 * with newlines or quotes) are what JSON.stringify makes of them.
 */
export function quote(s: string): string {
  if (!NOT_AS_IS.test(s)) return `"${s}"`;
  if (!BEYOND_JSON.test(s)) return JSON.stringify(s);
  const json = JSON.stringify(s.isWellFormed() ? s : s.toWellFormed());
  return NEEDS_EXTRA_ESCAPE.test(json) ? json.replace(EXTRA_ESCAPES, escapeChar) : json;
}

/**
 * Characters beyond C0 that a terminal acts on, or that no one sees: DEL, the C1
 * controls (8-bit escape sequences among them); the bidi embeddings, overrides,
 * isolates and marks, which reorder text; and the other invisible format
 * characters (zero-width space, joiners, word joiner, byte order mark, soft
 * hyphen, the invisible operators, annotation and shorthand controls, the tag
 * characters), which hide text, or carry it past a reader unseen. A regex
 * character class body, for a regex with the `u` flag.
 */
export const TERMINAL_CONTROLS =
  '\\u007f-\\u009f\\u00ad\\u061c\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u206f\\ufeff\\ufff9-\\ufffb' +
  '\\u{1bca0}-\\u{1bca3}\\u{1d173}-\\u{1d17a}\\u{e0000}-\\u{e007f}';

const RAW_TERMINAL_CONTROLS = new RegExp(`[${TERMINAL_CONTROLS}]`, 'gu');

/**
 * Whether text holds a character at U+007F or above, where every terminal
 * control is: DEL, or one whose UTF-8 is longer than it (a lone surrogate's
 * too, written as U+FFFD). Two native scans, several times faster than a
 * character class searched for at each position.
 */
const beyondAscii = (text: string): boolean => text.includes('\u007f') || Buffer.byteLength(text, 'utf8') !== text.length;

/**
 * JSON text safe to print: the terminal controls JSON leaves as they are written
 * as \u escapes. In JSON they can occur only inside strings, where the escape
 * stands for the same character, so the value is unchanged. For output shown to
 * people and programs, never for journal bytes.
 */
export function escapeTerminalControls(json: string): string {
  return beyondAscii(json) ? json.replace(RAW_TERMINAL_CONTROLS, escapeChar) : json;
}

/**
 * Whether JSON text may need the format's extra escapes or a terminal's: it
 * holds `<`, `>`, `&`, DEL, or anything beyond ASCII (its UTF-8 is then longer
 * than it). Each searched for alone, which is several times faster than one
 * character class.
 */
function mayNeedEscapes(json: string): boolean {
  return json.includes('<') || json.includes('>') || json.includes('&') || beyondAscii(json);
}

/**
 * Text a literal holds as it is but for JSON's short escapes: printable ASCII
 * other than `<`, `>` and `&`, and newlines, tabs and carriage returns. Most of
 * what a run holds (prose, code, tool output), tested whole by one anchored
 * match, several times faster than JSON.stringify's walk of it.
 */
const PLAIN_TEXT = /^[\t\n\r\x20-\x25\x27-\x3b\x3d\x3f-\x7e]*$/;

/** PLAIN_TEXT's text with JSON's short escapes, as JSON.stringify writes them, each replaced where it occurs. */
function shortEscapes(s: string): string {
  let out = s;
  if (out.includes('\\')) out = out.replaceAll('\\', '\\\\'); // first, so the escapes below are not doubled
  if (out.includes('"')) out = out.replaceAll('"', '\\"');
  if (out.includes('\n')) out = out.replaceAll('\n', '\\n');
  if (out.includes('\t')) out = out.replaceAll('\t', '\\t');
  if (out.includes('\r')) out = out.replaceAll('\r', '\\r');
  return out;
}

/**
 * quote, then escapeTerminalControls: a string as it is written in JSON text
 * shown on a terminal. Text of another string's or a raw value's is unchanged by
 * it, so JSON text spelled a string at a time is the text spelled whole. The
 * common string, plain ASCII needing neither, is tested once.
 */
export function terminalQuote(s: string): string {
  if (PLAIN_TEXT.test(s)) return `"${shortEscapes(s)}"`;
  if (s.isWellFormed()) {
    const json = JSON.stringify(s);
    if (!mayNeedEscapes(json)) return json;
  }
  return escapeTerminalControls(quote(s));
}

const MAYBE_NOT_CANONICAL = /[ \t\n\r<>&\u2028\u2029]/;

/**
 * Rewrites syntactically valid JSON text into the format's spelling without
 * parsing it into values: whitespace outside strings is removed and the extra
 * escapes are applied inside strings. Everything else (key order, number
 * spellings such as `1.0` or `1e3`, big integers, other escapes) is kept as is.
 * A lone surrogate written as a character (not as an escape) becomes U+FFFD, as
 * in strings. Idempotent, so canonical text comes back unchanged.
 */
export function canonicalRawText(raw: string): string {
  const text = raw.isWellFormed() ? raw : raw.toWellFormed();
  if (!MAYBE_NOT_CANONICAL.test(text)) return text;
  let out = '';
  let runStart = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c /* \ */) {
        i++; // the escaped character can never end the string
      } else if (c === 0x22 /* " */) {
        inString = false;
      } else if (c === 0x3c || c === 0x3e || c === 0x26 || c === 0x2028 || c === 0x2029) {
        out += text.slice(runStart, i) + escapeChar(text[i]!);
        runStart = i + 1;
      }
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) {
      out += text.slice(runStart, i);
      runStart = i + 1;
    }
  }
  return out + text.slice(runStart);
}

/** A part of a value that is not JSON: where (`.a[0].b`, empty at the top) and what it is. */
export interface NonJsonPart {
  path: string;
  what: string;
}

/**
 * The first part of a value that is not JSON (a non-finite number, a class
 * instance such as a Buffer or Date, a function...), or null when the whole value
 * is JSON. YAML can produce such values (`.inf`, `!!binary`), and a request body
 * would carry them as something other than they are. As in JSON.stringify, an
 * `undefined` member is absent and an `undefined` array element is null.
 */
export function nonJsonPart(value: unknown, path = ''): NonJsonPart | null {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return null;
  if (typeof value === 'number') return Number.isFinite(value) ? null : { path, what: String(value) };
  if (typeof value !== 'object') return { path, what: `a ${typeof value}` };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = value[i] === undefined ? null : nonJsonPart(value[i], `${path}[${i}]`);
      if (found !== null) return found;
    }
    return null;
  }
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) {
    return { path, what: `a ${(value as object).constructor?.name ?? 'non-plain object'}` };
  }
  for (const [k, v] of Object.entries(value)) {
    const found = v === undefined ? null : nonJsonPart(v, `${path}.${k}`);
    if (found !== null) return found;
  }
  return null;
}

/**
 * Serializes a JSON value (null, a boolean, a finite number, a string, an array,
 * a plain object) with object keys sorted at every depth, in the format's
 * spelling. Used where bytes must not depend on how a value was built (the
 * tool-set hash). Anything that is not JSON is refused, naming where it is, rather
 * than hashed as something the model is never sent.
 */
export function canonicalJson(value: unknown): string {
  const part = nonJsonPart(value);
  if (part !== null) throw new TypeError(`cannot serialize ${part.what} as JSON (at ${part.path || 'the top'})`);
  return canonical(value);
}

function canonical(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return quote(value);
  if (typeof value === 'number') return JSON.stringify(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${quote(k)}:${canonical(obj[k])}`).join(',')}}`;
}
