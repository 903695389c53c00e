import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where runs live when nothing else is configured: `$XDG_STATE_HOME/logbook/runs`,
 * else `~/.local/state/logbook/runs`. Never the working directory, so run state
 * does not leak into repositories. It sits in the core so every backend and the
 * CLI see the same contract.
 */
export function defaultDir(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const xdg = env.XDG_STATE_HOME;
  const base = xdg && xdg.startsWith('/') ? xdg : join(home, '.local', 'state');
  return join(base, 'logbook', 'runs');
}

/** A state directory D keeps its journals in D/runs. */
export function runsDir(stateDir: string): string {
  return join(stateDir, 'runs');
}
