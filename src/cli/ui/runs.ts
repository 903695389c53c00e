/**
 * What the web view lists and follows: the runs of the store (from their ends,
 * as `session ls` lists them, with each run's counters read once per version
 * of it), and one run as its view (src/render/run-view.ts).
 */
import { toolsFromConfig } from '../../config/agent.js';
import type { LogbookConfig } from '../../config/config.js';
import { RawJson, type Counters, type JournalRecord, type RunState, type RunTimes } from '../../core/index.js';
import { runView, type RunView, type RunViewInput, type ViewWindow } from '../../render/run-view.js';
import { sanitizeLine } from '../../render/sanitize.js';
import { textHead } from '../../render/text-head.js';
import { byId, copiedThrough, lineageBranches } from '../../store/lineage.js';
import { listedStatus, type ForkOrigin, type RunInfo, type Store } from '../../store/store.js';

export interface ListedRun {
  id: string;
  status: string;
  problem?: string;
  created: string;
  updated: string;
  model: string;
  prompt: string;
  interactive: boolean;
  /** Started in the directory the ui was started in: this project's run. */
  here: boolean;
  lastSeq?: number;
  forkedFrom?: ForkOrigin;
  /** How many earlier runs of its conversation the row stands for (as `session ls` shows a conversation: its newest run). */
  earlier?: number;
  /** Tokens spent: null when the run was not read (beyond the newest COUNTED, or unreadable). */
  counters: Counters | null;
}

/** The newest runs whose counters are read for the list (each once per version of it). */
const COUNTED = 200;

const PROMPT_HEAD = { lines: 3, chars: 300 };

/**
 * The store's runs as the runs page shows them: those started in this
 * directory first (this project's), then the rest, each newest first, with
 * their last typed turn, and counters for the newest (read once the listing
 * is given, and given with the next: the page's event stream brings them).
 */
export class RunsList {
  /** Counters by run, with the version (last seq and change time) they were read at. */
  private readonly counted = new Map<string, { version: string; counters: Counters | null }>();
  /** The last listing made, and what its runs' ends were: a listing whose runs did not change is not made again. */
  private last: { ends: string; listed: ListedRun[]; runs: RunInfo[] } | null = null;
  /** The listing being made, if one is. */
  private making: Promise<ListedRun[]> | null = null;

  constructor(
    private readonly store: Store,
    /** The directory the ui runs in: runs started there come first. */
    private readonly cwd: string,
  ) {}

  /**
   * The runs as listed. `runs`, a plain listing just made, says whether any
   * run changed since the last call; only then are their notes (where each
   * was started, its last turn) read again.
   */
  async list(runs?: readonly RunInfo[]): Promise<ListedRun[]> {
    const ends = runs === undefined ? null : runs.map((r) => `${r.runId}:${r.lastSeq}:${r.updated}:${r.status}`).sort().join('\n');
    if (ends !== null && this.last?.ends === ends) return this.last.listed;
    // A listing under way when another is asked for (the page's first load and its event stream's first listing) is the one both get.
    if (this.making === null) {
      this.making = this.make(ends).finally(() => (this.making = null));
      return this.making;
    }
    const made = await this.making;
    return ends === null || this.last?.ends === ends ? made : this.list(runs);
  }

  /** The store's runs as last listed (with their origins: the conversations), listed now if they never were. */
  async runs(): Promise<RunInfo[]> {
    if (this.last === null) await this.list();
    return this.last!.runs;
  }

  private async make(ends: string | null): Promise<ListedRun[]> {
    const full = await this.store.list({ places: true, lastTurns: true, origins: true });
    const here = (r: RunInfo): boolean => r.place?.dir === this.cwd;
    const sorted = [...full].sort((a, b) => Number(here(b)) - Number(here(a)) || b.updated.localeCompare(a.updated) || b.runId.localeCompare(a.runId));
    // One row per conversation, its newest run, as `session ls` lists them.
    const rows = lineageBranches(sorted, byId(full));
    const uncounted: RunInfo[] = [];
    const listed = rows.map(({ run, earlier }, i) => {
      const row = describe(run, here(run), earlier);
      if (i < COUNTED && run.status !== 'unreadable') {
        const known = this.counted.get(run.runId);
        if (known?.version === versionOf(run)) row.counters = known.counters;
        else uncounted.push(run);
      }
      return row;
    });
    const last = { ends: ends ?? full.map((r) => `${r.runId}:${r.lastSeq}:${r.updated}:${r.status}`).sort().join('\n'), listed, runs: full };
    this.last = last;
    // The counters not read yet come after the listing is shown: each run read whole, the newest first.
    if (uncounted.length > 0) void this.count(last, uncounted);
    return listed;
  }

  /** Reads the counters of `runs`, then gives the listing `last` (while it is the last made) a copy of its rows with them. */
  private async count(last: NonNullable<RunsList['last']>, runs: readonly RunInfo[]): Promise<void> {
    for (const run of runs) {
      const counters = await this.store.loadState(run.runId).then(
        (l) => l.state.counters,
        () => null, // the list shows the run all the same; its page says what is wrong
      );
      this.counted.set(run.runId, { version: versionOf(run), counters });
    }
    if (this.last !== last) return;
    const byRun = new Map(runs.map((r) => [sanitizeLine(r.runId), this.counted.get(r.runId)?.counters ?? null]));
    last.listed = last.listed.map((row) => (byRun.has(row.id) ? { ...row, counters: byRun.get(row.id)! } : row));
  }
}

/** The version of a run its counters were read at: its last seq and change time. */
const versionOf = (run: RunInfo): string => `${run.lastSeq}:${run.updated}`;

/** A run as a row of the list, without its counters. */
function describe(run: RunInfo, here: boolean, earlier: number): ListedRun {
  const listed: ListedRun = {
    id: sanitizeLine(run.runId),
    status: sanitizeLine(run.status),
    created: sanitizeLine(run.created),
    updated: run.updated,
    model: sanitizeLine(run.model),
    prompt: sanitizeLine(textHead(run.lastTurn ?? run.prompt, PROMPT_HEAD).text.replace(/\s+/g, ' ')),
    interactive: run.interactive,
    here,
    counters: null,
  };
  if (run.problem !== undefined) listed.problem = sanitizeLine(run.problem);
  if (run.lastSeq !== undefined) listed.lastSeq = run.lastSeq;
  if (run.forkedFrom !== undefined) listed.forkedFrom = { from: sanitizeLine(run.forkedFrom.from), at: run.forkedFrom.at, ...(run.forkedFrom.compacted ? { compacted: true } : {}) };
  if (earlier > 0) listed.earlier = earlier;
  return listed;
}

/** A run as the store holds it now, enough for its view. */
export interface RunSnapshot {
  records: JournalRecord[];
  state: RunState;
  times: RunTimes;
  created: string;
  updated: string;
  held?: boolean;
  origin: ForkOrigin | null;
}

/** What a call of a tool the config declares runs (its command line), for the approval panel. */
export function callDescriber(config: LogbookConfig | undefined, env: Readonly<Record<string, string | undefined>>): (name: string, inputJson: string) => string | undefined {
  if (config === undefined) return () => undefined;
  const tools = toolsFromConfig(config, env);
  return (name, inputJson) => {
    try {
      return tools.describe(name, RawJson.fromValidText(inputJson));
    } catch {
      return undefined;
    }
  };
}

/** What a run's view is made of: the snapshot, with its listed status. */
export function viewInput(run: RunSnapshot, describe: (name: string, inputJson: string) => string | undefined): RunViewInput {
  const status = listedStatus(run.state.status, run.held, run.origin ? { origin: run.origin, lastSeq: run.state.last_seq } : undefined);
  return {
    records: run.records,
    state: run.state,
    times: run.times,
    status,
    created: run.created,
    updated: run.updated,
    ...(run.held !== undefined ? { held: run.held } : {}),
    // A continuation holds a summary of its origin, no copies of its records: nothing of it is inherited.
    origin: copiedThrough(run.origin) > 0 ? run.origin : null,
    describe,
  };
}

/** The view of a run snapshot: whole, or the parts of `window`. */
export function viewOf(run: RunSnapshot, describe: (name: string, inputJson: string) => string | undefined, window: ViewWindow = {}): RunView {
  return runView(viewInput(run, describe), window);
}

/** Loads run `id` whole, for its page. */
export async function snapshot(store: Store, id: string): Promise<RunSnapshot> {
  const [loaded, origin] = await Promise.all([store.load(id), store.forkOrigin(id).catch(() => null)]);
  // Its own copy of the times: a follower adds to them.
  const times = { records: new Map(loaded.times.records), resumed: new Map(loaded.times.resumed) };
  const run: RunSnapshot = { records: loaded.records, state: loaded.state, times, created: loaded.created, updated: loaded.updated, origin };
  if (loaded.held !== undefined) run.held = loaded.held;
  return run;
}
