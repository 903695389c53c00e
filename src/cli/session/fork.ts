/**
 * `logbook session fork ID`: a new run holding another's records up to a point,
 * to go on from there; the original is never touched.
 */
import { generateRunId } from '../../agent/run.js';
import { validateId } from '../../core/index.js';
import { forkRun } from '../../store/fork.js';
import { resolveRunId } from '../../store/resolve.js';
import type { Environment } from '../environment.js';
import { resumeCommand } from '../resume-command.js';
import { withStore, type StoreFlags } from '../store.js';

export interface ForkFlags extends StoreFlags {
  at?: number;
  turn?: number;
  name?: string;
}

/** Forks the run the flags name; returns the line to print. */
export async function forkSession(environment: Environment, given: string, flags: ForkFlags): Promise<string> {
  const id = flags.name ?? generateRunId();
  validateId(id);
  return withStore(environment, flags, async (store) => {
    const from = await resolveRunId(store, given);
    const forked = await forkRun(store, from, {
      id,
      ...(flags.at !== undefined ? { at: flags.at } : {}),
      ...(flags.turn !== undefined ? { turn: flags.turn } : {}),
    });
    return `forked run ${from} up to seq ${forked.lastSeq} as run ${forked.id}; continue it with: ${resumeCommand(forked.id, flags)}\n`;
  });
}
