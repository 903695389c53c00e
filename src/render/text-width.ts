/**
 * How many columns text takes on a terminal, where it breaks into characters,
 * and text wrapped to a width: string-width, wrap-ansi and Intl.Segmenter,
 * each made on first use, since their Unicode tables cost a start tens of
 * milliseconds that a run writing to no terminal never needs. Text of narrow
 * characters alone is measured by its length, without them.
 */
import { createRequire } from 'node:module';

type StringWidth = typeof import('string-width').default;
type WrapAnsi = typeof import('wrap-ansi').default;

const load = createRequire(import.meta.url);
let stringWidth: StringWidth | undefined;
let wrapAnsi: WrapAnsi | undefined;
let segmenter: Intl.Segmenter | undefined;

/**
 * Printable ASCII, perhaps cut with the ellipsis (one column, as string-width
 * counts it): one column per character, measured and cut without segmenting
 * (most ids, times and prompts).
 */
export const NARROW_ONLY = /^[\x20-\x7e\u2026]*$/;

/** Columns the text takes: wide (CJK, most emoji) characters take two, combining marks and escape sequences none. */
export function textWidth(text: string): number {
  if (NARROW_ONLY.test(text)) return text.length;
  stringWidth ??= (load('string-width') as { default: StringWidth }).default;
  return stringWidth(text);
}

/** The text's graphemes (what a person sees as one character), in order. */
export function graphemes(text: string): Intl.Segments {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return segmenter.segment(text);
}

/** wrap-ansi's wrapping: at words to `columns`, escape sequences kept whole. */
export function wrapText(text: string, columns: number, options: Parameters<WrapAnsi>[2]): string {
  wrapAnsi ??= (load('wrap-ansi') as { default: WrapAnsi }).default;
  return wrapAnsi(text, columns, options);
}
