/**
 * A chat's turns: typed at a `> ` prompt on a terminal (chat-terminal.ts: a
 * turn may span lines, Esc stops an answer), or read from stdin when it is not
 * one, one line per turn (so a chat can be scripted through a pipe). A line
 * starting with "/" is a chat command (chat-commands.ts).
 */
import type { Interface } from 'node:readline';
import { readline } from './readline.js';
import type { AnswerControl, ChatInput, ChatTurn } from '../agent/runner.js';
import type { ChatHistory } from './chat-history.js';
import { COMMAND_NAMES, readTyped, type ChatContext, type RewindChoice } from './chat-commands.js';
import { TerminalInput } from './chat-terminal.js';
import { forwardCtrlC, type Questions } from './questions.js';
import { watchTerminalInput } from './stdio.js';
import type { Screen } from './screen.js';

const PROMPT = '> ';

/** What /fork, /drop or /rewind asked for. */
export interface ForkRequest {
  name?: string;
  /** /drop: cut before the typed turns the run ends on, unanswered. */
  drop?: true;
  /** /model NAME: the conversation goes on with this model, in a new run of it. */
  model?: string;
  /** /rewind: cut before a typed turn, its files restored too or not; its text goes back to the prompt. */
  rewind?: RewindChoice;
}

/** A chat's input; it also answers the run's questions (approvals), so stdin has one reader. */
export interface ClosableChatInput extends ChatInput, Questions {
  close(): void;
  /** Set once /fork, /drop or /model ended the chat: it goes on in a fork of the run (with this id if one was given; before the unanswered turn for /drop; with another model for /model). */
  readonly forkRequested: ForkRequest | undefined;
  /** The chat goes on (after a fork): /fork may be asked again. */
  resume(): void;
  /** A turn given on the command line: shown as a typed one is, on a terminal, and kept in the history. */
  echo(turn: string): void;
  /** Puts text at the prompt, to change and send (a rewound turn's). */
  prefill(text: string): void;
}

export interface ChatInputOptions {
  input?: NodeJS.ReadStream;
  /** On a terminal: the screen the prompt is drawn on and the stream it draws to (stderr). */
  terminal?: {
    screen: Screen;
    output: NodeJS.WriteStream;
    prompt: string;
    continuation: string;
    /** The turns typed in earlier chats of the project, kept as each is sent. */
    history?: ChatHistory;
    /** Ctrl-O: tool output shown or hidden from now on. */
    toggleToolOutput?: () => void;
  };
  /** Where what a command says is written. */
  write: (text: string) => void;
  /** Called when the chat ends by /exit or end of input. */
  onExit?: () => void;
  chat: ChatContext;
}

/** The raw lines of a chat, one turn each. */
interface Lines {
  read(): Promise<string | null>;
  ask(prompt: string, signal: AbortSignal): Promise<string | null>;
  prefill?(text: string): void;
  /** A question answered by one key press (a terminal's); without it, by a line. */
  choose?(prompt: string, signal: AbortSignal): Promise<string | null>;
  /** The model or the tools at work: what Esc stops. */
  working?(): AnswerControl;
  echo?(turn: string): void;
  close(): void;
}

export function chatInput(options: ChatInputOptions): ClosableChatInput {
  const input = options.input ?? process.stdin;
  const lines: Lines =
    options.terminal !== undefined && input.isTTY === true
      ? new TerminalInput({ input, ...options.terminal, commands: COMMAND_NAMES })
      : readlineLines(input);
  let exited = false;
  let closed = false;
  let fork: ForkRequest | undefined;
  /** The operator ended the chat (/exit, end of input); not when it is closed because the run ended otherwise. */
  const exit = (): null => {
    if (!exited && !closed) options.onExit?.();
    exited = true;
    return null;
  };
  return {
    async next(): Promise<ChatTurn> {
      for (;;) {
        const line = await lines.read();
        if (line === null) return exit();
        const typed = await readTyped(line, options.chat);
        if ('turn' in typed) return typed.turn;
        if ('retry' in typed || 'compact' in typed) return typed;
        if ('say' in typed) {
          if (typed.say !== '') options.write(`${typed.say}\n`);
          if (typed.prefill !== undefined) lines.prefill?.(typed.prefill);
        } else if (typed.end === 'model') {
          fork = { model: typed.model };
          return null;
        } else if (typed.end === 'fork') {
          fork = {
            ...(typed.name !== undefined ? { name: typed.name } : {}),
            ...(typed.drop ? { drop: true as const } : {}),
            ...(typed.rewind !== undefined ? { rewind: typed.rewind } : {}),
          };
          return null;
        } else return exit();
      }
    },
    ...(lines.working !== undefined ? { answering: () => lines.working!(), toolsRunning: () => lines.working!() } : {}),
    // At a terminal the operator is there to hear of a failed call and go on; a scripted chat ends on it.
    operator: input.isTTY === true,
    ask: (prompt, signal) => lines.ask(prompt, signal),
    ...(lines.choose !== undefined ? { choose: (prompt: string, signal: AbortSignal) => lines.choose!(prompt, signal) } : {}),
    echo: (turn) => lines.echo?.(turn),
    get forkRequested() {
      return fork;
    },
    resume() {
      fork = undefined;
    },
    prefill(text) {
      lines.prefill?.(text);
    },
    close() {
      closed = true;
      lines.close();
    },
  };
}

/**
 * Lines read by readline: from a stdin that is not a terminal, one turn each,
 * in order; on a terminal without a screen (--no-tui), at a plain `> ` prompt.
 * A question takes the next line.
 */
function readlineLines(input: NodeJS.ReadStream): Lines {
  const tty = input.isTTY === true;
  const rl: Interface = readline().createInterface({ input, output: tty ? process.stderr : undefined, terminal: tty });
  // A terminal that hangs up stops the chat as SIGHUP does (exit 130), heard before its end of input ends the chat.
  if (tty) watchTerminalInput(rl, 'close');
  rl.setPrompt(PROMPT);
  // Ctrl-C at the prompt suspends the chat as it suspends a run anywhere else (exit 130).
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
  const read = (): Promise<string | null> => {
    const line = queued.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (ended) return Promise.resolve(null);
    if (tty) rl.prompt();
    return new Promise((resolve) => waiting.push(resolve));
  };
  return {
    read,
    /** A line read from now on (not one read ahead, which stays the chat's), at its own prompt. */
    ask(prompt, signal) {
      if (ended || signal.aborted) return Promise.resolve(null);
      return new Promise((resolve) => {
        const answer = (line: string | null): void => {
          signal.removeEventListener('abort', onAbort);
          rl.setPrompt(PROMPT);
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
    close: () => rl.close(),
  };
}
