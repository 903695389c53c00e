/**
 * Ctrl-C and SIGTERM suspend a run gracefully: the record being written
 * finishes, the model call or tool in flight is dropped, `suspended` is
 * journaled. A second signal leaves at once; the journal is consistent at every
 * record boundary, so nothing is lost by that either.
 */
import { EXIT } from './exit-codes.js';

export interface SuspendSignal {
  readonly signal: AbortSignal;
  /** Removes the handlers. */
  dispose(): void;
}

export function onSuspendSignals(notify: (message: string) => void): SuspendSignal {
  const controller = new AbortController();
  const handler = (sig: NodeJS.Signals): void => {
    if (controller.signal.aborted) {
      notify(`${sig} again: leaving now; the journal is intact`);
      process.exit(EXIT.suspended);
    }
    notify(`${sig}: suspending (send it again to leave at once)`);
    controller.abort();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    signal: controller.signal,
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
