/**
 * `logbook session fork ID`: a new run holding another's records up to a point,
 * to go on from there; the original is never touched.
 */
import { InvalidArgumentError, type Command } from 'commander';
import { generateRunId } from '../../agent/run.js';
import { validateId } from '../../core/index.js';
import { forkRun } from '../../store/fork.js';
import { resolveRunId } from '../../store/resolve.js';
import type { Environment } from '../environment.js';
import { helpAfter } from '../help.js';
import { resumeCommand } from '../resume-command.js';
import { addStoreOptions, withStore, type StoreFlags } from '../store.js';

export interface ForkFlags extends StoreFlags {
  at?: number;
  turn?: number;
  name?: string;
}

const FORK_HELP = `
Without --at or --turn the fork holds the whole run (but a final "completed",
so it can be continued). A cut inside a tool batch leaves that batch pending:
resuming the fork finishes it. Examples:
  logbook session fork RUN --turn 2          the prompt and the first two model turns
  logbook session fork RUN --at 7 --name try-again`;

function count(what: string): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError(`${what} must be a whole number`);
    return n;
  };
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

export function registerForkCommand(session: Command, environment: Environment): void {
  addStoreOptions(
    session
      .command('fork')
      .description('start a new run from another run\'s records, up to a point')
      .argument('<id>', 'the run to fork (or a unique start of its id)')
      .option('--at <seq>', 'keep the records up to this seq', count('--at'))
      .option('--turn <n>', 'keep the prompt and the first N model turns (with their tool results)', count('--turn'))
      .option('--name <id>', 'the new run\'s id (default: generated from the clock)'),
  )
    .option('--verbose', 'show where an error came from (also LOGBOOK_DEBUG=1)')
    .addHelpText('after', `${FORK_HELP}\n${helpAfter(['LOGBOOK_CONFIG', 'LOGBOOK_DEBUG', 'XDG_STATE'], ['ok', 'error', 'usage'])}`)
    .action(async (id: string, flags: ForkFlags) => {
      process.stdout.write(await forkSession(environment, id, flags));
    });
}
