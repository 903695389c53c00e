/**
 * The byte rules of the record format: JSON with no whitespace between tokens,
 * and `<`, `>`, `&`, U+2028 and U+2029 always written as lowercase \u escapes,
 * both in strings the encoder writes and inside carried raw JSON.
 */

const NEEDS_EXTRA_ESCAPE = /[<>&\u2028\u2029]/;
const EXTRA_ESCAPES = /[<>&\u2028\u2029]/g;

function escapeChar(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** A JSON string literal in the format's spelling. */
export function quote(s: string): string {
  const json = JSON.stringify(s);
  return NEEDS_EXTRA_ESCAPE.test(json) ? json.replace(EXTRA_ESCAPES, escapeChar) : json;
}

const MAYBE_NOT_CANONICAL = /[ \t\n\r<>&\u2028\u2029]/;

/**
 * Rewrites syntactically valid JSON text into the format's spelling without
 * parsing it into values: whitespace outside strings is removed and the extra
 * escapes are applied inside strings. Everything else (key order, number
 * spellings such as `1.0` or `1e3`, big integers, other escapes) is kept as is.
 * Idempotent, so canonical text comes back unchanged.
 */
export function canonicalRawText(text: string): string {
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

/**
 * Serializes a plain JS value with object keys sorted at every depth, in the
 * format's spelling. Used where bytes must not depend on how a value was built
 * (the tool-set hash).
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'string') return quote(value);
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw new TypeError(`cannot serialize ${value} as JSON`);
      return JSON.stringify(value);
    }
    if (typeof value === 'boolean') return value ? 'true' : 'false';
    if (value === undefined) return 'null';
    throw new TypeError(`cannot serialize a ${typeof value} as JSON`);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${quote(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}
