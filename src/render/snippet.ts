/**
 * A match in journal text shown on one line: the match with a little context
 * either side, safe for a terminal (sanitized, whitespace runs as one space),
 * an ellipsis where the text goes on.
 */
import { elideMiddle } from './calls.js';
import { sanitizeLine } from './sanitize.js';

export interface SnippetOptions {
  /** Characters of context on each side; default 40. */
  around?: number;
  /** The longest a match is shown (elided in the middle beyond it); default 120. */
  longest?: number;
  /** Marks the match (a color terminal's emphasis); default none. */
  mark?: (text: string) => string;
}

const ELLIPSIS = '\u2026';

/** Moves `at` off the second half of a surrogate pair, so a cut never splits a character. */
function boundary(text: string, at: number): number {
  const c = text.charCodeAt(at);
  return at > 0 && at < text.length && c >= 0xdc00 && c <= 0xdfff ? at - 1 : at;
}

const flat = (text: string): string => sanitizeLine(text).replace(/\s+/g, ' ');

/** The match `text[index, index + length)` in context. */
export function snippet(text: string, index: number, length: number, options: SnippetOptions = {}): string {
  const around = options.around ?? 40;
  const mark = options.mark ?? ((s: string) => s);
  const start = boundary(text, Math.max(0, index - around));
  const end = boundary(text, Math.min(text.length, index + length + around));
  const before = flat(text.slice(start, index)).trimStart();
  const match = elideMiddle(flat(text.slice(index, index + length)), options.longest ?? 120);
  const after = flat(text.slice(index + length, end)).trimEnd();
  return `${start > 0 ? ELLIPSIS : ''}${before}${mark(match)}${after}${end < text.length ? ELLIPSIS : ''}`;
}
