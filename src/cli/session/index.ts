/** `logbook session`: inspect, watch, search, export, copy and remove stored runs. */
import { Command, Option } from 'commander';
import { LogbookError, stateToJson } from '../../core/index.js';
import { dumpTranscript } from '../../render/index.js';
import { backends } from '../../store/registry.js';
import { addStoreOptions, withStore, type StoreFlags } from '../store.js';
import type { Environment } from '../environment.js';
import { terminalFor } from '../terminal.js';
import { registerCopyCommand } from './cp.js';
import { registerForkCommand } from './fork.js';
import { registerExportCommand } from './export.js';
import { listRuns } from './ls.js';
import { registerSearchCommand } from './search.js';
import { formatShow } from './show.js';
import { registerWatchCommand } from './watch.js';

interface CommonFlags extends StoreFlags {
  /** False from --no-color. */
  color: boolean;
}

interface ShowFlags extends CommonFlags {
  json?: boolean;
  transcript?: boolean;
  tui: boolean;
  toolOutput?: boolean;
}

const stdout = (text: string): void => void process.stdout.write(text);
const stderr = (text: string): void => void process.stderr.write(text);

/** The store options, and --no-color and --verbose (which main reads from argv). */
function common(command: Command): Command {
  return addStoreOptions(command)
    .option('--no-color', 'no color (also NO_COLOR=1)')
    .option('--verbose', 'show where an error came from (also LOGBOOK_DEBUG=1)');
}

async function show(environment: Environment, id: string, flags: ShowFlags): Promise<void> {
  const run = await withStore(environment, flags, (store) => store.load(id));
  if (flags.json) return stdout(`${stateToJson(run.state, { created: run.created, updated: run.updated })}\n`);
  if (!flags.transcript) return stdout(formatShow(run));
  if (flags.tui && process.stdout.isTTY && process.stdin.isTTY) {
    const { openViewer } = await import('../viewer/open.js'); // Ink and React load only here
    await openViewer(run, { toolOutput: flags.toolOutput === true, color: flags.color, env: environment.env });
    return;
  }
  const term = terminalFor(process.stdout, { color: flags.color, env: environment.env });
  stdout(dumpTranscript(run.state, { toolOutput: flags.toolOutput === true, ...(term.columns ? { width: term.columns } : {}), style: term.style }));
}

export function registerSessionCommands(program: Command, environment: Environment): void {
  const session = program.command('session').description('inspect, watch, search, export, copy and remove stored runs');

  common(session.command('ls').description('list runs, newest first')).action(async (flags: CommonFlags) => {
    const term = terminalFor(process.stdout, { color: flags.color, env: environment.env });
    const { out, err } = await withStore(environment, flags, (store) => listRuns(store, term));
    stdout(out);
    stderr(err);
  });

  common(
    session
      .command('show')
      .description('show where a run stands')
      .argument('<id>', 'the run id')
      .addOption(new Option('--json', 'print the folded state as one JSON object').conflicts(['transcript']))
      .option('--transcript', 'the whole conversation: a full-screen viewer on a terminal, plain text otherwise')
      .option('--no-tui', 'with --transcript, print plain text even on a terminal')
      .option('--tool-output', 'with --transcript, include tool results'),
  ).action((id: string, flags: ShowFlags) => show(environment, id, flags));

  common(session.command('rm').description('remove a run').argument('<id>', 'the run id')).action(
    async (id: string, flags: StoreFlags) => {
      const removed = await withStore(environment, flags, (store) => store.delete(id));
      if (!removed) throw new LogbookError('not_found', `no run ${id}; \`logbook session ls\` lists the runs`);
      stdout(`removed run ${id}\n`);
    },
  );

  registerCopyCommand(session, environment);
  registerExportCommand(session, environment);
  registerForkCommand(session, environment);
  registerWatchCommand(session, environment);
  registerSearchCommand(session, environment);

  session
    .command('backends')
    .description('list the linked session backends')
    .action(() => stdout(backends().map((b) => `${b}\n`).join('')));
}
