/**
 * `logbook session rm ID...` and `logbook session prune`: removing runs, each
 * reported. A run a writer holds is never removed (the store refuses it, and
 * prune does not try); a removal that fails names why, and the command then
 * exits 1 after doing all it could.
 */
import { isLogbookError, isValidId } from '../../core/index.js';
import { advisedMessage } from '../advice.js';
import { sanitizeLine } from '../../render/sanitize.js';
import { continuationOf } from '../../store/lineage.js';
import { matchRunId } from '../../store/resolve.js';
import type { ListedStatus, RunInfo, Store } from '../../store/store.js';
import { selectRuns } from './ls.js';
import { shortTime, truncate } from '../output.js';

/** What a removal printed, and whether all of it succeeded. */
export interface Removal {
  out: string;
  err: string;
  ok: boolean;
  /** A name was refused as a usage error (an id that is part of several runs' ids): the exit code is then 2. */
  usage?: boolean;
}

const why = advisedMessage;

/** Why a compacted run whose continuation stays is kept: the continuation holds only a summary of it. */
const compactedKept = (into: string): string =>
  `it was compacted into run ${into}, which keeps only a summary of it: its records, and its spend (which lineage_budget_usd counts), would be gone from the conversation`;

/** Removes each run `given` names (an id or a unique part of one), reporting each; a compacted run whose continuation stays only with `force`. */
export async function removeRuns(store: Store, given: readonly string[], options: { force?: boolean } = {}): Promise<Removal> {
  const runs = await store.list({ origins: true });
  const result: Removal = { out: '', err: '', ok: true };
  const done = new Set<string>();
  const resolved = (name: string): string | undefined => {
    try {
      return isValidId(name) ? matchRunId(name, runs, store.location) : undefined;
    } catch {
      return undefined;
    }
  };
  const named = new Set(given.map(resolved));
  for (const name of given) {
    try {
      // An invalid id goes to the store as given, whose refusal says what is wrong with it.
      const id = isValidId(name) ? matchRunId(name, runs, store.location) : name;
      if (done.has(id)) continue; // named twice (a whole id and a prefix of it)
      done.add(id);
      const into = continuationOf(runs, id);
      if (into !== undefined && options.force !== true && !named.has(into)) {
        throw new Error(`${compactedKept(into)}; remove it with --force, or remove run ${into} with it`);
      }
      if (!(await store.delete(id))) throw new Error(`no run ${id} in the ${store.location} (removed meanwhile)`);
      result.out += `removed run ${id}\n`;
    } catch (err) {
      result.ok = false;
      if (isLogbookError(err, 'usage')) result.usage = true;
      result.err += `logbook: cannot remove ${name}: ${why(err)}\n`;
    }
  }
  return result;
}

export interface PruneOptions {
  /** Runs not changed for this many milliseconds. */
  olderThan: number;
  status?: readonly ListedStatus[];
  dryRun?: boolean;
  now?: number;
}

/** One run in prune's report: id, status, last change and prompt, sanitized. */
const describe = (r: RunInfo): string => {
  const prompt = sanitizeLine(r.status === 'unreadable' ? (r.problem ?? '') : r.prompt);
  return `${r.runId} (${r.status}, updated ${shortTime(r.updated)}${prompt === '' ? '' : `: ${truncate(prompt, 60)}`})`;
};

/**
 * Removes the runs not changed for `olderThan` (in the given statuses), or
 * with dryRun says which it would remove. Runs a writer holds are kept.
 */
export async function pruneRuns(store: Store, options: PruneOptions): Promise<Removal> {
  const cutoff = (options.now ?? Date.now()) - options.olderThan;
  const all = await store.list({ origins: true });
  const old = selectRuns(all, options.status === undefined ? {} : { status: options.status }).filter((r) => (Date.parse(r.updated) || 0) < cutoff);
  const pruned = new Set(old.map((r) => r.runId));
  const result: Removal = { out: '', err: '', ok: true };
  for (const run of old) {
    if (run.held === true) {
      result.err += `kept ${describe(run)}: a writer holds it now\n`;
      continue;
    }
    const into = continuationOf(all, run.runId);
    if (into !== undefined && !pruned.has(into)) {
      result.err += `kept ${describe(run)}: ${compactedKept(into)}\n`;
      continue;
    }
    if (options.dryRun) {
      result.out += `would remove ${describe(run)}\n`;
      continue;
    }
    try {
      if (await store.delete(run.runId)) result.out += `removed ${describe(run)}\n`;
    } catch (err) {
      result.ok = false;
      result.err += `logbook: cannot remove ${run.runId}: ${why(err)}\n`;
    }
  }
  if (old.length === 0) result.err += `no run in the ${store.location} matches\n`;
  return result;
}
