/**
 * Asks on the terminal which run to continue, and returns its id (null when the
 * operator cancels, or `signal` aborts: a stop signal, a hang-up). Imported
 * lazily: only this path loads Ink and React.
 */
import { inkOnTerminal } from '../ink-terminal.js';
import type { PickerEntry } from './model.js';

export async function pickRun(entries: PickerEntry[], signal: AbortSignal): Promise<string | null> {
  inkOnTerminal();
  const [{ render }, { Picker }] = await Promise.all([import('ink'), import('./Picker.js')]);
  let picked: string | null = null;
  // The picker talks on stderr, so stdout stays the answer's alone.
  const app = render(<Picker entries={entries} onDone={(id) => (picked = id)} />, { stdout: process.stderr, exitOnCtrlC: false, patchConsole: false });
  const close = (): void => app.unmount();
  signal.addEventListener('abort', close, { once: true });
  try {
    await app.waitUntilExit();
  } finally {
    signal.removeEventListener('abort', close);
  }
  if (signal.aborted) return null;
  app.clear();
  return picked;
}
