/** `logbook session watch`: its options and help; what it does (watch.ts) loads only when it runs. */
import { Option, type Command } from 'commander';
import type { Environment } from '../environment.js';
import { helpAfter } from '../help.js';
import { parseCount } from '../options.js';
import { addStoreOptions } from '../store.js';
import type { WatchFlags } from './watch.js';

const WATCH_HELP = `
The watch starts with what the run already holds (from --from-seq N on, when
given), then shows each record as it is stored, and ends when the run ends on
a terminal record: completed, suspended, failed or at a limit (one that ended
before --from-seq shows nothing, and stderr says at which seq it ended). A run
resumed later can be watched again. An ID that names no run is refused (exit
1), unless --wait: then ID is taken whole, and a run of exactly that id is
waited for if it does not exist yet, so a watch can start before \`logbook run
--name ID\` does. While a writer is away (crashed, or a chat waiting for its
operator) the watch waits with it.

With --json each record is printed as its stored journal line, byte for byte,
one per line (the record schemas in schemas/ are its contract); otherwise the
run is rendered like live narration: the prompt, prose, tool calls, results
with --tool-output, follow-ups and how the run ended, every journal string
sanitized for the terminal.

A watch only reads. On the file store it follows the journal file without its
lock; over JetStream it is an ordered consumer on the run's subjects, so a run
on one machine can be watched from any machine that reaches the stream.
Ctrl-C stops watching and leaves the run as it was. Examples:
  logbook session watch 20261130
  logbook session watch --wait nightly-report
  logbook session watch RUN --json | jq -c .`;

export function registerWatchCommand(session: Command, environment: Environment): void {
  addStoreOptions(
    session
      .command('watch')
      .description('follow a run as it grows, until it ends (from another terminal, or another machine over JetStream)')
      .argument('<id>', 'the run id (or a unique part of it)')
      .option('--wait', 'ID is a whole id: when no run has it yet, wait for one to start')
      .option('--json', 'print each record as its stored journal line, byte for byte')
      .addOption(new Option('--from-seq <n>', 'start showing at record seq N (default: the first)').argParser(parseCount))
      .option('--tool-output', 'show tool results'),
  )
    .option('--no-color', 'no color (also NO_COLOR=1)')
    .option('--verbose', 'show thinking; and where an error came from (also LOGBOOK_DEBUG=1)')
    .addHelpText('after', `${WATCH_HELP}\n${helpAfter(['LOGBOOK_CONFIG', 'LOGBOOK_DEBUG', 'XDG_STATE', 'NO_COLOR'], ['ok', 'error', 'usage', 'interrupted'])}`)
    .action(async (id: string, flags: WatchFlags) => {
      const { watchSession } = await import('./watch.js');
      process.exitCode = await watchSession(environment, id, flags);
    });
}
