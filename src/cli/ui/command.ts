/**
 * `logbook ui`: serves the web view until a stop signal. The address, token
 * included, is the one line on stdout; what it serves is said on stderr.
 */
import type { Environment } from '../environment.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { onStopSignals } from '../signals.js';
import { findConfig, storeFor } from '../store.js';
import type { UiFlags } from '../ui-command.js';
import { UiServer } from './server.js';

export async function serveUi(environment: Environment, flags: UiFlags): Promise<ExitCode> {
  const config = findConfig(flags.config, environment, flags.stateDir);
  const store = await storeFor(environment, { config, stateDir: flags.stateDir });
  let ui: UiServer | null = null;
  const stop = onStopSignals(() => {});
  try {
    ui = await UiServer.start({
      store,
      config,
      environment,
      flags: { ...(flags.config !== undefined ? { config: flags.config } : {}), ...(flags.stateDir !== undefined ? { stateDir: flags.stateDir } : {}) },
      port: flags.port ?? 0,
      cwd: process.cwd(),
    });
    process.stdout.write(`${ui.url}\n`);
    process.stderr.write(`serving the runs of the ${store.location}${config === undefined ? ' (no config: runs cannot be continued from the page)' : ''}; Ctrl-C stops\n`);
    await new Promise<void>((resolve) => stop.signal.addEventListener('abort', () => resolve(), { once: true }));
    return EXIT.interrupted;
  } finally {
    await ui?.close();
    stop.dispose();
    await store.close();
  }
}
