/**
 * The run picker's state, apart from Ink: which runs match the search, where
 * the cursor is, what a key does. Pure, so it is tested without a terminal.
 */
import { sanitizeLine } from '../../render/index.js';
import type { RunInfo } from '../../store/store.js';

export interface PickerState {
  query: string;
  /** Index into the matching runs. */
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

/** What a search looks at: id, prompt, model and status. */
const haystack = (r: RunInfo): string => `${r.runId} ${r.status} ${r.model} ${r.prompt}`.toLowerCase();

/** The runs every word of `query` occurs in (case-insensitively), in the order given. */
export function matching(runs: readonly RunInfo[], query: string): RunInfo[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return words.length === 0 ? [...runs] : runs.filter((r) => words.every((w) => haystack(r).includes(w)));
}

export function pressKey(state: PickerState, runs: readonly RunInfo[], input: string, key: PickerKeys, page: number): PickerState {
  const shown = matching(runs, state.query);
  const move = (to: number): PickerState => ({ ...state, cursor: Math.max(0, Math.min(shown.length - 1, to)) });
  if (key.escape || (key.ctrl && input === 'c')) return { ...state, done: { id: null } };
  if (key.return) return shown.length === 0 ? state : { ...state, done: { id: shown[state.cursor]!.runId } };
  if (key.upArrow) return move(state.cursor - 1);
  if (key.downArrow) return move(state.cursor + 1);
  if (key.pageUp) return move(state.cursor - page);
  if (key.pageDown) return move(state.cursor + page);
  if (key.backspace || key.delete) return { query: [...state.query].slice(0, -1).join(''), cursor: 0 };
  if (key.ctrl || input === '') return state;
  // Typing searches; control characters never reach the query.
  return { query: state.query + input.replace(/[\u0000-\u001f\u007f]/g, ''), cursor: 0 };
}

/** One run as a picker row: id, status, model, and the prompt, sanitized. */
export function rowText(r: RunInfo): string {
  return `${r.runId}  ${r.status}  ${sanitizeLine(r.model)}  ${sanitizeLine(r.prompt)}`;
}
