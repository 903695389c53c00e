import { watchTerminalInput } from './stdio.js';

/**
 * Ink draws only a final frame when it believes it runs under CI. The viewer
 * and the picker open only on an interactive terminal, so that belief is wrong
 * there: call this before rendering them. It also makes a hang-up Ink notices
 * (its input ending, or failing to leave raw mode) a SIGHUP (stdio.ts).
 */
export function inkOnTerminal(): void {
  for (const name of ['CI', 'CONTINUOUS_INTEGRATION']) if (name in process.env) process.env[name] = 'false';
  watchTerminalInput(process.stdin, 'end');
}
