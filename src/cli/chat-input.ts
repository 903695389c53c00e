/**
 * Chat follow-ups, one per line: typed at a `> ` prompt on a terminal, or read
 * from stdin when it is not one (so a chat can be scripted through a pipe).
 * A line starting with "/" is the operator's, never the model's: /help lists
 * the commands, /exit ends the chat, and any other is refused where it is typed
 * (a typo such as /exti must not become a turn the model answers). A line that
 * should reach the model with a leading "/" is typed with it doubled.
 */
import { createInterface, type Interface } from 'node:readline';
import type { ChatInput } from '../agent/runner.js';
import { sanitizeLine } from '../render/index.js';
import { forwardCtrlC, type Questions } from './questions.js';
import { watchTerminalInput } from './stdio.js';

/** A chat's input; it also answers the run's questions (approvals), so stdin has one reader. */
export interface ClosableChatInput extends ChatInput, Questions {
  close(): void;
}

/** The chat's own commands and what they do, for /help. */
export const SLASH_COMMANDS: readonly [string, string][] = [
  ['/help', 'list these commands'],
  ['/exit', 'end the chat; it is kept, and `logbook run --resume ID` continues it (end of input does the same)'],
  ['//', 'to send a line that starts with /, double it: `//etc/hosts is empty` sends `/etc/hosts is empty`'],
];

/** What a typed line is: a turn for the model, a chat command, or a refusal to show the operator. */
type Typed = { turn: string } | { command: '/help' | '/exit' } | { refused: string };

/** Reads one typed line; the text sent keeps the line as typed, but for the doubled slash. */
function readTyped(line: string): Typed {
  const start = line.length - line.trimStart().length;
  const text = line.slice(start);
  if (!text.startsWith('/')) return { turn: line };
  if (text.startsWith('//')) return { turn: line.slice(0, start) + text.slice(1) };
  const [name = '/', ...rest] = text.trim().split(/\s+/);
  const shown = sanitizeLine(name);
  if (name !== '/help' && name !== '/exit') return { refused: `unknown command ${shown}; /help lists them` };
  if (rest.length > 0) return { refused: `${name} takes no arguments; /help lists the commands` };
  return { command: name };
}

export interface ChatInputOptions {
  input?: NodeJS.ReadableStream;
  prompt?: string;
  /** Where /help writes. */
  write?: (text: string) => void;
  /** Called when the chat ends by /exit or end of input. */
  onExit?: () => void;
}

export function chatInput(options: ChatInputOptions = {}): ClosableChatInput {
  const input = options.input ?? process.stdin;
  const write = options.write ?? ((text: string) => void process.stderr.write(text));
  const tty = (input as { isTTY?: boolean }).isTTY === true;
  const rl: Interface = createInterface({ input, output: tty ? process.stderr : undefined, terminal: tty });
  // A terminal that hangs up stops the chat as SIGHUP does (exit 130), heard before its end of input ends the chat.
  if (tty) watchTerminalInput(rl, 'close');
  const chatPrompt = options.prompt ?? '> ';
  rl.setPrompt(chatPrompt);
  // Ctrl-C at the prompt suspends the chat as it suspends a run anywhere else (exit 130);
  // /exit and end of input are how the operator ends it.
  if (tty) forwardCtrlC(rl);
  const queued: string[] = [];
  const waiting: ((line: string | null) => void)[] = [];
  let ended = false;
  rl.on('line', (line) => {
    const w = waiting.shift();
    if (w) w(line);
    else queued.push(line);
  });
  rl.on('close', () => {
    ended = true;
    for (const w of waiting.splice(0)) w(null);
  });
  const raw = (): Promise<string | null> => {
    const line = queued.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (ended) return Promise.resolve(null);
    if (tty) rl.prompt();
    return new Promise((resolve) => waiting.push(resolve));
  };
  let exited = false;
  const exit = (): null => {
    if (!exited) options.onExit?.();
    exited = true;
    return null;
  };
  return {
    async next() {
      for (;;) {
        const line = await raw();
        if (line === null) return exit();
        const typed = readTyped(line);
        if ('turn' in typed) return typed.turn;
        if ('refused' in typed) write(`${typed.refused}\n`);
        else if (typed.command === '/exit') return exit();
        else write(SLASH_COMMANDS.map(([name, what]) => `  ${name.padEnd(6)} ${what}\n`).join(''));
      }
    },
    /** A line typed from now on (not one typed ahead, which stays the chat's), at its own prompt. */
    ask(prompt, signal) {
      if (ended || signal.aborted) return Promise.resolve(null);
      return new Promise((resolve) => {
        const answer = (line: string | null): void => {
          signal.removeEventListener('abort', onAbort);
          rl.setPrompt(chatPrompt);
          resolve(line);
        };
        const onAbort = (): void => {
          const at = waiting.indexOf(answer);
          if (at >= 0) waiting.splice(at, 1);
          answer(null);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        waiting.push(answer);
        if (tty) {
          rl.setPrompt(prompt);
          rl.prompt();
        }
      });
    },
    close() {
      rl.close();
    },
  };
}
