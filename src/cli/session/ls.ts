/**
 * `logbook session ls`: one row per run, newest first, fitted to the terminal;
 * or, with --json, one JSON object per run and line, counters included.
 */
import type { Counters } from '../../core/index.js';
import { sanitizeLine, terminalSafeJson } from '../../render/index.js';
import type { ListedStatus, RunInfo, Store } from '../../store/store.js';
import { cellWidth, table, shortTime, shorterTime, truncate, type Cell } from '../output.js';
import type { Terminal } from '../terminal.js';

/** How wide the table is laid out when the output is not a terminal. */
export const PIPED_COLUMNS = 80;

/** Green for running, yellow for what waits on a resume, red for what stopped on a fault or a limit. */
const STATUS_COLOR: Partial<Record<ListedStatus, string>> = { running: '32', open: '', completed: '', suspended: '33', interrupted: '33', forked: '36' };

/** Which runs a listing shows. */
export interface RunFilter {
  /** Only runs in one of these statuses. */
  status?: readonly ListedStatus[];
  /** Only runs changed at or after this time. */
  since?: Date;
  /** At most this many, the newest. */
  limit?: number;
}

/** Milliseconds since the epoch; 0 for a time that does not parse (sorts last). */
const when = (rfc3339: string): number => Date.parse(rfc3339) || 0;

/** Newest first: by last change, then by creation, as times (backends write them differently). */
export function newestFirst(runs: RunInfo[]): RunInfo[] {
  // Times are parsed once per run, not once per comparison.
  const keyed = runs.map((run) => ({ run, updated: when(run.updated), created: when(run.created) }));
  keyed.sort((a, b) => b.updated - a.updated || b.created - a.created || a.run.runId.localeCompare(b.run.runId));
  return keyed.map((k) => k.run);
}

/** The runs the filter keeps, newest first; the limit applies last. */
export function selectRuns(runs: RunInfo[], filter: RunFilter): RunInfo[] {
  const since = filter.since?.getTime();
  const kept = newestFirst(runs).filter(
    (r) => (filter.status === undefined || filter.status.includes(r.status)) && (since === undefined || when(r.updated) >= since),
  );
  return filter.limit === undefined ? kept : kept.slice(0, filter.limit);
}

/** Below this many columns for MODEL and PROMPT together, the prompt gets them all. */
const ROOM_FOR_MODEL = 40;
/** The narrowest PROMPT column shown; with less room it is left out. */
const PROMPT_MIN = 10;
/** Columns between two cells (output.ts table). */
const GAP = 2;

interface Row {
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
 * room for both) cut by display width so that a line fits `columns`, columns
 * left out (LAYOUTS) where even a short prompt would not fit.
 */
export function formatRunList(runs: RunInfo[], term: Pick<Terminal, 'columns' | 'paint'>): string {
  const columns = term.columns ?? PIPED_COLUMNS;
  const rows: Row[] = runs.map((r) => ({
    id: r.runId,
    status: r.status,
    updated: shortTime(r.updated),
    updatedShort: shorterTime(r.updated),
    model: sanitizeLine(r.model),
    prompt: sanitizeLine(r.status === 'unreadable' ? (r.problem ?? '') : r.prompt),
  }));
  const widest = (key: keyof Row): number => Math.max(cellWidth(HEADERS[key]), ...rows.map((row) => cellWidth(row[key])));
  const fixedWidth = (layout: Layout): number => layout.filter((c) => c !== 'prompt').reduce((sum, c) => sum + widest(c) + GAP, 0);
  const fits = (layout: Layout): boolean =>
    layout.includes('prompt') ? fixedWidth(layout) + PROMPT_MIN <= columns : fixedWidth(layout) - GAP <= columns;
  const layout = LAYOUTS.find(fits) ?? LAYOUTS[LAYOUTS.length - 1]!;
  const rest = columns - fixedWidth(layout);
  const withModel = layout === LAYOUTS[0] && rest >= ROOM_FOR_MODEL;
  const modelWidth = withModel ? Math.min(widest('model'), Math.floor(rest * 0.3)) : 0;
  const promptWidth = withModel ? rest - modelWidth - GAP : rest;
  const bold = (text: string): Cell => ({ text, paint: (t) => term.paint('1', t) });
  const cells: readonly (keyof Row)[] = withModel ? ['id', 'status', 'updated', 'model', 'prompt'] : layout;
  const body: Cell[][] = rows.map((r) =>
    cells.map((c): Cell => {
      if (c === 'status') {
        const code = STATUS_COLOR[r.status] ?? '31';
        return { text: r.status, paint: (t) => (code ? term.paint(code, t) : t) };
      }
      if (c === 'prompt') return truncate(r.prompt, promptWidth);
      if (c === 'model') return truncate(r.model, modelWidth);
      return r[c];
    }),
  );
  return table([cells.map((c) => bold(HEADERS[c])), ...body]);
}

/** RFC 3339 in UTC, as JSON gives every time; the text as written when it is not a time. */
function rfc3339(time: string): string {
  const t = Date.parse(time);
  return Number.isNaN(t) ? time : new Date(t).toISOString();
}

/** One run as --json prints it. */
export interface RunJson {
  id: string;
  status: ListedStatus;
  created: string;
  updated: string;
  model: string;
  prompt: string;
  interactive: boolean;
  /** From the fold of the whole run; null when it cannot be read. */
  counters: Counters | null;
  problem?: string;
  /** The run and seq `session fork` made it from. */
  forked_from?: { run_id: string; seq: number };
}

/** The run's JSON object: the listing's fields, and the counters of its fold (which reads the whole run). */
export async function runJson(store: Store, run: RunInfo): Promise<RunJson> {
  const out: RunJson = {
    id: run.runId,
    status: run.status,
    created: rfc3339(run.created),
    updated: rfc3339(run.updated),
    model: run.model,
    prompt: run.prompt,
    interactive: run.interactive,
    counters: null,
    ...(run.forkedFrom ? { forked_from: { run_id: run.forkedFrom.from, seq: run.forkedFrom.at } } : {}),
  };
  if (run.status === 'unreadable') return { ...out, problem: run.problem ?? '' };
  try {
    out.counters = (await store.load(run.runId)).state.counters;
  } catch (err) {
    return { ...out, status: 'unreadable', problem: err instanceof Error ? err.message : String(err) };
  }
  return out;
}

export interface ListOptions extends RunFilter {
  json?: boolean;
}

export async function listRuns(store: Store, term: Pick<Terminal, 'columns' | 'paint'>, options: ListOptions): Promise<{ out: string; err: string }> {
  const all = await store.list();
  if (all.length === 0) return { out: '', err: `no runs in the ${store.location}\n` };
  const runs = selectRuns(all, options);
  if (runs.length === 0) return { out: '', err: `no runs in the ${store.location} match\n` };
  if (!options.json) return { out: formatRunList(runs, term), err: '' };
  let out = '';
  for (const run of runs) out += `${terminalSafeJson(await runJson(store, run))}\n`;
  return { out, err: '' };
}
