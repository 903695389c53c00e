/**
 * What an output stream is: a terminal or not, how wide, and whether it gets
 * color. Color needs a terminal and is off with NO_COLOR (any non-empty value),
 * `--no-color` or TERM=dumb.
 */
import type { Prose } from '../render/dump.js';
import type { MarkdownTheme } from '../render/markdown.js';
import type { Style } from '../render/style.js';
import { plain } from '../render/style.js';

export interface Terminal {
  isTTY: boolean;
  color: boolean;
  /** Columns when a terminal, else undefined (piped output is never cut to fit). */
  columns: number | undefined;
  style: Style;
  /** Wraps text in an SGR code when color is on. */
  paint(code: string, text: string): string;
}

export interface TerminalOptions {
  /** False from --no-color. */
  color?: boolean;
  /** NO_COLOR and TERM are read from here. */
  env: Readonly<Record<string, string | undefined>>;
}

export function colorWanted(stream: { isTTY?: boolean }, options: TerminalOptions): boolean {
  const env = options.env;
  return stream.isTTY === true && options.color !== false && !env.NO_COLOR && env.TERM !== 'dumb';
}

const sgr = (code: string, text: string): string => (text === '' ? text : `\u001b[${code}m${text}\u001b[0m`);

export const ansiStyle: Style = {
  strong: (t) => sgr('1', t),
  faint: (t) => sgr('2', t),
  call: (t) => sgr('36', t),
  bad: (t) => sgr('31', t),
  note: (t) => sgr('33', t),
};

export function terminalFor(stream: { isTTY?: boolean; columns?: number }, options: TerminalOptions): Terminal {
  const isTTY = stream.isTTY === true;
  const color = colorWanted(stream, options);
  return {
    isTTY,
    color,
    columns: isTTY && stream.columns ? stream.columns : undefined,
    style: color ? ansiStyle : plain,
    paint: (code, text) => (color ? sgr(code, text) : text),
  };
}

const span = (open: string, close: string) => (text: string) => (text === '' ? text : `\u001b[${open}m${text}\u001b[${close}m`);

/** The Markdown theme on a color terminal. */
export const ansiMarkdown: MarkdownTheme = {
  strong: span('1', '22'),
  em: span('3', '23'),
  strike: span('9', '29'),
  code: span('33', '39'),
  heading: (text, level) => (level === 1 ? span('1;4', '22;24')(text) : span('1', '22')(text)),
  link: span('34', '39'),
  faint: span('2', '22'),
};

/**
 * How a journaled answer is laid out on `term`, as the live chat shows it as it
 * streams: Markdown rendered on a color terminal (the renderer loads only then),
 * as written when piped, without color or with --plain (`plainText`).
 */
export async function terminalProse(term: Terminal, plainText = false): Promise<Prose | undefined> {
  if (!term.color || plainText || term.columns === undefined) return undefined;
  const { renderMarkdown } = await import('../render/markdown.js');
  const options = { width: term.columns - 1, theme: ansiMarkdown };
  return (text) => renderMarkdown(text, options).split('\n');
}
