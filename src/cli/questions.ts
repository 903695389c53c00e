/**
 * Questions to the operator on a terminal, one line each: asked on stderr,
 * answered on stdin. In a chat the chat's own reader answers them, so two
 * readers never share stdin; otherwise a reader lives only while it asks, so
 * the rest of the run leaves the terminal (and Ctrl-C) alone. A terminal that
 * hangs up while a question waits stops the run as SIGHUP does (stdio.ts).
 */
import type { Interface, Key } from 'node:readline';
import { readline } from './readline.js';
import { sanitizeLine } from '../render/index.js';
import { hangUp, watchTerminalInput } from './stdio.js';

export interface Questions {
  /** The line typed, or null at end of input or once `signal` aborts. */
  ask(prompt: string, signal: AbortSignal): Promise<string | null>;
  /**
   * One key pressed (no Enter), on a terminal: the character typed, or the
   * key's name (`return`); null at end of input or once `signal` aborts.
   * Without it (input piped) a question whose answers are keys takes a line.
   */
  choose?(prompt: string, signal: AbortSignal): Promise<string | null>;
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

/** The text a key press types: printable characters, without Ctrl or Alt; undefined for any other key (Enter, an arrow, Ctrl-R). */
export function typedText(text: string | undefined, key: Key | undefined): string | undefined {
  const plain = key?.ctrl !== true && key?.meta !== true && text !== undefined && text !== '' && !/[\u0000-\u001f\u007f]/.test(text);
  return plain ? text : undefined;
}

/** What a key press answers a question of one key with: the character typed, else the key's name (`return`); '' for none. */
export function keyPressed(text: string | undefined, key: Key | undefined): string {
  return typedText(text, key) ?? key?.name ?? '';
}

const KEY_NAMES: Readonly<Record<string, string>> = { return: 'Enter', enter: 'Enter', escape: 'Esc', tab: 'Tab', backspace: 'Backspace', delete: 'Delete' };

/** How a key pressed is named to a person: the character (quoted when `quoted`), else the key's name (`Enter`). */
export function keyShown(pressed: string, quoted = false): string {
  if ([...pressed].length === 1) return quoted ? JSON.stringify(sanitizeLine(pressed)) : sanitizeLine(pressed);
  return sanitizeLine(Object.hasOwn(KEY_NAMES, pressed) ? KEY_NAMES[pressed]! : pressed);
}

/**
 * Starts reading keys from a terminal: Node's keypress parser, which holds a
 * lone Esc for as long as the rest of an escape sequence may take to come
 * (500 ms by default), told 100 ms instead, as editors wait: Esc then stops
 * work at once. The first call for a stream sets it up; later ones change nothing.
 */
export function readKeys(input: NodeJS.ReadStream): void {
  // The parser reads only escapeCodeTimeout of the interface it is given.
  readline().emitKeypressEvents(input, { escapeCodeTimeout: ESCAPE_WAIT_MS } as unknown as Interface);
}

/** How long a lone Esc waits for the rest of an escape sequence before it is an Esc. */
const ESCAPE_WAIT_MS = 100;

export function terminalQuestions(input: NodeJS.ReadableStream = process.stdin, output: NodeJS.WritableStream = process.stderr): Questions {
  return {
    ask(prompt, signal) {
      if (signal.aborted) return Promise.resolve(null);
      return new Promise((resolve) => {
        const rl = readline().createInterface({ input, output, terminal: true });
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
    ...((input as NodeJS.ReadStream).isTTY === true ? { choose: (prompt: string, signal: AbortSignal) => oneKey(input as NodeJS.ReadStream, output, prompt, signal) } : {}),
  };
}

/**
 * One key read from the terminal in raw mode, the mode set back after it. Ctrl-C
 * is passed on as the signal it is (the run suspends, which aborts `signal`);
 * Ctrl-D is no answer.
 */
function oneKey(input: NodeJS.ReadStream, output: NodeJS.WritableStream, prompt: string, signal: AbortSignal): Promise<string | null> {
  if (signal.aborted) return Promise.resolve(null);
  return new Promise((resolve) => {
    readKeys(input);
    const wasRaw = input.isRaw;
    try {
      input.setRawMode(true);
    } catch {
      hangUp(); // the terminal is gone
      resolve(null);
      return;
    }
    let settled = false;
    const settle = (answer: string | null, shown: string): void => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      input.off('keypress', onKey);
      input.off('end', onEnd);
      input.off('error', onError);
      try {
        input.setRawMode(wasRaw);
      } catch {
        /* the terminal is gone */
      }
      input.pause();
      output.write(`${shown}\n`);
      resolve(answer);
    };
    const onAbort = (): void => settle(null, '');
    // In raw mode Ctrl-D is a key, never an end: the input ending is the terminal gone, whether or not it
    // already tells (it may not yet, as its SIGHUP is still on its way), and so is an error reading it.
    const onEnd = (): void => {
      hangUp();
      settle(null, '');
    };
    const onError = (): void => {
      hangUp();
      settle(null, '');
    };
    const onKey = (text: string | undefined, key: Key | undefined): void => {
      if (key?.ctrl === true && key.name === 'c') return void process.kill(process.pid, 'SIGINT');
      if (key?.ctrl === true && key.name === 'd') return settle(null, '');
      const pressed = keyPressed(text, key);
      if (pressed !== '' && !pressed.startsWith('paste-')) settle(pressed, keyShown(pressed));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    input.on('end', onEnd);
    input.on('error', onError);
    input.on('keypress', onKey);
    output.write(prompt);
    input.resume();
  });
}
