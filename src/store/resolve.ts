/**
 * Run ids as people type them: a whole id, else the one run whose id starts
 * with what is given, else the one run whose id holds it anywhere (`i8dj` for
 * run 20261130-091500-i8dj2k: a generated id starts with the clock, so its end
 * is what tells runs apart). Every command that takes an id resolves it here.
 * What names no run is refused as `not_found` (exit 1); what names several is
 * `usage` (exit 2: the command line does not say which run), and the refusal
 * lists them.
 */
import { LogbookError, isValidId } from '../core/index.js';
import type { RunInfo, Store } from './store.js';

/** How many candidates an ambiguous id's refusal names. */
const SHOWN = 5;

/** The run `given` names in `runs`: itself, the one run whose id starts with it, or the one whose id holds it. */
export function matchRunId(given: string, runs: readonly Pick<RunInfo, 'runId'>[], where: string): string {
  if (runs.some((r) => r.runId === given)) return given;
  const starting = runs.filter((r) => r.runId.startsWith(given)).map((r) => r.runId);
  if (starting.length === 1) return starting[0]!;
  const holding = starting.length > 1 ? starting : runs.filter((r) => r.runId.includes(given)).map((r) => r.runId);
  if (holding.length === 1) return holding[0]!;
  if (holding.length === 0) {
    throw new LogbookError('not_found', `no run ${given} in the ${where}`, { details: { runId: given } });
  }
  const shown = holding.sort().slice(0, SHOWN).join(', ');
  const more = holding.length > SHOWN ? `, and ${holding.length - SHOWN} more` : '';
  const what = starting.length > 1 ? 'the start' : 'part';
  throw new LogbookError('usage', `${given} is ${what} of ${holding.length} run ids (${shown}${more}); give more of it`);
}

/**
 * Resolves a typed id, or a unique part of one, against the store's runs. A
 * whole id is looked up alone, so naming a run costs the same in a store of
 * ten thousand; only a part lists the store.
 */
export async function resolveRunId(store: Store, given: string): Promise<string> {
  if (!isValidId(given)) return given; // let the store's own refusal name what is wrong with it
  if (await store.has(given)) return given;
  return matchRunId(given, await store.list(), store.location);
}
