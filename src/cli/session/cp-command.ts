/** `logbook session cp`: its options and help; what it does (cp.ts) loads only when it runs. */
import type { Command } from 'commander';
import type { Environment } from '../environment.js';
import { storeCommandHelp } from '../help.js';
import { CONFIG_SEARCH } from '../store.js';
import type { CopyFlags } from './cp.js';

export const COPY_HELP = `
Each side is a store: with --from-config FILE (--to-config FILE), the session
backend that file configures; else with --from-state-dir DIR (--to-state-dir
DIR), the file store in DIR/runs; else the backend of the config found as
run finds one (${CONFIG_SEARCH}), else the default file store. --config and
--state-dir are the source side's, as for the other session commands. (With both flags, DIR is the state
dir of a file backend that sets no directory.) The copy is byte for byte, and
takes the notes beside the run (its origin, its compaction, where it was
started) and its records' times with it; an existing run in the target is never overwritten, and a failed or interrupted
copy leaves nothing behind. A run a writer still holds (listed running) is
refused, since the copy would end wherever the writer happens to be; --force
copies what is durable now and says up to which seq. Examples:
  logbook session cp RUN --to-config jetstream.yaml        default file store -> JetStream
  logbook session cp RUN --from-config jetstream.yaml --to-state-dir backup`;

export function registerCopyCommand(session: Command, environment: Environment): void {
  session
    .command('cp')
    .description('copy a run, unchanged, from one store to another (never overwriting)')
    .argument('<id>', 'the run id (or a unique part of it)')
    .option('--from-config <file>', `the config file whose session backend to copy from (default: ${CONFIG_SEARCH}, when one exists)`)
    .option('--from-state-dir <dir>', 'copy from the file store in DIR/runs')
    .option('--config <file>', 'the same as --from-config')
    .option('--state-dir <dir>', 'the same as --from-state-dir')
    .option('--to-config <file>', `the config file whose session backend to copy to (default: ${CONFIG_SEARCH}, when one exists)`)
    .option('--to-state-dir <dir>', 'copy to the file store in DIR/runs')
    .option('--force', 'copy a run a writer still holds: what is durable now, up to its last record')
    .option('--verbose', 'show where an error came from (also LOGBOOK_DEBUG=1)')
    .addHelpText('after', `${COPY_HELP}\n${storeCommandHelp()}`)
    .action(async (id: string, flags: CopyFlags) => {
      const { copySession } = await import('./cp.js');
      process.stderr.write(await copySession(environment, id, flags));
    });
}
