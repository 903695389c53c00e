/**
 * Scanning JSON text for where its values sit, without parsing them into JS
 * values: so a value can be carried as the text it was written as (key order,
 * number spellings such as `1.0`, big integers). Every function here takes text
 * that is valid JSON (a line JSON.parse accepted, a RawJson's text) and positions
 * in it; on other text the spans are unspecified.
 */

/** A value's place in its text: from its first character to just past its last. */
export type Span = [start: number, end: number];

const isSpace = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;

/** The index of the first character at or after `i` that is not JSON whitespace. */
export function skipSpace(text: string, i: number): number {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/**
 * Whether the quote at `i` is escaped: preceded by an odd run of backslashes.
 * In valid JSON text an unescaped quote always opens or closes a string.
 */
export function isEscaped(text: string, i: number): boolean {
  let backslashes = 0;
  for (let j = i - 1; text.charCodeAt(j) === 0x5c /* \ */; j--) backslashes++;
  return backslashes % 2 === 1;
}

/**
 * Index just past the string literal whose opening quote is at `start`. It jumps
 * from quote to quote (indexOf) rather than reading every character: a long
 * string costs one native search, not a loop over its text.
 */
export function stringEnd(text: string, start: number): number {
  let i = start;
  for (;;) {
    i = text.indexOf('"', i + 1);
    if (i < 0) return text.length;
    if (!isEscaped(text, i)) return i + 1;
  }
}

/** Index just past the JSON value whose first character is at `start`. */
export function valueEnd(text: string, start: number): number {
  const c = text.charCodeAt(start);
  if (c === 0x22 /* " */) return stringEnd(text, start);
  if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
    let depth = 0;
    for (let i = start; i < text.length; i++) {
      const d = text.charCodeAt(i);
      if (d === 0x22) i = stringEnd(text, i) - 1;
      else if (d === 0x7b || d === 0x5b) depth++;
      else if ((d === 0x7d || d === 0x5d) /* } ] */ && --depth === 0) return i + 1;
    }
    return text.length;
  }
  let i = start;
  while (i < text.length) {
    const d = text.charCodeAt(i);
    if (d === 0x2c /* , */ || d === 0x7d || d === 0x5d || isSpace(d)) break;
    i++;
  }
  return i;
}

/**
 * The key of each member of the JSON object whose `{` is at `start`, with its
 * value's span. A repeated key keeps its last value, as JSON.parse does.
 */
export function memberSpans(text: string, start: number): Map<string, Span> {
  const out = new Map<string, Span>();
  let i = skipSpace(text, start + 1);
  while (text.charCodeAt(i) === 0x22 /* " */) {
    const keyEnd = stringEnd(text, i);
    const literal = text.slice(i, keyEnd);
    const key = literal.includes('\\') ? (JSON.parse(literal) as string) : literal.slice(1, -1);
    const valueStart = skipSpace(text, skipSpace(text, keyEnd) + 1); // past the colon
    const end = valueEnd(text, valueStart);
    out.set(key, [valueStart, end]);
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== 0x2c /* , */) break;
    i = skipSpace(text, i + 1);
  }
  return out;
}

/** The span of each element of the JSON array whose `[` is at `start`. */
export function elementSpans(text: string, start: number): Span[] {
  const out: Span[] = [];
  let i = skipSpace(text, start + 1);
  while (i < text.length && text.charCodeAt(i) !== 0x5d /* ] */) {
    const end = valueEnd(text, i);
    out.push([i, end]);
    i = skipSpace(text, end);
    if (text.charCodeAt(i) !== 0x2c /* , */) break;
    i = skipSpace(text, i + 1);
  }
  return out;
}

/**
 * The members of a JSON object, each key decoded and each value as its own JSON
 * text, so that a number keeps the spelling it was written with (`1.0`, a big
 * integer). A repeated key keeps its last value, as JSON.parse does. Null when the
 * text is not an object.
 */
export function rawMembers(text: string): Map<string, string> | null {
  const start = skipSpace(text, 0);
  if (text.charCodeAt(start) !== 0x7b /* { */) return null;
  const members = new Map<string, string>();
  for (const [key, [from, to]] of memberSpans(text, start)) members.set(key, text.slice(from, to));
  return members;
}

/**
 * `text` as a string of its own. A span cut out of a line (String.slice) keeps
 * the whole line alive for as long as the span lives, and with it the chunk the
 * line was read in: a loaded run would hold its whole file's text besides its
 * records. Prepending a character makes a rope that slicing flattens into a new
 * string, so the span holds only its own characters.
 */
export function detached(text: string): string {
  return ` ${text}`.slice(1);
}
