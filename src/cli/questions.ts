/**
 * Questions to the operator on a terminal, one line each: asked on stderr,
 * answered on stdin. In a chat the chat's own reader answers them, so two
 * readers never share stdin; otherwise a reader lives only while it asks, so
 * the rest of the run leaves the terminal (and Ctrl-C) alone. A terminal that
 * hangs up while a question waits stops the run as SIGHUP does (stdio.ts).
 */
import { createInterface, type Interface } from 'node:readline';
import { watchTerminalInput } from './stdio.js';

export interface Questions {
  /** The line typed, or null at end of input or once `signal` aborts. */
  ask(prompt: string, signal: AbortSignal): Promise<string | null>;
}

/**
 * On a terminal readline reads Ctrl-C as a key; while a question waits it is
 * passed on as the signal it is, so it suspends the run as it would anywhere else.
 */
export function forwardCtrlC(rl: Interface): () => void {
  const onSigint = (): void => void process.kill(process.pid, 'SIGINT');
  rl.on('SIGINT', onSigint);
  return () => rl.off('SIGINT', onSigint);
}

export function terminalQuestions(input: NodeJS.ReadableStream = process.stdin, output: NodeJS.WritableStream = process.stderr): Questions {
  return {
    ask(prompt, signal) {
      if (signal.aborted) return Promise.resolve(null);
      return new Promise((resolve) => {
        const rl = createInterface({ input, output, terminal: true });
        watchTerminalInput(rl, 'close'); // a hang-up is heard before the question settles
        let settled = false;
        const settle = (answer: string | null): void => {
          if (settled) return;
          settled = true;
          signal.removeEventListener('abort', onAbort);
          rl.close();
          resolve(answer);
        };
        const onAbort = (): void => settle(null);
        signal.addEventListener('abort', onAbort, { once: true });
        forwardCtrlC(rl);
        rl.on('close', () => settle(null));
        rl.question(prompt, (answer) => settle(answer));
      });
    },
  };
}
