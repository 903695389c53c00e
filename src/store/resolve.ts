/**
 * Run ids as people type them: a whole id, or any prefix of one that no other
 * run shares.
 */
import { LogbookError, isValidId } from '../core/index.js';
import type { RunInfo, Store } from './store.js';

/** How many candidates an ambiguous prefix's refusal names. */
const SHOWN = 5;

/** The run `given` names in `runs`: itself, or the one run whose id starts with it. */
export function matchRunId(given: string, runs: readonly Pick<RunInfo, 'runId'>[], where: string): string {
  if (runs.some((r) => r.runId === given)) return given;
  const matches = runs.filter((r) => r.runId.startsWith(given)).map((r) => r.runId);
  if (matches.length === 1) return matches[0]!;
  if (matches.length === 0) {
    throw new LogbookError('not_found', `no run ${given} in the ${where}; \`logbook session ls\` lists the runs`);
  }
  const shown = matches.sort().slice(0, SHOWN).join(', ');
  const more = matches.length > SHOWN ? `, and ${matches.length - SHOWN} more` : '';
  throw new LogbookError('usage', `${given} is the start of ${matches.length} run ids (${shown}${more}); give more of it`);
}

/**
 * Resolves a typed id or unique prefix against the store's runs. A whole id is
 * looked up alone, so naming a run costs the same in a store of ten thousand;
 * only a prefix lists the store.
 */
export async function resolveRunId(store: Store, given: string): Promise<string> {
  if (!isValidId(given)) return given; // let the store's own refusal name what is wrong with it
  if (await store.has(given)) return given;
  return matchRunId(given, await store.list(), store.location);
}
