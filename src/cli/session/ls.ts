/**
 * `logbook session ls`: one row per conversation (a lineage, lineage.ts: shown
 * as its newest run, with how many earlier runs it has), or with --forks one
 * per run; newest first, fitted to the terminal (ls-table.ts); or, with
 * --json, one JSON object per row and line, counters included.
 */
import type { Counters } from '../../core/index.js';
import { terminalSafeJson } from '../../render/sanitize.js';
import type { PriceBook } from '../../agent/prices.js';
import { listedRunSpend, runsSpend } from '../../agent/spend.js';
import type { LogbookConfig } from '../../config/config.js';
import { byId, lineageBranches, lineageOf } from '../../store/lineage.js';
import { newestFirst, when } from '../../store/listing.js';
import { spendJson } from '../../api/long-run-facts.js';
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
  /** Only runs started in this directory. */
  startedIn?: string;
}

export { newestFirst } from '../../store/listing.js';

/** The runs the filter keeps, newest first; the limit applies last. */
export function selectRuns(runs: RunInfo[], filter: RunFilter): RunInfo[] {
  const since = filter.since?.getTime();
  const kept = newestFirst(runs).filter(
    (r) =>
      (filter.status === undefined || filter.status.includes(r.status)) &&
      (since === undefined || when(r.updated) >= since) &&
      (filter.startedIn === undefined || r.place?.dir === filter.startedIn),
  );
  return filter.limit === undefined ? kept : kept.slice(0, filter.limit);
}

/** A listing's row: a run, and how many earlier runs of its conversation it stands for. */
export interface ListedRow {
  run: RunInfo;
  earlier: number;
}

/**
 * The rows the filter keeps, newest first: each branch of a conversation once,
 * as its last run the filter keeps (`all`, the whole listing, follows the
 * origins), or every run with `forks`. The limit counts rows.
 */
export function selectRows(all: RunInfo[], filter: RunFilter, forks: boolean): ListedRow[] {
  const { limit, ...rest } = filter;
  const kept = selectRuns(all, rest);
  const rows = forks ? kept.map((run) => ({ run, earlier: 0 })) : lineageBranches(kept, byId(all));
  return limit === undefined ? rows : rows.slice(0, limit);
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
  /** The last turn typed into it; its prompt when none was typed since. */
  last_turn: string;
  interactive: boolean;
  /** From the fold of the whole run; null when it cannot be read. */
  counters: Counters | null;
  problem?: string;
  /** The run and seq it was forked from (`session fork`, or the completed run it follows up). */
  forked_from?: { run_id: string; seq: number };
  /** For a compaction's continuation (which copies none of its origin's records): the run it continues and the seq that run was compacted at, as `show --json` says it. */
  continues?: { run_id: string; seq: number };
  /** How many earlier runs of its conversation the row stands for (not with --forks). */
  earlier?: number;
  /** Where it was started, when that was kept. */
  started_in?: { dir: string; config?: string };
  /** What its own model calls cost (a fork's copied ones are its origin's; a compacted run's summary call is its), with the prices' sources; null when it cannot be read. */
  cost?: SpendJson | null;
  /** What the whole conversation the row stands for cost: every run of its lineage (not with --forks). */
  conversation_cost?: SpendJson;
  /** Where the task it serves came from, for a task's run (served by `logbook serve`). */
  task?: { request: string; conversation: string; sender: string; parent?: string; agent: string };
}

type SpendJson = ReturnType<typeof spendJson>;

/** The run's JSON object: the listing's fields, and the counters of its fold (which reads the whole run), and what it cost when `prices` are given. */
export async function runJson(store: Store, run: RunInfo, earlier = 0, prices?: PriceBook): Promise<RunJson> {
  const out: RunJson = {
    id: run.runId,
    status: run.status,
    created: rfc3339(run.created),
    updated: rfc3339(run.updated),
    model: run.model,
    prompt: run.prompt,
    last_turn: run.lastTurn ?? run.prompt,
    interactive: run.interactive,
    counters: null,
    ...(run.forkedFrom ? { [run.forkedFrom.compacted ? 'continues' : 'forked_from']: { run_id: run.forkedFrom.from, seq: run.forkedFrom.at } } : {}),
    ...(earlier > 0 ? { earlier } : {}),
    ...(run.place ? { started_in: run.place } : {}),
  };
  const task = await taskOf(store, run.runId);
  if (task !== null) out.task = task;
  if (run.status === 'unreadable') return { ...out, problem: run.problem ?? '' };
  try {
    out.counters = (await store.load(run.runId)).state.counters;
    if (prices !== undefined) out.cost = spendJson(await listedRunSpend(store, run, prices));
  } catch (err) {
    return { ...out, status: 'unreadable', problem: err instanceof Error ? err.message : String(err), ...(prices !== undefined ? { cost: null } : {}) };
  }
  return out;
}

/** What the conversation of run `id` cost, every run of its lineage among `all` (the unreadable left out). */
async function conversationCost(store: Store, all: RunInfo[], id: string, prices: PriceBook): Promise<SpendJson> {
  return spendJson((await runsSpend(store, lineageOf(all, id), prices)).total);
}

/** The task a run serves, from the note beside it; null for a run that is no task's (or whose note cannot be read). */
async function taskOf(store: Store, id: string): Promise<RunJson['task'] | null> {
  const { parseTaskOrigin, TASK_NOTE } = await import('../../agent/tasks/origin.js');
  const origin = parseTaskOrigin(await store.getNote(id, TASK_NOTE).catch(() => null));
  if (origin === null) return null;
  const { request, conversation, sender, parent, agent } = origin;
  return { request, conversation, sender, ...(parent !== undefined ? { parent } : {}), agent };
}

export interface ListOptions extends RunFilter {
  json?: boolean;
  /** The config at hand, whose prices: price the runs (with the price table), for --json. */
  config?: LogbookConfig;
  /** Where a base URL is read from when the config names none. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Every run its own row, not each conversation once. */
  forks?: boolean;
}

export async function listRuns(store: Store, term: Pick<Terminal, 'columns' | 'paint'>, options: ListOptions): Promise<{ out: string; err: string }> {
  const forks = options.forks === true;
  const all = await store.list({
    checkWhole: true, // damage anywhere is listed as show would report it
    origins: !forks || options.json === true, // the lineages, and forked_from
    lastTurns: true,
    places: options.startedIn !== undefined || options.json === true,
  });
  if (all.length === 0) return { out: '', err: `no runs in the ${store.location}\n` };
  const rows = selectRows(all, options, forks);
  if (rows.length === 0) {
    const here = options.startedIn !== undefined ? ` started in this directory (${options.startedIn})` : '';
    return { out: '', err: `no runs in the ${store.location}${here} match\n` };
  }
  if (!options.json) {
    const { formatRunList } = await import('./ls-table.js'); // display widths (string-width) load only for a table
    return { out: formatRunList(rows.map((r) => r.run), term, new Map(rows.map((r) => [r.run.runId, r.earlier]))), err: '' };
  }
  const { pricesAtHand } = await import('../../api/long-run-facts.js');
  const prices = await pricesAtHand(options.config, options.env ?? {});
  let out = '';
  for (const row of rows) {
    const json = await runJson(store, row.run, row.earlier, prices);
    if (row.earlier > 0) json.conversation_cost = await conversationCost(store, all, row.run.runId, prices);
    out += `${terminalSafeJson(json)}\n`;
  }
  return { out, err: '' };
}
