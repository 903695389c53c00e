/**
 * A run as a Markdown document. Journal text reaches it in one of three forms,
 * and each is made so that nothing it holds can break out:
 *
 * - fenced code blocks (thinking, tool calls, results, the end message), each
 *   fence longer than any backtick run inside it, so it closes only where it
 *   was meant to;
 * - code spans and backslash-escaped inline text (names, ids, notes), so no
 *   character of theirs is read as Markdown or HTML;
 * - quote blocks holding the prompt, the operator's turns and the model's
 *   prose, kept as the Markdown they were written in. A quote is a container:
 *   an unclosed fence or raw HTML block inside one ends where the quote does,
 *   so it cannot swallow the rest of the document. Any HTML the text holds is
 *   left as written; the HTML export is the form safe to open anywhere. An
 *   image the text holds is made a link (`![x](url)` becomes `\![x](url)`, a
 *   `!` and a link), so that no renderer fetches what a model chose to fetch.
 *
 * All text comes sanitized from transcriptItems: no control characters at all.
 */
import MarkdownItCallable, { type MarkdownIt, type Token } from 'markdown-it';
import type { RunState } from '../../core/index.js';
import { callLine } from '../calls.js';
import { formatDuration } from '../durations.js';
import { callStatusText, remoteText } from '../lines.js';
import { resultNotes } from '../results.js';
import { reveal, sanitize, sanitizeLine } from '../sanitize.js';
import { shownFileName } from '../file-changes.js';
import type { TranscriptItem } from '../transcript.js';
import { transcriptSections, type Section } from './sections.js';
import { changeCounts, runSummary, sectionOptions, type ExportOptions, type WorkspaceChanges } from './summary.js';

/** The longest run of backticks in `text`. */
function longestBackticks(text: string): number {
  let longest = 0;
  for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return longest;
}

/** A fenced code block that holds `text` whatever it contains. */
export function fence(raw: string, info = 'text'): string {
  const text = sanitize(raw);
  const marks = '`'.repeat(Math.max(3, longestBackticks(text) + 1));
  const body = text === '' ? '' : text.endsWith('\n') ? text : `${text}\n`;
  return `${marks}${info}\n${body}${marks}`;
}

/** An inline code span showing one line of text exactly. */
export function codeSpan(text: string): string {
  const line = sanitizeLine(text);
  if (line === '') return '*(empty)*';
  const marks = '`'.repeat(longestBackticks(line) + 1);
  // A span's content loses one space at each end when it has one at both: pad
  // when it starts or ends with a backtick or a space, so what shows is the text.
  const pad = /^[` ]|[` ]$/.test(line) && line.trim() !== '' ? ' ' : '';
  return `${marks}${pad}${line}${pad}${marks}`;
}

/**
 * One line of inline text shown literally: every character that could start
 * emphasis, code, a link, an image, raw HTML, an entity, strikethrough or a
 * table cell is backslash-escaped. Inline text never starts a line here, so
 * line-start markers (`#`, `-`, `1.`) need nothing.
 */
export function inlineText(text: string): string {
  return sanitizeLine(text).replace(/[\\`*_[\]<>&~|!]/g, '\\$&');
}


let reader: MarkdownIt | undefined;

/** Markdown as a reader's renderer parses it: CommonMark and GFM tables, raw HTML off (as a sanitizing renderer has it). */
function readerParser(): MarkdownIt {
  reader ??= new MarkdownItCallable('default', { html: false });
  return reader;
}

const hasImage = (tokens: readonly Token[]): boolean => tokens.some((t) => t.type === 'image' || (t.children !== null && hasImage(t.children)));

/** An image's `![`, unless its `!` is escaped already (an odd run of backslashes before it). */
const IMAGE_START = /(^|[^\\])((?:\\\\)*)!\[/g;

/**
 * The text with every image made a link: each `![` outside a code block
 * gets its `!` escaped. Checked by parsing the result: text that would still
 * hold an image (no case is known) is shown as a code block instead.
 */
export function withoutImages(text: string): string {
  const md = readerParser();
  const tokens = md.parse(text, {});
  if (!hasImage(tokens)) return text;
  const code = new Set<number>();
  for (const t of tokens) {
    if ((t.type === 'fence' || t.type === 'code_block') && t.map !== null) for (let i = t.map[0]; i < t.map[1]; i++) code.add(i);
  }
  const out = text
    .split('\n')
    .map((line, i) => (code.has(i) ? line : line.replace(IMAGE_START, '$1$2\\![')))
    .join('\n');
  return hasImage(md.parse(out, {})) ? fence(text) : out;
}

/** Text kept as Markdown inside a quote block, its images made links. */
function quote(text: string): string {
  const trimmed = withoutImages(sanitize(text).replace(/\n+$/, ''));
  if (trimmed.trim() === '') return '> *(empty)*';
  return trimmed
    .split('\n')
    .map((line) => (line === '' ? '>' : `> ${line}`))
    .join('\n');
}

const label = (text: string, rest = ''): string => `**${text}**${rest === '' ? '' : ` ${rest}`}`;

function itemBlocks(item: TranscriptItem): string[] {
  switch (item.kind) {
    case 'prompt':
    case 'user':
    case 'text':
      return [quote(item.text)];
    case 'thinking':
      return item.text === '' ? [label('Thinking', '*(redacted)*')] : [label('Thinking'), fence(item.text)];
    case 'provider':
      return [label('Provider block', codeSpan(item.providerKind))];
    case 'call': {
      const took = item.took === undefined ? '' : ` \u00b7 ${formatDuration(item.took)}`;
      const blocks = [label('Tool call', `${codeSpan(item.id)}${item.remote !== undefined ? ` *${inlineText(remoteText(item.remote))}*` : ''}${took}`), fence(callLine(item.name, item.input))];
      const note = callStatusText(item);
      if (note !== undefined) blocks.push(`*(${note})*`);
      return blocks;
    }
    case 'result': {
      const head = [codeSpan(item.id)];
      if (item.command !== undefined) head.push(codeSpan(JSON.stringify(item.command)));
      const notes = resultNotes(item);
      if (notes.length > 0) head.push(`*${inlineText(notes.join(' '))}*`);
      const blocks = [label(item.isError ? 'Error result' : 'Result', head.join(' \u00b7 '))];
      if (item.output !== '') blocks.push(fence(item.output));
      return blocks;
    }
    case 'pending':
    case 'end':
      return []; // shown by their section
    case 'elided':
      return []; // an export is never shortened
    case 'model':
      return [`*Model call \u00b7 ${formatDuration(item.took)}*`];
  }
}

function sectionBlocks(section: Section): string[] {
  if (section.kind === 'marker') {
    const { item } = section;
    const message = item.kind === 'end' && item.message !== undefined ? [fence(item.message)] : [];
    // How the run ended is its status, shown as the summary shows it: as code, never backslash-escaped.
    return ['---', item.kind === 'end' ? label(`Run ${codeSpan(item.reason)}`) : label(inlineText(section.title)), ...message];
  }
  return [`## ${section.heading}`, ...section.items.flatMap(itemBlocks)];
}

export function exportMarkdown(state: RunState, options: ExportOptions = {}): string {
  const summary = runSummary(state, options).map(
    (f) => `- ${f.label}: ${f.literal ? codeSpan(f.value) : inlineText(f.value)}`,
  );
  const blocks = [
    `# Run ${codeSpan(state.run_id)}`,
    summary.join('\n'),
    ...transcriptSections(state, sectionOptions(options)).flatMap(sectionBlocks),
    ...changesBlocks(options.changes ?? []),
  ];
  return `${blocks.join('\n\n')}\n`;
}

/** The run's workspace changes: a heading per span, its files as code, its diff fenced. */
function changesBlocks(changes: readonly WorkspaceChanges[]): string[] {
  if (changes.length === 0) return [];
  return [
    '## Workspace changes',
    ...changes.flatMap((c) => [
      `### ${inlineText(c.heading)}`,
      c.files.map((f) => `- ${codeSpan(shownFileName(f.path))}: ${inlineText(changeCounts(f))}`).join('\n'),
      ...(c.diff !== undefined && c.diff !== '' ? [fence(reveal(c.diff), 'diff')] : []),
    ]),
  ];
}

/** Several runs in one document, in the order given (a conversation across its runs, oldest first), each as exportMarkdown shows it alone. */
export function exportMarkdownRuns(runs: readonly { state: RunState; options?: ExportOptions }[]): string {
  return runs.map((r) => exportMarkdown(r.state, r.options ?? {})).join('\n---\n\n');
}
