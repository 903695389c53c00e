/** A stored run as a document: its journal lines, a Markdown transcript, or one self-contained HTML page. */
import type { PriceBook } from '../agent/prices.js';
import { LogbookError, callDurations, runTimings, timeSummary, type RunState } from '../core/index.js';
import type { ExportOptions, WorkspaceChanges } from '../render/export/index.js';
import { continuedPath, listLineage } from '../store/lineage.js';
import { listedStatus, type Store } from '../store/store.js';
import { factFields, runFacts } from './long-run-facts.js';
import type { SessionFormat } from './formats.js';

export { SESSION_FORMATS, type SessionFormat } from './formats.js';

/** What exportSession adds to a run's document. */
export interface SessionExportOptions {
  /**
   * Prices the run's model calls (prices.ts): the summary then says what the
   * run spent, with the prices' source, and the compactions it took part in.
   */
  prices?: PriceBook;
  /**
   * The run with its origins, as one document (md and html only): the
   * conversation from its first run to this one, each run in turn; an origin a
   * fork holds the records of is shown in the fork.
   */
  lineage?: boolean;
  /** With the workspace changes of each turn (always named by file), their unified diffs. */
  diffs?: boolean;
  /** Where the system git is looked for, to read workspace snapshots (a PATH). */
  searchPath?: string;
}

/**
 * Run `id` of `store` in `format`, as `logbook session export` writes it: for
 * `md` and `html`, everything shown comes from the journal (and the notes
 * beside it: when each record became durable, the agents of remote calls,
 * what it spent and its compactions), escaped for where it goes: a
 * hostile journal cannot script the page.
 */
export async function exportSession(store: Store, id: string, format: SessionFormat, options: SessionExportOptions = {}): Promise<string> {
  if (format === 'jsonl') {
    if (options.lineage) throw new LogbookError('usage', "--lineage makes one document of several runs, as md or html; a journal's lines are one run's (export each run as jsonl)");
    return (await store.lines(id)).map((line) => `${line}\n`).join('');
  }
  // The renderers load only for an export.
  const { exportRun, exportRuns } = await import('../render/export/index.js');
  const ids = options.lineage ? continuedPath(await listLineage(store, id), id) : [id];
  const runs = [];
  for (const shown of ids) runs.push(await exportedRun(store, shown, options));
  return options.lineage ? exportRuns(format, runs) : exportRun(format, runs[0]!.state, runs[0]!.options);
}

/** A run as an export shows it: its state, times, the agents of its remote calls, and with prices what it spent and its compactions. */
async function exportedRun(store: Store, id: string, { prices, diffs, searchPath }: SessionExportOptions): Promise<{ state: RunState; options: ExportOptions }> {
  const loaded = await store.load(id);
  // The agents of remote calls load only for a run that made some.
  const agents = loaded.state.remote_calls.length === 0 ? {} : await (await import('../agent/remote-origins.js')).toolAgents(store, id);
  const timings = runTimings(loaded.records, loaded.times); // from the times kept beside the journal; none where none are kept
  const timing = { durations: callDurations(timings), summary: timeSummary(loaded.records, timings) };
  const origin = await store.forkOrigin(id).catch(() => null);
  const status = listedStatus(loaded.state.status, loaded.held, origin !== null ? { origin, lastSeq: loaded.state.last_seq } : undefined);
  const options: ExportOptions = { times: { created: loaded.created, updated: loaded.updated }, agents, timing, status };
  // A continuation holds none of its origin's records: its facts say what it continues (with prices).
  if (origin !== null && !origin.compacted) options.forkedFrom = { from: origin.from, at: origin.at };
  if (prices !== undefined) {
    const facts = await runFacts(store, id, loaded, origin, prices);
    options.extra = factFields(facts).map(([label, value]) => ({ label: label[0]!.toUpperCase() + label.slice(1), value, literal: false }));
  }
  const changes = await workspaceChanges(store, id, diffs === true, searchPath);
  if (changes.length > 0) options.changes = changes;
  return { state: loaded.state, options };
}

/** The run's workspace changes span by span (none where it has no snapshots, or they cannot be read: the export goes on without them). */
async function workspaceChanges(store: Store, id: string, diffs: boolean, searchPath: string | undefined): Promise<WorkspaceChanges[]> {
  const { runDiff, spanHeading } = await import('./workspace.js');
  try {
    const diff = await runDiff(store, id, { patch: diffs, ...(searchPath !== undefined ? { searchPath } : {}) });
    return diff.spans.map((s) => ({ heading: spanHeading(s), files: s.files, ...(s.patch !== undefined ? { diff: s.patch } : {}) }));
  } catch {
    return [];
  }
}

