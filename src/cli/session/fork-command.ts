/** `logbook session fork`: its options and help; what it does (fork.ts) loads only when it runs. */
import { InvalidArgumentError, type Command } from 'commander';
import type { Environment } from '../environment.js';
import { helpAfter } from '../help.js';
import { addStoreOptions } from '../store.js';
import type { ForkFlags } from './fork.js';

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

export function registerForkCommand(session: Command, environment: Environment): void {
  addStoreOptions(
    session
      .command('fork')
      .description('start a new run from another run\'s records, up to a point')
      .argument('<id>', 'the run to fork (or a unique part of its id)')
      .option('--at <seq>', 'keep the records up to this seq', count('--at'))
      .option('--turn <n>', 'keep the prompt and the first N model turns (with their tool results)', count('--turn'))
      .option('--name <id>', 'the new run\'s id (default: generated from the clock)'),
  )
    .option('--verbose', 'show where an error came from (also LOGBOOK_DEBUG=1)')
    .addHelpText('after', `${FORK_HELP}\n${helpAfter(['LOGBOOK_CONFIG', 'LOGBOOK_DEBUG', 'XDG_STATE'], ['ok', 'error', 'usage'])}`)
    .action(async (id: string, flags: ForkFlags) => {
      const { forkSession } = await import('./fork.js');
      process.stdout.write(await forkSession(environment, id, flags));
    });
}
