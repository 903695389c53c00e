/** The table `session ls` prints: one row per run, fitted to the terminal by display width. */
import { sanitizeLine } from '../../render/sanitize.js';
import type { ListedStatus, RunInfo } from '../../store/store.js';
import { cellWidth, table, shortTime, truncate, withoutYear, type Cell } from '../output.js';
import type { Terminal } from '../terminal.js';


/** Green for running, yellow for what waits on a resume, red for what stopped on a fault or a limit. */
const STATUS_COLOR: Partial<Record<ListedStatus, string>> = { running: '32', open: '', completed: '', suspended: '33', interrupted: '33', forked: '36' };

/** Below this many columns for MODEL and PROMPT together, the prompt gets them all. */
const ROOM_FOR_MODEL = 40;
/** The narrowest PROMPT column shown; with less room it is left out. */
const PROMPT_MIN = 10;
/** Columns between two cells (output.ts table). */
const GAP = 2;

interface Row extends Omit<Cells, 'updatedShort'> {
  /** `  +2 earlier`: the runs of its conversation the row stands for, or empty. */
  earlier: string;
}

/** A row's cell; the short time made only where a layout asks for it. */
const cellOf = (row: Row, key: keyof Cells): string => (key === 'updatedShort' ? withoutYear(row.updated) : row[key]);

interface Cells {
  id: string;
  status: ListedStatus;
  updated: string;
  /** The same time shorter, for a narrow terminal. */
  updatedShort: string;
  model: string;
  prompt: string;
}

/** The cells of a layout, left to right; PROMPT and MODEL, when present, are cut to fit. */
type Layout = readonly ('id' | 'status' | 'updated' | 'updatedShort' | 'prompt')[];

/**
 * The layouts a table falls back through as the terminal narrows, widest first:
 * MODEL goes first (it needs ROOM_FOR_MODEL beside the prompt), then the time
 * is shortened, then UPDATED goes (a generated id holds its start time anyway),
 * then PROMPT, then STATUS. An id is never cut: it is what a person copies into
 * the next command, so the table fits any terminal at least as wide as its ids.
 */
const LAYOUTS: readonly Layout[] = [
  ['id', 'status', 'updated', 'prompt'],
  ['id', 'status', 'updatedShort', 'prompt'],
  ['id', 'status', 'prompt'],
  ['id', 'status'],
  ['id'],
];

const HEADERS = { id: 'ID', status: 'STATUS', updated: 'UPDATED', updatedShort: 'UPDATED', model: 'MODEL', prompt: 'PROMPT' } as const;

/**
 * The table: ID, STATUS and UPDATED whole; PROMPT (and MODEL, where there is
 * room for both) cut by display width so that a line fits `columns` (none
 * cut without a width: the output is not a terminal), columns
 * left out (LAYOUTS) where even a short prompt would not fit. PROMPT is the
 * last turn typed into the run (its prompt when none was typed since), then,
 * for a run that stands for a conversation of several (`earlier`, by run id),
 * how many earlier runs it has: `+2 earlier`, never cut.
 */
export function formatRunList(runs: RunInfo[], term: Pick<Terminal, 'columns' | 'paint'>, earlier: ReadonlyMap<string, number> = new Map()): string {
  const columns = term.columns ?? Infinity; // not a terminal, no COLUMNS: nothing is cut
  const rows: Row[] = runs.map((r) => {
    const before = earlier.get(r.runId) ?? 0;
    return {
      id: r.runId,
      status: r.status,
      updated: shortTime(r.updated),
      model: sanitizeLine(r.model),
      prompt: sanitizeLine(r.status === 'unreadable' ? (r.problem ?? '') : (r.lastTurn ?? r.prompt)),
      earlier: before > 0 ? `  +${before} earlier` : '',
    };
  });
  // Each column's width is measured once: the layouts below ask for it again and again.
  const widths = new Map<keyof Cells, number>();
  const widest = (key: keyof Cells): number => {
    let width = widths.get(key);
    if (width === undefined) {
      width = cellWidth(HEADERS[key]);
      for (const row of rows) width = Math.max(width, cellWidth(cellOf(row, key)));
      widths.set(key, width);
    }
    return width;
  };
  const fixedWidth = (layout: Layout): number => layout.filter((c) => c !== 'prompt').reduce((sum, c) => sum + widest(c) + GAP, 0);
  const fits = (layout: Layout): boolean =>
    layout.includes('prompt') ? fixedWidth(layout) + PROMPT_MIN <= columns : fixedWidth(layout) - GAP <= columns;
  // Not a terminal: the widest layout fits and nothing is cut, so no column is measured for it.
  const unbounded = columns === Infinity;
  const layout = unbounded ? LAYOUTS[0]! : (LAYOUTS.find(fits) ?? LAYOUTS[LAYOUTS.length - 1]!);
  const rest = unbounded ? Infinity : columns - fixedWidth(layout);
  const withModel = layout === LAYOUTS[0] && rest >= ROOM_FOR_MODEL;
  const modelWidth = !withModel ? 0 : unbounded ? Infinity : Math.min(widest('model'), Math.floor(rest * 0.3));
  const promptWidth = unbounded ? Infinity : withModel ? rest - modelWidth - GAP : rest;
  const bold = (text: string): Cell => ({ text, paint: (t) => term.paint('1', t) });
  const cells: readonly (keyof Cells)[] = withModel ? ['id', 'status', 'updated', 'model', 'prompt'] : layout;
  const painters = new Map<string, (t: string) => string>();
  const paintStatus = (code: string): ((t: string) => string) => {
    let paint = painters.get(code);
    if (paint === undefined) painters.set(code, (paint = (t) => (code ? term.paint(code, t) : t)));
    return paint;
  };
  const body: Cell[][] = rows.map((r) =>
    cells.map((c): Cell => {
      if (c === 'status') return { text: r.status, paint: paintStatus(STATUS_COLOR[r.status] ?? '31') };
      if (c === 'prompt') {
        if (r.earlier === '') return truncate(r.prompt, promptWidth);
        const prompt = truncate(r.prompt, Math.max(1, promptWidth - cellWidth(r.earlier)));
        return { text: `${prompt}${r.earlier}`, paint: (t) => `${t.slice(0, prompt.length)}${term.paint('2', t.slice(prompt.length))}` };
      }
      if (c === 'model') return truncate(r.model, modelWidth);
      return cellOf(r, c);
    }),
  );
  body.unshift(cells.map((c) => bold(HEADERS[c])));
  return table(body);
}
