/**
 * `logbook session ls`: one row per run, newest first, fitted to the terminal
 * (ls-table.ts); or, with --json, one JSON object per run and line, counters included.
 */
import type { Counters } from '../../core/index.js';
import { terminalSafeJson } from '../../render/sanitize.js';
import type { ListedStatus, RunInfo, Store } from '../../store/store.js';
import type { Terminal } from '../terminal.js';

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
  const all = await store.list({ checkWhole: true }); // damage anywhere is listed as show would report it
  if (all.length === 0) return { out: '', err: `no runs in the ${store.location}\n` };
  const runs = selectRuns(all, options);
  if (runs.length === 0) return { out: '', err: `no runs in the ${store.location} match\n` };
  if (!options.json) {
    const { formatRunList } = await import('./ls-table.js'); // display widths (string-width) load only for a table
    return { out: formatRunList(runs, term), err: '' };
  }
  let out = '';
  for (const run of runs) out += `${terminalSafeJson(await runJson(store, run))}\n`;
  return { out, err: '' };
}
