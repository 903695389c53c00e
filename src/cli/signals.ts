/**
 * Ctrl-C, SIGTERM, SIGHUP (a closed terminal, a dropped SSH session) and SIGQUIT
 * suspend a run gracefully: the record being written finishes, the model call
 * or tool in flight is dropped (the tool's whole process group is killed), and
 * `suspended` is journaled. A second signal leaves at once; the journal is
 * consistent at every record boundary, so nothing is lost by that either. A
 * hang-up is a SIGHUP however it is noticed (stdio.ts), and it only ever
 * suspends: nobody at the terminal can have sent it to insist.
 */
import { EXIT } from './exit-codes.js';
import { hangUp, onHangUp } from './stdio.js';

/** The signals that stop a command gracefully. */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];

export interface StopSignal {
  readonly signal: AbortSignal;
  /** Removes the handlers. */
  dispose(): void;
}

/**
 * Aborts the returned signal at the first stop signal and exits (130) at the
 * second. `notify` is told either way; after a hang-up nothing can be shown,
 * and what is written to the terminal is dropped (stdio.ts).
 */
export function onStopSignals(notify: (sig: NodeJS.Signals, again: boolean) => void): StopSignal {
  const controller = new AbortController();
  const handler = (sig: NodeJS.Signals): void => {
    const again = controller.signal.aborted;
    if (again && sig === 'SIGHUP') return; // the suspend under way goes on
    try {
      notify(sig, again);
    } catch {
      /* the terminal is gone */
    }
    if (again) process.exit(EXIT.suspended);
    controller.abort();
  };
  const others = STOP_SIGNALS.filter((sig) => sig !== 'SIGHUP');
  for (const sig of others) process.on(sig, handler);
  process.on('SIGHUP', hangUp);
  const stopListening = onHangUp(() => handler('SIGHUP'));
  return {
    signal: controller.signal,
    dispose() {
      for (const sig of others) process.off(sig, handler);
      process.off('SIGHUP', hangUp);
      stopListening();
    },
  };
}

/** onStopSignals for a run: it says it is suspending (and, but after a hang-up, how to leave at once). */
export function onSuspendSignals(note: (message: string) => void): StopSignal {
  return onStopSignals((sig, again) => {
    if (again) note(`${sig} again: leaving now; the journal is intact`);
    else note(sig === 'SIGHUP' ? 'SIGHUP (the terminal hung up): suspending' : `${sig}: suspending (send it again to leave at once)`);
  });
}
