/**
 * The matcher a search over journals uses: the text to find, case-insensitive,
 * and a pre-test on a stored line that saves decoding lines that cannot match.
 * Pure; which texts of a record are searched is the renderings' (what a person
 * sees), reading runs the store's.
 */
import { LogbookError } from './errors.js';

export interface TextMatcher {
  /** Where the first match in `text` is, or null. */
  find(text: string): { index: number; length: number } | null;
  /**
   * False only when no place of the record stored as `line` can match, judged
   * from the stored line without decoding it; true otherwise.
   */
  mightMatch(line: string): boolean;
}

/**
 * Characters a JSON string escape other than `\u` can stand for. A text
 * without these is found in a stored line as it is (letter for letter) unless
 * the line holds a `\u` escape.
 */
const SHORT_ESCAPED = /["\\/\b\f\n\r\t]/;

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Matches `pattern` case-insensitively: as literal text, or with `regex` as a
 * JavaScript regular expression (`usage` when it is not one). Empty text
 * matches nothing useful, so it is refused.
 */
export function textMatcher(pattern: string, options: { regex?: boolean } = {}): TextMatcher {
  if (pattern === '') throw new LogbookError('usage', 'the search text is empty; give the text to look for');
  let re: RegExp;
  try {
    re = new RegExp(options.regex ? pattern : escapeRegex(pattern), 'iu');
  } catch (err) {
    throw new LogbookError('usage', `--regex ${JSON.stringify(pattern)} is not a regular expression: ${(err as Error).message}`);
  }
  // A literal text is in a decoded string only if it is in the stored line too, letter for letter,
  // unless an escape could spell part of it; a pattern could match across an escape, so it decodes every line.
  const literal = !options.regex && !SHORT_ESCAPED.test(pattern);
  return {
    find(text) {
      const m = re.exec(text);
      return m === null ? null : { index: m.index, length: m[0].length };
    },
    mightMatch(line) {
      return !literal || re.test(line) || line.includes('\\u');
    },
  };
}
