/**
 * The matcher a search over journals uses: the text to find, case-insensitive,
 * and a pre-test on a stored line that saves decoding lines that cannot match.
 * Pure; which texts of a record are searched is the renderings' (what a person
 * sees), reading runs the store's.
 *
 * Plain text is matched as it is, never made into a regular expression, so it
 * may be as long as a person can paste. A pattern (`regex`) is a JavaScript
 * regular expression of at most MAX_PATTERN_LENGTH characters; it runs where it
 * is matched, so a caller that takes patterns from people bounds its matching
 * (the command runs it in a worker a deadline and a signal can stop).
 */
import { LogbookError } from './errors.js';

/** Where a match is in a text, in UTF-16 code units. */
export interface TextMatch {
  index: number;
  length: number;
}

/** What a search matches texts with; see textMatcher. */
export interface TextMatcher {
  /** Where the first match in `text` is, or null. */
  find(text: string): TextMatch | null;
  /**
   * False only when no place of the record stored as `line` can match, judged
   * from the stored line without decoding it; true otherwise.
   */
  mightMatch(line: string): boolean;
}

/** The longest pattern taken: longer ones are refused (plain text has no limit). */
export const MAX_PATTERN_LENGTH = 1000;

/** The flags every pattern is matched with: case-insensitive, Unicode. */
export const PATTERN_FLAGS = 'iu';

/**
 * Characters a JSON string escape other than `\u` can stand for. A text
 * without these is found in a stored line as it is (letter for letter) unless
 * the line holds a `\u` escape.
 */
const SHORT_ESCAPED = /["\\/\b\f\n\r\t]/;

/** How much of what a person typed a message quotes. */
const QUOTED = 60;

/** `text` as a message quotes it: in JSON quotes, cut to its first characters when long, with its length. */
export function quoted(text: string): string {
  const chars = [...text];
  if (chars.length <= QUOTED) return JSON.stringify(text);
  return `${JSON.stringify(chars.slice(0, QUOTED).join(''))}\u2026 (${chars.length.toLocaleString('en-US')} characters)`;
}

/**
 * Text in the case a search compares: lower case, final sigma as sigma, and
 * each character the same length as it was (the few whose lower case is
 * longer, such as U+0130, stay as they are), so an index into it is one into
 * the text.
 */
export function foldCase(text: string): string {
  let lower = text.toLowerCase();
  if (lower.length !== text.length) {
    lower = '';
    for (const ch of text) {
      const l = ch.toLowerCase();
      lower += l.length === ch.length ? l : ch;
    }
  }
  return lower.includes('\u03c2') ? lower.replaceAll('\u03c2', '\u03c3') : lower;
}

/**
 * Refuses a pattern that is empty, longer than MAX_PATTERN_LENGTH or not a
 * regular expression (`usage`), quoting at most the start of it.
 */
export function checkPattern(pattern: string): RegExp {
  if (pattern === '') throw new LogbookError('usage', 'the search text is empty; give the text to look for');
  const length = [...pattern].length;
  if (length > MAX_PATTERN_LENGTH) {
    throw new LogbookError(
      'usage',
      `a pattern is at most ${MAX_PATTERN_LENGTH.toLocaleString('en-US')} characters, and this one has ${length.toLocaleString('en-US')}; ` +
        'plain text of any length is found as text, not as a pattern',
    );
  }
  try {
    return new RegExp(pattern, PATTERN_FLAGS);
  } catch (err) {
    // The engine's message repeats the whole pattern before its reason: only the reason is kept.
    const message = (err as Error).message;
    const at = message.lastIndexOf(`/${PATTERN_FLAGS}: `);
    const reason = at < 0 ? message : message.slice(at + PATTERN_FLAGS.length + 3);
    throw new LogbookError('usage', `${quoted(pattern)} is not a regular expression: ${reason}`);
  }
}

/** Matches `text` case-insensitively, as it is. Empty text matches nothing useful, so it is refused. */
export function literalMatcher(text: string): TextMatcher {
  if (text === '') throw new LogbookError('usage', 'the search text is empty; give the text to look for');
  const needle = foldCase(text);
  // A literal text is in a decoded string only if it is in the stored line too, letter for letter,
  // unless an escape could spell part of it.
  const spelledAsIs = !SHORT_ESCAPED.test(text);
  return {
    find(haystack) {
      const index = foldCase(haystack).indexOf(needle);
      return index < 0 ? null : { index, length: needle.length };
    },
    mightMatch(line) {
      return !spelledAsIs || line.includes('\\u') || foldCase(line).includes(needle);
    },
  };
}

/**
 * Matches `pattern`, checked by checkPattern, in this thread. A pattern could
 * match across an escape, so every line may match.
 */
export function patternMatcher(pattern: string): TextMatcher {
  const re = checkPattern(pattern);
  return {
    find(text) {
      const m = re.exec(text);
      return m === null ? null : { index: m.index, length: m[0].length };
    },
    mightMatch: () => true,
  };
}

/** literalMatcher, or with `regex` patternMatcher. */
export function textMatcher(pattern: string, options: { regex?: boolean } = {}): TextMatcher {
  return options.regex ? patternMatcher(pattern) : literalMatcher(pattern);
}
