/**
 * The transcript viewer's model, apart from Ink: transcript items become
 * entries (folded and unfolded text), entries become screen rows for a width,
 * and search finds matches in unfolded text so a match inside a folded entry is
 * found too. Pure, so the layout is tested without a terminal.
 */
import { formatDuration } from '../durations.js';
import { wrapText } from '../text-width.js';
import { callLine, callSuffix, elidedLine, endLine, pendingLine, resultNotes, gapBefore, type TranscriptItem } from '../index.js';

export type Tone = 'user' | 'text' | 'thinking' | 'call' | 'output' | 'bad' | 'note' | 'blank';
export type Fold = 'thinking' | 'output' | 'call' | null;

export interface Entry {
  tone: Tone;
  /** What folds this entry, or null when it shows all there is. */
  fold: Fold;
  folded: string[];
  unfolded: string[];
  /** A blank row before it: the conversation changes sides here. */
  gap: boolean;
}

export interface Row {
  entry: number;
  /** The line of the entry's shown text this row belongs to (-1 for a gap). */
  line: number;
  text: string;
  tone: Tone;
}

export interface Position {
  entry: number;
  line: number;
}

const CLOSED = '\u25b8 ';
const OPEN = '\u25be ';

function plural(n: number, what: string): string {
  return `${n} ${what}${n === 1 ? '' : 's'}`;
}

/** The model's prose as lines for a width: its Markdown rendered, as the chat shows an answer (render/markdown.ts). */
export type Prose = (text: string, width: number) => string[];

/** Styling codes (SGR) a rendered line may carry: what search and highlighting look past. */
const SGR = /\u001b\[[0-9;]*m/g;

/** A line without its styling codes. */
export const unstyled = (line: string): string => (line.includes('\u001b') ? line.replace(SGR, '') : line);

function entryFor(item: TranscriptItem, width: number, prose?: Prose): Omit<Entry, 'gap'> {
  const hanging = (text: string, first: string, rest: string): string[] => text.split('\n').map((l, i) => (i === 0 ? first : rest) + l);
  const fixed = (tone: Tone, lines: string[]) => ({ tone, fold: null, folded: lines, unfolded: lines });
  switch (item.kind) {
    case 'prompt':
    case 'user':
      return fixed('user', hanging(item.text, '> ', '  '));
    case 'text':
      return fixed('text', prose !== undefined ? prose(item.text, width) : item.text.split('\n'));
    case 'provider':
      return fixed('thinking', [`[${item.providerKind}]`]);
    case 'pending':
      return fixed('note', [`\u2500\u2500 ${pendingLine(item)}`]);
    case 'elided':
      return fixed('note', [`\u2500\u2500 ${elidedLine(item)}`]);
    case 'model':
      return fixed('note', [`model call, ${formatDuration(item.took)}`]);
    case 'end':
      return fixed('note', hanging(endLine(item), '\u2500\u2500 ', '   '));
    case 'thinking': {
      if (item.text === '') return fixed('thinking', ['[thinking] (redacted)']);
      const lines = item.text.split('\n');
      return { tone: 'thinking', fold: 'thinking', folded: [`${CLOSED}thinking (${plural(lines.length, 'line')})`], unfolded: [`${OPEN}thinking`, ...lines.map((l) => `  ${l}`)] };
    }
    case 'call': {
      const suffix = `${callSuffix(item)}${item.note !== undefined || item.answered || !item.pending ? '' : ' (no result yet)'}`;
      const full = callLine(item.name, item.input, { suffix });
      const short = callLine(item.name, item.input, { width, suffix });
      return short === full ? fixed('call', [full]) : { tone: 'call', fold: 'call', folded: [short], unfolded: [full] };
    }
    case 'result': {
      const tone: Tone = item.isError ? 'bad' : 'output';
      const notes = resultNotes(item);
      const body = item.output === '' ? [] : item.output.replace(/\n$/, '').split('\n');
      if (body.length === 0) return fixed(tone, [`  ${notes.join(' ')}`]);
      const summary = [`output (${plural(body.length, 'line')})`, ...notes].join(' ');
      return { tone, fold: 'output', folded: [`  ${CLOSED}${summary}`], unfolded: [`  ${OPEN}${summary}`, ...body.map((l) => `    ${l}`)] };
    }
  }
}

/** The entries of `items` for a width; `prose` renders the model's text (as written without it). */
export function entriesFor(items: TranscriptItem[], width: number, prose?: Prose): Entry[] {
  return items.map((item, i) => ({ ...entryFor(item, width, prose), gap: gapBefore(items[i - 1], item) }));
}

/** Tabs to spaces at stops of 8, so a row's width is what it shows. */
export function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  let out = '';
  for (const ch of line) out += ch === '\t' ? ' '.repeat(8 - ([...out].length % 8)) : ch;
  return out;
}

export function shownLines(entry: Entry, open: ReadonlySet<number>, index: number): string[] {
  return entry.fold !== null && open.has(index) ? entry.unfolded : entry.folded;
}

const NARROW = /^[\u0020-\u007e]*$/;

/** A line as rows of at most `width` columns. */
function wrap(line: string, width: number): string[] {
  if (line.length <= width && NARROW.test(line)) return [line]; // most lines: no measuring needed
  return wrapText(expandTabs(line), Math.max(1, width), { hard: true, trim: false }).split('\n');
}

/** Every entry's shown lines, wrapped to `width`. */
export function layout(entries: Entry[], open: ReadonlySet<number>, width: number): Row[] {
  const rows: Row[] = [];
  entries.forEach((entry, i) => {
    if (entry.gap) rows.push({ entry: i, line: -1, text: '', tone: 'blank' });
    shownLines(entry, open, i).forEach((line, n) => {
      for (const text of wrap(line, width)) rows.push({ entry: i, line: n, text, tone: entry.tone });
    });
  });
  return rows;
}

/** The first row showing this position (or its entry). */
export function rowOf(rows: Row[], at: Position): number {
  const exact = rows.findIndex((r) => r.entry === at.entry && r.line === at.line);
  if (exact >= 0) return exact;
  const first = rows.findIndex((r) => r.entry === at.entry && r.line >= 0);
  return Math.max(0, first);
}

/** Every place `query` occurs, case-insensitively, in the unfolded text. */
export function matches(entries: Entry[], query: string): Position[] {
  const q = query.toLowerCase();
  if (q === '') return [];
  const out: Position[] = [];
  entries.forEach((e, entry) => e.unfolded.forEach((l, line) => unstyled(l).toLowerCase().includes(q) && out.push({ entry, line })));
  return out;
}

const before = (a: Position, b: Position): boolean => a.entry < b.entry || (a.entry === b.entry && a.line < b.line);

/** The next match after `from` (or the previous, backwards), wrapping around. */
export function nextMatch(found: Position[], from: Position, backwards: boolean): Position | null {
  if (found.length === 0) return null;
  if (backwards) return [...found].reverse().find((m) => before(m, from)) ?? found[found.length - 1]!;
  return found.find((m) => before(from, m)) ?? found[0]!;
}

/** Splits `text` around case-insensitive occurrences of `query`, for highlighting. */
export function splitMatches(text: string, query: string): { text: string; hit: boolean }[] {
  const lower = text.toLowerCase();
  // Lower-casing can change a string's length; such text is shown unmarked.
  if (query === '' || lower.length !== text.length) return [{ text, hit: false }];
  const q = query.toLowerCase();
  const parts: { text: string; hit: boolean }[] = [];
  let at = 0;
  for (let i = lower.indexOf(q); i >= 0; i = lower.indexOf(q, i + q.length)) {
    if (i > at) parts.push({ text: text.slice(at, i), hit: false });
    parts.push({ text: text.slice(i, i + q.length), hit: true });
    at = i + q.length;
  }
  if (at < text.length) parts.push({ text: text.slice(at), hit: false });
  return parts;
}
