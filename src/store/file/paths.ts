import { join } from 'node:path';

/**
 * The state directory when none is given: `$XDG_STATE_HOME/logbook`, else
 * `~/.local/state/logbook`. Never the working directory, so run state does not
 * leak into repositories. The environment is passed in by the caller (the CLI
 * reads it, once, at its edge).
 */
export function defaultStateDir(env: Readonly<Record<string, string | undefined>>, home: string): string {
  const xdg = env.XDG_STATE_HOME;
  const base = xdg && xdg.startsWith('/') ? xdg : join(home, '.local', 'state');
  return join(base, 'logbook');
}

/** A state directory D keeps its journals in D/runs. */
export function runsDir(stateDir: string): string {
  return join(stateDir, 'runs');
}
