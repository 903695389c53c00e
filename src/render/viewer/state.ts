/**
 * What a key press does to the viewer: a pure reducer over the view state, so
 * Ink only reads keys and draws. The cursor is a row; a change of folding keeps
 * it on the same entry line.
 */
import { layout, matches, nextMatch, rowOf, type Entry, type Fold, type Position, type Row } from './model.js';

export interface ViewState {
  /** Entries shown unfolded. */
  open: ReadonlySet<number>;
  cursor: number;
  top: number;
  /** Typing a search after `/`. */
  searching: boolean;
  input: string;
  /** The last search, highlighted and repeated by n/N. */
  query: string;
  /** A one-line status ("no match"). */
  message: string;
  quit: boolean;
}

export interface Frame {
  entries: Entry[];
  width: number;
  /** Rows available for the transcript. */
  height: number;
}

/** The keys the viewer reads, as Ink reports them. */
export interface Keys {
  upArrow?: boolean;
  downArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  home?: boolean;
  end?: boolean;
  return?: boolean;
  escape?: boolean;
  backspace?: boolean;
  delete?: boolean;
  ctrl?: boolean;
}

export function initialState(entries: Entry[], unfold: Fold[] = []): ViewState {
  const open = new Set<number>();
  entries.forEach((e, i) => e.fold !== null && unfold.includes(e.fold) && open.add(i));
  return { open, cursor: 0, top: 0, searching: false, input: '', query: '', message: '', quit: false };
}

/** Layouts by folding state: keys that only move reuse the rows (a long run has many). */
const layouts = new WeakMap<ReadonlySet<number>, { entries: Entry[]; width: number; rows: Row[] }>();

export function rowsFor(s: ViewState, f: Frame): Row[] {
  const cached = layouts.get(s.open);
  if (cached !== undefined && cached.entries === f.entries && cached.width === f.width) return cached.rows;
  const rows = layout(f.entries, s.open, f.width);
  layouts.set(s.open, { entries: f.entries, width: f.width, rows });
  return rows;
}

/** Keeps the cursor on a row and in view, and the view within the rows. */
function settle(s: ViewState, rows: Row[], f: Frame, center = false): ViewState {
  const cursor = Math.min(Math.max(0, s.cursor), Math.max(0, rows.length - 1));
  let top = s.top;
  if (center && (cursor < top || cursor >= top + f.height)) top = cursor - Math.floor(f.height / 3);
  if (cursor < top) top = cursor;
  if (cursor >= top + f.height) top = cursor - f.height + 1;
  top = Math.min(Math.max(0, top), Math.max(0, rows.length - f.height));
  return { ...s, cursor, top };
}

function positionAt(rows: Row[], cursor: number): Position {
  const r = rows[cursor];
  return r === undefined ? { entry: 0, line: 0 } : { entry: r.entry, line: Math.max(0, r.line) };
}

/** Applies a new folding, keeping the cursor on the entry line it was on. */
function refold(s: ViewState, f: Frame, open: Set<number>, message = ''): ViewState {
  const at = positionAt(rowsFor(s, f), s.cursor);
  const next = { ...s, open, message };
  const rows = rowsFor(next, f);
  const line = open.has(at.entry) === s.open.has(at.entry) ? at.line : 0;
  return settle({ ...next, cursor: rowOf(rows, { entry: at.entry, line }) }, rows, f);
}

/** Unfolds every entry of a kind, or folds them all when all are open. */
function toggleAll(s: ViewState, f: Frame, fold: Fold): ViewState {
  const of = f.entries.flatMap((e, i) => (e.fold === fold ? [i] : []));
  if (of.length === 0) return { ...s, message: `no ${fold === 'output' ? 'tool output' : fold} to unfold` };
  const allOpen = of.every((i) => s.open.has(i));
  const open = new Set(s.open);
  for (const i of of) (allOpen ? open.delete(i) : open.add(i));
  return refold(s, f, open);
}

function jump(s: ViewState, f: Frame, backwards: boolean): ViewState {
  if (s.query === '') return { ...s, message: 'no search yet: / starts one' };
  const rows = rowsFor(s, f);
  const here = rows[s.cursor];
  // From a folded entry, its own lines still lie ahead.
  const from: Position = here === undefined ? { entry: -1, line: 0 } : { entry: here.entry, line: s.open.has(here.entry) || f.entries[here.entry]?.fold === null ? here.line : -1 };
  const found = matches(f.entries, s.query);
  const to = nextMatch(found, from, backwards);
  if (to === null) return { ...s, message: `no match for "${s.query}"` };
  const open = new Set(s.open);
  if (f.entries[to.entry]!.fold !== null) open.add(to.entry);
  const next = { ...s, open };
  const after = rowsFor(next, f);
  const index = found.findIndex((m) => m.entry === to.entry && m.line === to.line) + 1;
  return settle({ ...next, cursor: rowOf(after, to), message: `match ${index} of ${found.length} for "${s.query}"` }, after, f, true);
}

function typing(s: ViewState, f: Frame, input: string, key: Keys): ViewState {
  if (key.escape) return { ...s, searching: false, input: '', message: '' };
  if (key.return) return jump({ ...s, searching: false, query: s.input, input: '' }, f, false);
  if (key.backspace || key.delete) return { ...s, input: [...s.input].slice(0, -1).join('') };
  if (key.ctrl || input === '') return s;
  return { ...s, input: s.input + input.replace(/[\u0000-\u001f\u007f]/g, '') };
}

export function press(s: ViewState, f: Frame, input: string, key: Keys): ViewState {
  if (s.searching) return typing(s, f, input, key);
  const rows = rowsFor(s, f);
  const move = (to: number): ViewState => settle({ ...s, cursor: to, message: '' }, rows, f);
  if (input === 'q' || (key.ctrl && input === 'c')) return { ...s, quit: true };
  if (key.escape) return { ...s, message: '' };
  if (key.downArrow || input === 'j') return move(s.cursor + 1);
  if (key.upArrow || input === 'k') return move(s.cursor - 1);
  if (key.pageDown || (key.ctrl && input === 'f')) return settle({ ...s, cursor: s.cursor + f.height, top: s.top + f.height, message: '' }, rows, f);
  if (key.pageUp || (key.ctrl && input === 'b')) return settle({ ...s, cursor: s.cursor - f.height, top: s.top - f.height, message: '' }, rows, f);
  if (key.home || input === 'g') return move(0);
  if (key.end || input === 'G') return move(rows.length - 1);
  if (key.return || input === ' ') {
    const entry = rows[s.cursor]?.entry;
    if (entry === undefined || f.entries[entry]!.fold === null) return { ...s, message: 'nothing to unfold here' };
    const open = new Set(s.open);
    if (!open.delete(entry)) open.add(entry);
    return refold(s, f, open);
  }
  if (input === 't') return toggleAll(s, f, 'thinking');
  if (input === 'o') return toggleAll(s, f, 'output');
  if (input === '/') return { ...s, searching: true, input: '', message: '' };
  if (input === 'n') return jump(s, f, false);
  if (input === 'N') return jump(s, f, true);
  return s;
}

/**
 * Input that arrives as one chunk (keys typed faster than they are read, a
 * paste) is pressed one character at a time.
 */
export function pressAll(s: ViewState, f: Frame, input: string, key: Keys): ViewState {
  const chars = [...input];
  if (chars.length <= 1 || key.ctrl) return press(s, f, input, key);
  return chars.reduce((state, ch) => {
    if (ch === '\r' || ch === '\n') return press(state, f, '', { return: true });
    if (ch === '\u007f' || ch === '\b') return press(state, f, '', { backspace: true });
    return press(state, f, ch, {});
  }, s);
}
