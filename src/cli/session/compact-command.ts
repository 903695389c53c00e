/** `logbook session compact`: its options and help; what it does (compact.ts) loads only when it runs. */
import type { Command } from 'commander';
import type { Environment } from '../environment.js';
import { helpAfter } from '../help.js';
import { addStoreOptions } from '../store.js';
import type { CompactFlags } from './compact.js';

const COMPACT_HELP = `
Compacts the run now, as a long run is compacted when it nears the end of its
context window: one summarizing model call (the config's provider and model),
then a new run, its continuation, whose first turn is that summary followed by
the last keep_turns exchanges word for word. The run keeps every record and
ends on one more, saying where it continues ("suspended", "compacted into
RUN"); a resume of it is refused, naming the continuation. A run in the middle
of a tool batch is not compacted: resume it to finish the batch first. Nor is a
completed run: its follow-up (logbook run --resume RUN PROMPT) goes on in a new
run, which is compacted as it nears the context window. Nor is a task's run
(logbook serve goes on in it under its own id): fork it first.
The config is checked as a resume checks it (--force passes a drift).
Examples:
  logbook session compact RUN
  logbook run --resume CONTINUATION`;

export function registerCompactCommand(session: Command, environment: Environment): void {
  addStoreOptions(
    session
      .command('compact')
      .description('summarize a run into a new run that continues its conversation; the run keeps every record')
      .argument('<id>', 'the run to compact (or a unique part of its id)')
      .option('--force', 'compact even though the configuration drifted (never across providers)'),
  )
    .option('--verbose', 'show where an error came from (also LOGBOOK_DEBUG=1)')
    .addHelpText('after', `${COMPACT_HELP}\n${helpAfter(['LOGBOOK_CONFIG', 'LOGBOOK_DEBUG', 'LOGBOOK_PROVIDER', 'ANTHROPIC', 'XDG_STATE'], ['ok', 'error', 'usage', 'interrupted'])}`)
    .action(async (id: string, flags: CompactFlags) => {
      const { compactSession } = await import('./compact.js');
      process.exitCode = await compactSession(environment, id, flags);
    });
}
