/**
 * `logbook session watch ID`: follows a run as it grows, from another terminal
 * or (over JetStream) another machine, rendered like live narration or, with
 * --json, as the stored lines themselves. It only reads: the run is never held,
 * so the writer is neither blocked nor slowed, and Ctrl-C leaves it as it was.
 */
import { Option, type Command } from 'commander';
import { isLogbookError, isValidId } from '../../core/index.js';
import { FollowedTranscript } from '../../render/index.js';
import { resolveRunId } from '../../store/resolve.js';
import type { Store } from '../../store/store.js';
import type { Environment } from '../environment.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { helpAfter } from '../help.js';
import { onStopSignals } from '../signals.js';
import { addStoreOptions, withStore, type StoreFlags } from '../store.js';
import { terminalFor } from '../terminal.js';
import { parseCount } from '../options.js';
import { writeOut } from './streaming.js';

export interface WatchFlags extends StoreFlags {
  json?: boolean;
  fromSeq?: number;
  toolOutput?: boolean;
  verbose?: boolean;
  /** False from --no-color. */
  color: boolean;
}

const WATCH_HELP = `
The watch starts with what the run already holds (from --from-seq N on, when
given), then shows each record as it is stored, and ends when the run ends on
a terminal record: completed, suspended, failed or at a limit (one that ended
before --from-seq shows nothing, and stderr says at which seq it ended). A run
resumed later can be watched again. A run that does not exist yet is waited for, so a
watch can start before \`logbook run --name ID\` does. While a writer is away
(crashed, or a chat waiting for its operator) the watch waits with it.

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
  logbook session watch RUN --json | jq -c .`;

/** The run `given` names: an existing run (or unique start of one), else a run not yet started, to wait for. */
async function watchTarget(store: Store, given: string): Promise<string> {
  try {
    return await resolveRunId(store, given);
  } catch (err) {
    if (isLogbookError(err, 'not_found') && isValidId(given)) return given;
    throw err;
  }
}

export async function watchSession(environment: Environment, id: string, flags: WatchFlags): Promise<ExitCode> {
  const stop = onStopSignals(() => {}); // the first Ctrl-C ends the watch below; a second leaves at once
  try {
    return await withStore(environment, flags, async (store) => {
      const run = await watchTarget(store, id);
      const term = terminalFor(process.stdout, { color: flags.color, env: environment.env });
      // Every record is folded in, shown or not, so a watch refuses what a load would.
      const transcript = new FollowedTranscript({
        toolOutput: flags.toolOutput === true,
        thinking: flags.verbose === true,
        style: term.style,
        ...(term.columns ? { width: term.columns } : {}),
      });
      const from = flags.fromSeq ?? 1;
      const onAbsent = (): void => void process.stderr.write(`waiting for run ${run} to start in the ${store.location} (Ctrl-C to stop)\n`);
      let last = 0;
      for await (const { record, line } of store.watch(run, { signal: stop.signal, onAbsent })) {
        last = record.seq;
        const show = record.seq >= from;
        const text = transcript.add(record, show && flags.json !== true);
        await writeOut(flags.json === true ? (show ? `${line}\n` : '') : text);
      }
      if (stop.signal.aborted) return EXIT.interrupted;
      // A run that ended before --from-seq showed nothing: say why, rather than end in silence.
      if (last < from) process.stderr.write(`run ${run} ended at seq ${last}, before seq ${from} (--from-seq): nothing to show\n`);
      return EXIT.ok;
    });
  } finally {
    stop.dispose();
  }
}

export function registerWatchCommand(session: Command, environment: Environment): void {
  addStoreOptions(
    session
      .command('watch')
      .description('follow a run as it grows, until it ends (from another terminal, or another machine over JetStream)')
      .argument('<id>', 'the run id (or a unique start of it); a run not started yet is waited for')
      .option('--json', 'print each record as its stored journal line, byte for byte')
      .addOption(new Option('--from-seq <n>', 'start showing at record seq N (default: the first)').argParser(parseCount))
      .option('--tool-output', 'show tool results'),
  )
    .option('--no-color', 'no color (also NO_COLOR=1)')
    .option('--verbose', 'show thinking; and where an error came from (also LOGBOOK_DEBUG=1)')
    .addHelpText('after', `${WATCH_HELP}\n${helpAfter(['LOGBOOK_CONFIG', 'LOGBOOK_DEBUG', 'XDG_STATE', 'NO_COLOR'], ['ok', 'error', 'usage', 'interrupted'])}`)
    .action(async (id: string, flags: WatchFlags) => {
      process.exitCode = await watchSession(environment, id, flags);
    });
}
