/**
 * Ctrl-C, SIGTERM, SIGHUP (a closed terminal, a dropped SSH session) and SIGQUIT
 * suspend a run gracefully: the record being written finishes, the model call
 * or tool in flight is dropped (the tool's whole process group is killed), and
 * `suspended` is journaled. A second signal leaves at once; the journal is
 * consistent at every record boundary, so nothing is lost by that either.
 */
import { EXIT } from './exit-codes.js';

/** The signals that stop a command gracefully. */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT'];

export interface StopSignal {
  readonly signal: AbortSignal;
  /** Removes the handlers. */
  dispose(): void;
}

/**
 * Aborts the returned signal at the first stop signal and exits (130) at the
 * second. `notify` is told either way; after a hangup nothing can be shown, so
 * failures to write to the terminal are ignored from then on.
 */
export function onStopSignals(notify: (sig: NodeJS.Signals, again: boolean) => void): StopSignal {
  const controller = new AbortController();
  const handler = (sig: NodeJS.Signals): void => {
    if (sig === 'SIGHUP') process.stderr.on('error', () => {});
    const again = controller.signal.aborted;
    try {
      notify(sig, again);
    } catch {
      /* the terminal is gone */
    }
    if (again) process.exit(EXIT.suspended);
    controller.abort();
  };
  for (const sig of STOP_SIGNALS) process.on(sig, handler);
  return {
    signal: controller.signal,
    dispose() {
      for (const sig of STOP_SIGNALS) process.off(sig, handler);
    },
  };
}

/** onStopSignals for a run: it says it is suspending. */
export function onSuspendSignals(note: (message: string) => void): StopSignal {
  return onStopSignals((sig, again) =>
    note(again ? `${sig} again: leaving now; the journal is intact` : `${sig}: suspending (send it again to leave at once)`),
  );
}
