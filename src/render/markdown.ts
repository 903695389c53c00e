/**
 * A model's Markdown as terminal lines: headings, emphasis, lists, block
 * quotes, tables, code blocks with their language and their lines as written,
 * links as their text and URL, images as links. Parsed by markdown-it
 * (createMarkdownParser: markup and entities are shown as written), rendered
 * here block by block, so that a stream can show the blocks that are finished
 * once and redraw only the one still being written (MarkdownStream).
 *
 * Text reaching a terminal is sanitized piece by piece, after markdown-it has
 * parsed it (it decodes an autolink's percent escapes: `%E2%80%AE` is a bidi
 * control once decoded); the theme's styling is applied to safe text only.
 */
import MarkdownItCallable, { type Env, type MarkdownIt, type Token } from 'markdown-it';
import { sanitize, sanitizeLine } from './sanitize.js';
import { textWidth, wrapText } from './text-width.js';

/** How the parts of a rendered answer are marked up: ANSI on a color terminal. */
export interface MarkdownTheme {
  strong(text: string): string;
  em(text: string): string;
  strike(text: string): string;
  /** Inline code and code blocks. */
  code(text: string): string;
  /** Headings, by level (1 to 6). */
  heading(text: string, level: number): string;
  /** A link's text. */
  link(text: string): string;
  /** Secondary marks: a link's URL, a code block's language, quote bars, rules. */
  faint(text: string): string;
}

const same = (text: string): string => text;

/** No markup at all: the layout alone (for tests and terminals without color). */
export const plainTheme: MarkdownTheme = { strong: same, em: same, strike: same, code: same, heading: same, link: same, faint: same };

export interface MarkdownOptions {
  /** Columns a paragraph wraps at (a code line is never wrapped). */
  width: number;
  theme: MarkdownTheme;
}

/** Links that may be links: the web and mail. Any other (javascript:, data:, file:, a relative path) stays text. */
const LINK = /^(?:https?:|mailto:)/i;

/**
 * A parser as every rendering of a model's Markdown uses it: CommonMark with
 * GFM tables and strikethrough; raw HTML and entities shown as written; a line
 * break kept where the model broke the line; only http(s) and mailto links.
 */
export function createMarkdownParser(): MarkdownIt {
  const md = new MarkdownItCallable('default', { html: false, breaks: true, linkify: false, typographer: false });
  md.disable('entity');
  md.validateLink = (url) => LINK.test(url.trim());
  return md;
}

let parser: MarkdownIt | undefined;

/** The terminal's parser (createMarkdownParser, made once). */
export function markdownParser(): MarkdownIt {
  parser ??= createMarkdownParser();
  return parser;
}

/** A block token with what it holds: its children blocks, or its inline content. */
interface Node {
  open: Token;
  children: Node[];
}

/** The flat token stream as a tree of blocks (an open token owns everything up to its close). */
function tree(tokens: readonly Token[]): Node[] {
  const root: Node[] = [];
  const stack: Node[] = [];
  for (const token of tokens) {
    if (token.nesting === -1) {
      stack.pop();
      continue;
    }
    const node: Node = { open: token, children: [] };
    (stack.length > 0 ? stack[stack.length - 1]!.children : root).push(node);
    if (token.nesting === 1) stack.push(node);
  }
  return root;
}

/** Expands tabs to the next multiple of 8 columns, so a code line's width is what it shows. */
function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  let out = '';
  for (const ch of line) out += ch === '\t' ? ' '.repeat(8 - (textWidth(out) % 8)) : ch;
  return out;
}

const wrap = (text: string, width: number): string[] => wrapText(text, Math.max(width, 8), { hard: true }).split('\n');

const attr = (token: Token, name: string): string => String(token.attrGet(name) ?? '');

function inline(tokens: readonly Token[] | null, theme: MarkdownTheme): string {
  let out = '';
  // Styled spans nest: each open pushes where its text starts.
  const open: { type: string; at: number; href?: string }[] = [];
  const close = (type: string, paint: (text: string, href: string | undefined) => string): void => {
    const span = open.pop();
    if (span === undefined || span.type !== type) return;
    out = out.slice(0, span.at) + paint(out.slice(span.at), span.href);
  };
  for (const t of tokens ?? []) {
    switch (t.type) {
      case 'text':
      case 'text_special':
        out += sanitizeLine(t.content);
        break;
      case 'softbreak':
      case 'hardbreak':
        out += '\n';
        break;
      case 'code_inline':
        out += theme.code(sanitizeLine(t.content));
        break;
      case 'strong_open':
      case 'em_open':
      case 's_open':
        open.push({ type: t.type, at: out.length });
        break;
      case 'strong_close':
        close('strong_open', (s) => theme.strong(s));
        break;
      case 'em_close':
        close('em_open', (s) => theme.em(s));
        break;
      case 's_close':
        close('s_open', (s) => theme.strike(s));
        break;
      case 'link_open':
        open.push({ type: t.type, at: out.length, href: sanitizeLine(attr(t, 'href')) });
        break;
      case 'link_close':
        close('link_open', (s, href) => linkText(s, href ?? '', theme));
        break;
      case 'image':
        out += `${theme.link(`[image: ${sanitizeLine(t.content)}]`)} ${theme.faint(`(${sanitizeLine(attr(t, 'src'))})`)}`;
        break;
      default:
        out += sanitizeLine(t.content);
    }
  }
  return out;
}

/** A link as its text and its URL; an autolink, whose text is its URL, once. */
function linkText(text: string, href: string, theme: MarkdownTheme): string {
  const plainText = text.replace(/\u001b\[[0-9;]*m/g, '');
  if (plainText === href || `mailto:${plainText}` === href) return theme.link(text);
  return `${theme.link(text)} ${theme.faint(`(${href})`)}`;
}

/** Prefixes the first line with `first` and the rest with `rest` (a list marker, a quote bar). */
function indent(lines: string[], first: string, rest: string): string[] {
  return lines.map((line, i) => (line === '' && i > 0 ? rest.trimEnd() : `${i === 0 ? first : rest}${line}`));
}

/** Blocks as lines, a blank line between two, none between the blocks of a tight list item. */
function blocks(nodes: readonly Node[], width: number, theme: MarkdownTheme, tight = false): string[] {
  const out: string[] = [];
  for (const node of nodes) {
    const lines = block(node, width, theme);
    if (lines.length === 0) continue;
    if (out.length > 0 && !tight) out.push('');
    out.push(...lines);
  }
  return out;
}

function block(node: Node, width: number, theme: MarkdownTheme): string[] {
  const { open } = node;
  switch (open.type) {
    case 'paragraph_open':
      return node.children.flatMap((c) => wrap(inline(c.open.children, theme), width));
    case 'heading_open': {
      const level = Number(open.tag.slice(1)) || 1;
      return node.children.flatMap((c) => wrap(theme.heading(inline(c.open.children, theme), level), width));
    }
    case 'inline':
      return wrap(inline(open.children, theme), width);
    case 'blockquote_open':
      return indent(blocks(node.children, width - 2, theme), theme.faint('\u2502 '), theme.faint('\u2502 '));
    case 'bullet_list_open':
    case 'ordered_list_open':
      return list(node, width, theme);
    case 'fence':
    case 'code_block':
      return code(open, theme);
    case 'hr':
      return [theme.faint('\u2500'.repeat(Math.max(3, Math.min(width, 80))))];
    case 'table_open':
      return table(node, theme);
    default:
      // html_block and anything a later markdown-it adds: its text as written.
      return sanitize(open.content).replace(/\n$/, '').split('\n');
  }
}

function list(node: Node, width: number, theme: MarkdownTheme): string[] {
  const ordered = node.open.type === 'ordered_list_open';
  const start = ordered ? Number(attr(node.open, 'start') || '1') : 1;
  const items = node.children;
  const markers = items.map((_, i) => (ordered ? `${start + i}.` : '\u2022'));
  const markerWidth = Math.max(...markers.map((m) => textWidth(m))) + 1;
  // A loose list (a blank line between items in the source) keeps one between them.
  const tight = node.children.every((item) => item.children.every((c) => c.open.type !== 'paragraph_open' || c.open.hidden));
  const out: string[] = [];
  items.forEach((item, i) => {
    const body = blocks(item.children, width - markerWidth, theme, tight);
    if (body.length === 0) body.push('');
    if (i > 0 && !tight) out.push('');
    const marker = markers[i]!.padEnd(markerWidth);
    out.push(...indent(body, ordered ? marker : theme.faint(marker), ' '.repeat(markerWidth)));
  });
  return out;
}

function code(token: Token, theme: MarkdownTheme): string[] {
  const language = sanitizeLine(token.info.trim().split(/\s+/, 1)[0] ?? '');
  const lines = sanitize(token.content).replace(/\n$/, '').split('\n');
  return [...(language !== '' ? [theme.faint(language)] : []), ...lines.map((l) => `  ${theme.code(expandTabs(l))}`)];
}

function table(node: Node, theme: MarkdownTheme): string[] {
  const rows: { cells: string[]; header: boolean }[] = [];
  const aligns: string[] = [];
  const walk = (n: Node, header: boolean): void => {
    if (n.open.type === 'tr_open') {
      const cells = n.children.map((cell, i) => {
        if (header) aligns[i] = /text-align:(\w+)/.exec(attr(cell.open, 'style'))?.[1] ?? 'left';
        const text = cell.children.map((c) => inline(c.open.children, theme)).join('');
        return header ? theme.strong(text) : text;
      });
      rows.push({ cells, header });
      return;
    }
    for (const c of n.children) walk(c, header || n.open.type === 'thead_open');
  };
  walk(node, false);
  const widths: number[] = [];
  for (const row of rows) row.cells.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, textWidth(c))));
  const pad = (text: string, i: number): string => {
    const room = widths[i]! - textWidth(text);
    if (aligns[i] === 'right') return ' '.repeat(room) + text;
    if (aligns[i] === 'center') return ' '.repeat(Math.floor(room / 2)) + text + ' '.repeat(Math.ceil(room / 2));
    return text + ' '.repeat(room);
  };
  const out: string[] = [];
  for (const row of rows) {
    out.push(widths.map((_, i) => pad(row.cells[i] ?? '', i)).join(theme.faint(' \u2502 ')).trimEnd());
    if (row.header) out.push(theme.faint(widths.map((w) => '\u2500'.repeat(w)).join('\u2500\u253c\u2500')));
  }
  return out;
}

/** A top-level block as lines, the source line it starts on, and what it is (markdown-it's token type). */
interface Rendered {
  lines: string[];
  line: number;
  type: string;
}

function renderBlocks(text: string, options: MarkdownOptions, env: Env = {}): Rendered[] {
  const nodes = tree(markdownParser().parse(text, env));
  const out: Rendered[] = [];
  for (const node of nodes) {
    const lines = block(node, options.width, options.theme);
    if (lines.length > 0) out.push({ lines, line: node.open.map?.[0] ?? 0, type: node.open.type });
  }
  return out;
}

/** The top-level blocks of `text` as lines each, in order. */
export function markdownBlocks(text: string, options: MarkdownOptions): string[][] {
  return renderBlocks(text, options).map((b) => b.lines);
}

/** `text` rendered whole: its blocks one blank line apart, no final newline. */
export function renderMarkdown(text: string, options: MarkdownOptions): string {
  return markdownBlocks(text, options)
    .map((lines) => lines.join('\n'))
    .join('\n\n');
}

/** Where line `n` of `text` starts. */
function lineStart(text: string, n: number): number {
  let at = 0;
  for (let i = 0; i < n && at >= 0; i++) at = text.indexOf('\n', at) + 1 || -1;
  return at < 0 ? text.length : at;
}

/**
 * Markdown arriving in pieces. Every block but the last is finished (what is
 * appended can only change the last one; but for a list, which a line still
 * being written after it may join): `update` returns the newly finished
 * blocks as text to print for good, and the last block as the lines to show
 * in its place until it is finished too. What is printed, with end()'s, is
 * renderMarkdown of the whole text and a final newline, however it was cut
 * (but for a link reference defined after its use, which applies from where it
 * is defined on). Only the unfinished part is parsed again.
 */
export class MarkdownStream {
  private text = '';
  /** Where the first unfinished block starts in the text. */
  private from = 0;
  private printed = 0;
  /** The references defined in the finished blocks. */
  private env: Env = {};

  constructor(private readonly options: MarkdownOptions) {}

  append(piece: string): void {
    this.text += piece;
  }

  /** The blocks finished since the last update, and the lines of the one still open. */
  update(): { finished: string; current: string[] } {
    const { blocks, finished } = this.finish(false);
    const last = blocks[blocks.length - 1];
    const current = last === undefined ? [] : this.printed > 0 ? ['', ...last.lines] : last.lines;
    return { finished, current };
  }

  /** The blocks not yet printed, as text to print, at the end of the text. */
  end(): string {
    return this.finish(true).finished;
  }

  /** Everything appended so far. */
  get source(): string {
    return this.text;
  }

  private finish(all: boolean): { blocks: Rendered[]; finished: string } {
    const rest = this.text.slice(this.from);
    const env: Env = { references: { ...this.env.references } };
    const blocks = renderBlocks(rest, this.options, env);
    let upTo = all ? blocks.length : blocks.length - 1;
    // A list is not finished by a block whose first line is still being written: `2` may become `2) more`, an item of it.
    const before = blocks[upTo - 1];
    const last = blocks[upTo];
    if (!all && last !== undefined && before !== undefined && /_list_open$/.test(before.type) && !rest.includes('\n', lineStart(rest, last.line))) upTo--;
    let finished = '';
    for (let i = 0; i < upTo; i++) finished += `${this.printed++ > 0 ? '\n' : ''}${blocks[i]!.lines.join('\n')}\n`;
    if (upTo > 0) {
      const next = blocks[upTo];
      const cut = next === undefined ? rest.length : lineStart(rest, next.line);
      // The references the finished part defines, for the parses of what follows.
      this.env = { references: { ...this.env.references, ...markdownReferences(rest.slice(0, cut)) } };
      this.from += cut;
    }
    return { blocks: blocks.slice(upTo), finished };
  }
}

function markdownReferences(text: string): Env['references'] {
  const env: Env = {};
  markdownParser().parse(text, env);
  return env.references ?? {};
}
