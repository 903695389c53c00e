/** `logbook ui`: its options and help; the server (ui/) loads only when it runs. */
import { InvalidArgumentError, type Command } from 'commander';
import type { Environment } from './environment.js';
import { helpAfter } from './help.js';
import { addStoreOptions, type StoreFlags } from './store.js';

export interface UiFlags extends StoreFlags {
  port?: number;
}

const UI_HELP = `
Serves a web page of the store's runs on 127.0.0.1 (a free port unless
--port is given) and prints its address, with the token every request must
carry: http://127.0.0.1:PORT/?token=TOKEN (a run's page is /runs/ID?token=...).
The page lists the runs, newest first, as they change; a run's page shows it
as a timeline (model and tool calls as bars, with durations and tokens) and
its transcript (a long run's last part, earlier parts on demand), following
it live while it runs (the page is sent what changed, never the run again). A run that awaits an
approval can be approved or denied there (with a reason the model reads): it
is continued in this process exactly as \`logbook run --resume ID --approve
CALL\` would continue it, with the config given here.

The page loads nothing from anywhere else and shows every journal string as
text. Ctrl-C stops serving; a run it was continuing is suspended, as a run is
at a stop signal. Examples:
  logbook ui
  logbook ui --config agent.yaml --port 8377`;

/** A TCP port: 1 to 65535 (leave --port out for a free one). */
function parsePort(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n < 1 || n > 65535) throw new InvalidArgumentError('a port is a whole number from 1 to 65535');
  return n;
}

export function registerUiCommand(program: Command, environment: Environment): void {
  addStoreOptions(
    program
      .command('ui')
      .description('serve a local web page of the runs: timelines, transcripts, live following and approvals')
      .option('--port <port>', 'the port on 127.0.0.1 (default: a free one)', parsePort),
  )
    .option('--verbose', 'show where an error came from (also LOGBOOK_DEBUG=1)')
    .addHelpText('after', `${UI_HELP}\n${helpAfter(['LOGBOOK_CONFIG', 'LOGBOOK_DEBUG', 'XDG_STATE', 'XDG_CONFIG', 'OTEL'], ['ok', 'error', 'usage', 'interrupted'])}`)
    .action(async (flags: UiFlags) => {
      const { serveUi } = await import('./ui/command.js');
      process.exitCode = await serveUi(environment, flags);
    });
}
