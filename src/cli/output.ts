/** Layout for command output: tables, aligned fields, times. Text in is already sanitized. */
import { groupedDigits } from '../core/index.js';
import { graphemes, NARROW_ONLY, textWidth } from '../render/text-width.js';

export { fields, shortTime } from './fields.js';

export type Cell = string | { text: string; paint: (text: string) => string };

const LONE_SURROGATE = /\p{Cs}/u;
const LONE_SURROGATES = /\p{Cs}/gu;

/**
 * Text as a terminal draws it: a lone surrogate (which JSON can carry) is
 * written out as U+FFFD, so it is measured as one.
 */
const drawn = (s: string): string => (!NARROW_ONLY.test(s) && LONE_SURROGATE.test(s) ? s.replace(LONE_SURROGATES, '\ufffd') : s);

const textOf = (c: Cell): string => drawn(typeof c === 'string' ? c : c.text);

const widthOf = textWidth;

/** Columns the text takes on a terminal: wide (CJK, most emoji) characters take two, combining marks none. */
export const displayWidth = (s: string): number => widthOf(drawn(s));

export const cellWidth = (c: Cell): number => widthOf(textOf(c));

/** Columns padded to their widest cell, two spaces apart; the last column is not padded. */
export function table(rows: Cell[][]): string {
  // Each cell drawn once and measured as it is padded: a listing's table can have tens of thousands.
  const drawnRows: string[][] = [];
  const widths: number[] = [];
  for (const row of rows) {
    const texts: string[] = [];
    for (let i = 0; i < row.length; i++) {
      const text = textOf(row[i]!);
      texts.push(text);
      widths[i] = Math.max(widths[i] ?? 0, widthOf(text));
    }
    drawnRows.push(texts);
  }
  let out = '';
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!;
    const texts = drawnRows[r]!;
    let line = '';
    for (let i = 0; i < row.length; i++) {
      const cell = row[i]!;
      const text = i === row.length - 1 ? texts[i]! : texts[i]! + spaces(widths[i]! - widthOf(texts[i]!));
      line += `${i > 0 ? '  ' : ''}${typeof cell === 'string' ? text : cell.paint(text)}`;
    }
    out += `${line.trimEnd()}\n`;
  }
  return out;
}

const SPACES: string[] = [];

/** `n` spaces, each length made once. */
const spaces = (n: number): string => (SPACES[n] ??= ' '.repeat(n));

/** Cuts `s` to at most `max` columns, the last one an ellipsis; never inside a character or an emoji sequence. */
export function truncate(s: string, max: number): string {
  const text = drawn(s);
  if (widthOf(text) <= max) return text;
  if (NARROW_ONLY.test(text)) return max <= 0 ? '' : `${text.slice(0, max - 1)}\u2026`;
  let out = '';
  let used = 0;
  for (const { segment } of graphemes(text)) {
    const width = textWidth(segment);
    if (used + width > max - 1) break;
    out += segment;
    used += width;
  }
  return max <= 0 ? '' : `${out}\u2026`;
}

/** A shortTime's text without its year (`MM-DD HH:MM`), where a narrow terminal has no room for it; any other text as given. */
export function withoutYear(time: string): string {
  return /^\d{4}-\d\d-\d\d \d\d:\d\d$/.test(time) ? time.slice(5) : time;
}

/** 1234567 -> "1,234,567". */
export const count = groupedDigits;
