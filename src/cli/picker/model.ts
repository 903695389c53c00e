/**
 * The run picker's state, apart from Ink: which entries match the search,
 * where the cursor is, what a key does. Pure, so it is tested without a
 * terminal. An entry is one conversation (its newest run); one the current
 * configuration cannot go on with is shown, marked with the reason, and never
 * chosen: the cursor passes over it.
 */
import { sanitizeLine } from '../../render/index.js';
import type { RunInfo } from '../../store/store.js';
import { cellWidth, shortTime, truncate } from '../output.js';

export interface PickerEntry {
  /** The newest run of the conversation. */
  run: RunInfo;
  /** The earlier runs of its lineage. */
  earlier: number;
  /** Started in the directory the picker was opened in. */
  here: boolean;
  /** Why the configuration in use would refuse to go on with it: shown, and it is not offered. Null when it is offered. */
  refusal: string | null;
}

export interface PickerState {
  query: string;
  /** Index into the matching entries; always an offered one while any matches. */
  cursor: number;
  /** Set when the operator chose: the run id, or null for none. */
  done?: { id: string | null };
}

export interface PickerKeys {
  upArrow?: boolean;
  downArrow?: boolean;
  pageUp?: boolean;
  pageDown?: boolean;
  return?: boolean;
  escape?: boolean;
  backspace?: boolean;
  delete?: boolean;
  ctrl?: boolean;
}

/** What a search looks at: id, status, model, the prompt and the last typed turn. */
const haystack = (e: PickerEntry): string => `${e.run.runId} ${e.run.status} ${e.run.model} ${e.run.prompt} ${e.run.lastTurn ?? ''}`.toLowerCase();

/** The entries every word of `query` occurs in (case-insensitively), in the order given. */
export function matching(entries: readonly PickerEntry[], query: string): PickerEntry[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return words.length === 0 ? [...entries] : entries.filter((e) => words.every((w) => haystack(e).includes(w)));
}

/** The offered entry nearest `from` in direction `step` (then the other way), or -1 when none is offered. */
function offeredNear(shown: readonly PickerEntry[], from: number, step: 1 | -1): number {
  const at = Math.max(0, Math.min(shown.length - 1, from));
  for (let i = at; i >= 0 && i < shown.length; i += step) if (shown[i]!.refusal === null) return i;
  for (let i = at; i >= 0 && i < shown.length; i -= step) if (shown[i]!.refusal === null) return i;
  return -1;
}

/** The state a picker opens in: the cursor on the first entry it offers. */
export function initialState(entries: readonly PickerEntry[]): PickerState {
  return { query: '', cursor: Math.max(0, offeredNear(entries, 0, 1)) };
}

export function pressKey(state: PickerState, entries: readonly PickerEntry[], input: string, key: PickerKeys, page: number): PickerState {
  const shown = matching(entries, state.query);
  const move = (to: number, step: 1 | -1): PickerState => ({ ...state, cursor: Math.max(0, offeredNear(shown, to, step)) });
  const searched = (query: string): PickerState => ({ query, cursor: Math.max(0, offeredNear(matching(entries, query), 0, 1)) });
  if (key.escape || (key.ctrl && input === 'c')) return { ...state, done: { id: null } };
  if (key.return) {
    const entry = shown[state.cursor];
    return entry === undefined || entry.refusal !== null ? state : { ...state, done: { id: entry.run.runId } };
  }
  if (key.upArrow) return move(state.cursor - 1, -1);
  if (key.downArrow) return move(state.cursor + 1, 1);
  if (key.pageUp) return move(state.cursor - page, -1);
  if (key.pageDown) return move(state.cursor + page, 1);
  if (key.backspace || key.delete) return searched([...state.query].slice(0, -1).join(''));
  if (key.ctrl && input === 'u') return searched(''); // as a shell's line: Ctrl-U clears it
  if (key.ctrl || input === '') return state;
  // Typing searches; control characters never reach the query.
  return searched(state.query + input.replace(/[\u0000-\u001f\u007f]/g, ''));
}

/** How wide the id, status and updated columns are over `entries`, so rows line up. */
export interface RowWidths {
  id: number;
  status: number;
}

export function rowWidths(entries: readonly PickerEntry[]): RowWidths {
  return {
    id: Math.max(0, ...entries.map((e) => cellWidth(e.run.runId))),
    status: Math.max(0, ...entries.map((e) => cellWidth(e.run.status))),
  };
}

/** A refusal's first clause: up to the first `; ` outside parentheses (what differs, without the advice after it). */
export function firstClause(text: string): string {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (c === ';' && depth === 0 && text[i + 1] === ' ') return text.slice(0, i);
  }
  return text;
}

/** How much of a row's room the turn of an entry not offered keeps, so its reason shows too. */
const TURN_SHARE_REFUSED = 0.3;

/**
 * One entry as a picker row, sanitized: id, status, when it last changed, the
 * last typed turn, then for an entry not offered why it cannot be continued,
 * how many earlier runs the conversation has, and where it was started when
 * that is not here. Cut to `columns`: the turn first, then the reason.
 */
export function rowText(e: PickerEntry, widths: RowWidths, columns: number): string {
  const r = e.run;
  const head = `${r.runId.padEnd(widths.id)}  ${r.status.padEnd(widths.status)}  ${shortTime(r.updated)}  `;
  const earlier = e.earlier > 0 ? `  (+${e.earlier} earlier)` : '';
  const where = !e.here && r.place !== undefined ? `  [started in ${sanitizeLine(r.place.dir)}]` : '';
  const tail = `${earlier}${where}`;
  const room = Math.max(columns - cellWidth(head) - cellWidth(tail), 1); // narrower still: Ink cuts the row
  const turn = sanitizeLine(r.lastTurn ?? r.prompt);
  if (e.refusal === null) return `${head}${truncate(turn, room)}${tail}`;
  const reason = ` \u00b7 cannot continue: ${sanitizeLine(firstClause(e.refusal))}`; // the picker's own few words, or a message's first clause
  const turnRoom = Math.min(cellWidth(turn), Math.max(1, Math.floor(room * TURN_SHARE_REFUSED), room - cellWidth(reason)));
  const shownTurn = truncate(turn, turnRoom);
  return `${head}${shownTurn}${truncate(reason, Math.max(room - cellWidth(shownTurn), 1))}${tail}`;
}
