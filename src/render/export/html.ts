/**
 * A run as one self-contained HTML page: no script, no request of any kind,
 * tool output and thinking collapsible (<details>), light and dark through
 * prefers-color-scheme. Every string from the journal passes through escapeHtml
 * into text content (never into a tag, attribute name or URL), so a hostile
 * journal shows as the text it is. A Content-Security-Policy that allows
 * nothing but the page's own stylesheet is the second line of defence.
 *
 * The model's prose is rendered as the Markdown it is written in, through
 * createMarkdownParser (raw HTML and entities shown as written, only http(s)
 * and mailto links), with every piece of text sanitized and escaped, and an
 * image shown as a link to it, so that the page still requests nothing.
 */
import { createHash } from 'node:crypto';
import type { MarkdownIt, Token } from 'markdown-it';
import type { RunState } from '../../core/index.js';
import { callLine } from '../calls.js';
import { formatDuration } from '../durations.js';
import { callStatusText, remoteText } from '../lines.js';
import { createMarkdownParser } from '../markdown.js';
import { resultNotes } from '../results.js';
import { reveal, sanitize, sanitizeLine } from '../sanitize.js';
import { shownFileName } from '../file-changes.js';
import type { TranscriptItem } from '../transcript.js';
import { transcriptSections, type Section } from './sections.js';
import { changeCounts, runSummary, sectionOptions, type ExportOptions, type WorkspaceChanges } from './summary.js';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text safe anywhere in an HTML element's content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ENTITIES[ch]!);
}

const STYLE = `
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --code: #f6f8fa;
  --user: #ddf4ff; --user-line: #54aeff; --bad: #cf222e; --accent: #0969da;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --code: #151b23;
    --user: #0c2d6b; --user-line: #1f6feb; --bad: #ff7b72; --accent: #4493f8;
  }
}
* { box-sizing: border-box; }
body {
  margin: 0 auto; max-width: 60rem; padding: 1.5rem;
  background: var(--bg); color: var(--fg);
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif;
}
h1 { font-size: 1.5rem; margin: 0 0 .75rem; }
h2 { font-size: 1rem; color: var(--muted); margin: 1.5rem 0 .5rem; text-transform: uppercase; letter-spacing: .05em; }
code, pre { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .875rem; }
pre, .text { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
pre { background: var(--code); border: 1px solid var(--line); border-radius: 6px; padding: .5rem .75rem; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .125rem 1rem; margin: 0; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
.user .text { background: var(--user); border-left: 4px solid var(--user-line); border-radius: 6px; padding: .5rem .75rem; }
.item { margin: .5rem 0; }
.label { font-weight: 600; }
.muted, .notes { color: var(--muted); }
.bad, .bad .label, .bad .notes { color: var(--bad); }
details > summary { cursor: pointer; }
details > pre, details > .text { margin-top: .25rem; }
.thinking .text { color: var(--muted); font-style: italic; border-left: 4px solid var(--line); padding-left: .75rem; }
.marker { border-top: 1px solid var(--line); margin: 1.5rem 0 .5rem; padding-top: .5rem; font-weight: 600; }
.md { overflow-wrap: anywhere; }
.md > :first-child { margin-top: 0; }
.md > :last-child { margin-bottom: 0; }
.md p, .md ul, .md ol, .md blockquote, .md pre, .md table { margin: .5rem 0; }
.md h1, .md h2, .md h3, .md h4, .md h5, .md h6 { font-size: 1rem; font-weight: 600; color: inherit; text-transform: none; letter-spacing: normal; margin: .75rem 0 .25rem; }
.md h1 { font-size: 1.25rem; border-bottom: 1px solid var(--line); padding-bottom: .15rem; }
.md h2 { font-size: 1.125rem; }
.md blockquote { border-left: 4px solid var(--line); padding-left: .75rem; margin-left: 0; color: var(--muted); }
.md code { background: var(--code); border-radius: 4px; padding: .1em .3em; }
.md pre { white-space: pre; overflow-x: auto; }
.md pre code { background: none; padding: 0; }
.md .lang { color: var(--muted); font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .75rem; margin: .5rem 0 -.375rem; }
.md table { border-collapse: collapse; }
.md th, .md td { border: 1px solid var(--line); padding: .25rem .5rem; }
.md th { text-align: left; }
.md .align-left { text-align: left; }
.md .align-center { text-align: center; }
.md .align-right { text-align: right; font-variant-numeric: tabular-nums; }
.md a { color: var(--accent); }
`;

/** The policy allows the stylesheet above by its hash, and nothing else: no script, image, font, frame or request. */
const CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const el = (tag: string, cls: string, inner: string): string => `<${tag}${cls === '' ? '' : ` class="${cls}"`}>${inner}</${tag}>`;
/** Journal text as element content. Items come sanitized already; sanitizing is idempotent, so this only makes sure. */
const text = (t: string): string => escapeHtml(sanitize(t));

/** What a link on the page tells the site it leads to: nothing. */
const LINK_REL = 'noopener noreferrer nofollow';

/** Sanitizes the text markdown-it made of the source (an autolink's text is percent-decoded, and may decode to a control). */
function sanitizeTokens(tokens: Token[]): void {
  for (const token of tokens) {
    token.content = sanitize(token.content);
    if (token.children !== null) sanitizeTokens(token.children);
  }
}

/**
 * A table column's alignment as a class (`align-right`), where markdown-it
 * writes a style attribute: a page whose policy allows no inline style (this
 * one, the web view) would refuse it, and show the column unaligned.
 */
function alignByClass(tokens: Token[]): void {
  for (const token of tokens) {
    if (token.type !== 'th_open' && token.type !== 'td_open') continue;
    const align = /^text-align:(left|center|right)$/.exec(String(token.attrGet('style') ?? ''))?.[1];
    if (token.attrs !== null) token.attrs = token.attrs.filter(([name]) => name !== 'style');
    if (align !== undefined) token.attrJoin('class', `align-${align}`);
  }
}

let pageMarkdown: MarkdownIt | undefined;

function markdown(): MarkdownIt {
  if (pageMarkdown !== undefined) return pageMarkdown;
  const md = createMarkdownParser();
  md.core.ruler.push('sanitize', (state) => {
    sanitizeTokens(state.tokens);
    alignByClass(state.tokens);
  });
  md.renderer.rules.image = (tokens, idx, options, env, self) => {
    const image = tokens[idx]!;
    const alt = self.renderInlineAsText(image.children ?? [], options, env);
    return `<a href="${escapeHtml(String(image.attrGet('src') ?? ''))}" rel="${LINK_REL}">${escapeHtml(`[image: ${alt}]`)}</a>`;
  };
  const fence = md.renderer.rules.fence!;
  // A code block's language, as the terminal shows it, above the block.
  md.renderer.rules.fence = (tokens, idx, options, env, self) => {
    const language = sanitizeLine(tokens[idx]!.info.trim().split(/\s+/, 1)[0] ?? '');
    const block = fence(tokens, idx, options, env, self);
    return language === '' ? block : `<p class="lang">${escapeHtml(language)}</p>${block}`;
  };
  md.renderer.rules.link_open = (tokens, idx, options, _env, self) => {
    tokens[idx]!.attrSet('rel', LINK_REL);
    return self.renderToken(tokens, idx, options);
  };
  pageMarkdown = md;
  return md;
}

/** The model's prose as HTML: its Markdown rendered, everything in it escaped (the web view shows it so too). */
export const proseHtml = (t: string): string => markdown().render(sanitize(t)).trimEnd();
const prose = proseHtml;

/** A first line of output to show in a collapsed result's summary. */
function preview(output: string): string {
  const first = output.split('\n', 1)[0]!;
  const chars = [...first];
  return chars.length > 80 ? `${chars.slice(0, 79).join('')}\u2026` : first;
}

function lineCount(output: string): number {
  return output === '' ? 0 : output.replace(/\n$/, '').split('\n').length;
}

function itemHtml(item: TranscriptItem): string {
  switch (item.kind) {
    case 'prompt':
    case 'user':
      return el('div', 'item text', text(item.text));
    case 'text':
      return el('div', 'item md', prose(item.text));
    case 'thinking':
      if (item.text === '') return el('div', 'item thinking muted', 'Thinking (redacted)');
      return el('details', 'item thinking', `${el('summary', 'label', 'Thinking')}${el('div', 'text', text(item.text))}`);
    case 'provider':
      return el('div', 'item muted', `Provider block ${el('code', '', text(item.providerKind))}`);
    case 'call': {
      const remote = item.remote === undefined ? '' : ` ${el('span', 'notes', text(remoteText(item.remote)))}`;
      const took = item.took === undefined ? '' : ` ${el('span', 'muted took', `\u00b7 ${formatDuration(item.took)}`)}`;
      const head = el('div', '', `${el('span', 'label', 'Tool call')} ${el('code', 'muted', text(item.id))}${remote}${took}`);
      const note = callStatusText(item);
      const waiting = note === undefined ? '' : el('div', 'notes', `(${note})`);
      return el('div', 'item call', `${head}${el('pre', '', text(callLine(item.name, item.input)))}${waiting}`);
    }
    case 'result': {
      const notes = resultNotes(item);
      const lines = lineCount(item.output);
      const summary = [
        el('span', 'label', item.isError ? 'Error result' : 'Result'),
        el('code', 'muted', text(item.id)),
        ...(notes.length > 0 ? [el('span', 'notes', text(notes.join(' ')))] : []),
        // A count of the output, then where it starts: "8 lines of output: agent…".
        ...(lines > 0 ? [el('span', 'muted', `\u00b7 ${lines} line${lines === 1 ? '' : 's'} of output:`), el('code', 'muted', text(preview(item.output)))] : []),
      ].join(' ');
      const command = item.command === undefined ? '' : el('div', 'muted', `command ${el('code', '', text(JSON.stringify(item.command)))}`);
      const cls = `item result${item.isError ? ' bad' : ''}`;
      if (item.output === '') return el('div', cls, `${summary}${command}`);
      return el('details', cls, `${el('summary', '', summary)}${command}${el('pre', '', text(item.output))}`);
    }
    case 'pending':
    case 'end':
      return ''; // shown by their section
    case 'elided':
      return ''; // an export is never shortened
    case 'model':
      return el('div', 'item muted took', `Model call \u00b7 ${formatDuration(item.took)}`);
  }
}

function markerHtml(section: Extract<Section, { kind: 'marker' }>): string {
  const { item } = section;
  const bad = item.kind === 'end' && item.reason === 'error';
  const message = item.kind === 'end' && item.message !== undefined ? el('pre', '', text(item.message)) : '';
  return `${el('div', bad ? 'marker bad' : 'marker', text(section.title))}${message}`;
}

function sectionHtml(section: Section): string {
  if (section.kind === 'marker') return markerHtml(section);
  return el('section', section.side, `${el('h2', '', text(section.heading))}\n${section.items.map(itemHtml).join('\n')}`);
}

export function exportHtml(state: RunState, options: ExportOptions = {}): string {
  return htmlPage(`logbook run ${text(sanitizeLine(state.run_id))}`, [runHtml(state, options)]);
}

/**
 * Several runs on one page, in the order given (a conversation across the runs
 * it went on in, oldest first), each as exportHtml shows it alone.
 */
export function exportHtmlRuns(runs: readonly { state: RunState; options?: ExportOptions }[]): string {
  const last = runs.at(-1)?.state.run_id ?? '';
  return htmlPage(`logbook conversation of run ${text(sanitizeLine(last))}`, runs.map((r) => el('article', 'run', runHtml(r.state, r.options ?? {}))));
}

/** One run: its header (id and summary) and its transcript. */
function runHtml(state: RunState, options: ExportOptions): string {
  const summary = runSummary(state, options)
    .map((f) => `${el('dt', '', text(f.label))}${el('dd', '', f.literal ? el('code', '', text(f.value)) : text(f.value))}`)
    .join('');
  return [
    `<header>${el('h1', '', `Run ${el('code', '', text(sanitizeLine(state.run_id)))}`)}${el('dl', '', summary)}</header>`,
    '<main>',
    ...transcriptSections(state, sectionOptions(options)).map(sectionHtml),
    ...changesHtml(options.changes ?? []),
    '</main>',
  ].join('\n');
}

/** The run's workspace changes: a heading per span, its files, its diff as preformatted text; all escaped. */
function changesHtml(changes: readonly WorkspaceChanges[]): string[] {
  if (changes.length === 0) return [];
  const span = (c: WorkspaceChanges): string =>
    [
      el('h3', '', text(sanitizeLine(c.heading))),
      el('ul', '', c.files.map((f) => el('li', '', `${el('code', '', text(shownFileName(f.path)))}: ${text(changeCounts(f))}`)).join('')),
      ...(c.diff !== undefined && c.diff !== '' ? [el('pre', 'diff', text(reveal(c.diff)))] : []),
    ].join('\n');
  return [el('section', 'workspace', `${el('h2', '', 'Workspace changes')}\n${changes.map(span).join('\n')}`)];
}

/** The page around `body`: no script, nothing fetched (its Content-Security-Policy), light and dark. */
function htmlPage(title: string, body: readonly string[]): string {
  return [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${escapeHtml(CSP)}">`,
    '<meta name="referrer" content="no-referrer">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light dark">',
    `<title>${title}</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    ...body,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
