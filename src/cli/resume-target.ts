/** Which run `--resume` or `--continue` continues. */
import { LogbookError } from '../core/index.js';
import { resolveRunId } from '../store/resolve.js';
import type { RunInfo, Store } from '../store/store.js';
import { sanitizeLine } from '../render/index.js';
import { newestFirst } from './session/ls.js';

/** How many runs a refusal lists when it cannot ask which one. */
const LISTED = 5;

/** Runs that can be continued, newest first (an unreadable one cannot). */
async function candidates(store: Store): Promise<RunInfo[]> {
  return newestFirst((await store.list()).filter((r) => r.status !== 'unreadable'));
}

function noRuns(store: Store): LogbookError {
  return new LogbookError('not_found', `no runs in the ${store.location}; start one with: logbook run PROMPT`);
}

/**
 * `newest` for --continue: the most recently updated run. An id or unique prefix
 * for --resume ID. `true` for --resume alone: a choice on a terminal, otherwise
 * a refusal that lists the latest runs. Without a follow-up PROMPT a completed
 * run cannot be continued, so the choice leaves completed runs out. A stop
 * signal while the choice is open (`signal`) ends it: `interrupted`.
 */
export async function chooseRun(store: Store, target: 'newest' | string | true, options: { followUp: boolean; signal: AbortSignal }): Promise<string> {
  if (typeof target === 'string' && target !== 'newest') return resolveRunId(store, target);
  const all = await candidates(store);
  if (all.length === 0) throw noRuns(store);
  if (target === 'newest') return all[0]!.runId;
  const runs = options.followUp ? all : all.filter((r) => r.status !== 'completed');
  if (runs.length === 0) {
    throw new LogbookError('usage', `every run in the ${store.location} is completed; to continue one, give a prompt: logbook run -c PROMPT, or logbook run --resume ID PROMPT`);
  }
  if (process.stdin.isTTY && process.stderr.isTTY) {
    const { pickRun } = await import('./picker/open.js'); // Ink and React load only here
    const picked = await pickRun(runs, options.signal);
    if (options.signal.aborted) throw new LogbookError('interrupted', 'stopped while choosing the run to continue; no run was changed');
    if (picked === null) throw new LogbookError('usage', 'no run chosen');
    return picked;
  }
  const latest = runs.slice(0, LISTED).map((r) => `${r.runId} (${r.status}: ${sanitizeLine(r.prompt).slice(0, 40)})`);
  throw new LogbookError('usage', `--resume needs a run id when it cannot ask; the latest runs: ${latest.join(', ')}`);
}
