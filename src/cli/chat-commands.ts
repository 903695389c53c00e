/**
 * A chat's own commands: a line starting with "/" is the operator's, never the
 * model's. Each command is one entry of CHAT_COMMANDS (its name, what it takes,
 * what it does), so adding one is adding an entry. A line that is none of them
 * is refused where it is typed (a typo such as /exti must not become a turn the
 * model answers); a line that should reach the model with a leading "/" is
 * typed with it doubled.
 */
import { unheldText } from '../api/long-run-facts.js';
import { spentUsdText } from '../agent/spend.js';
import { awaitsAnswer } from '../agent/run-rests.js';
import type { LiveSpend } from '../agent/runner.js';
import type { RunState } from '../core/index.js';
import { sanitizeLine } from '../render/index.js';
import { count, fields } from './output.js';

/** What a command can see of the chat it is typed in. */
export interface ChatContext {
  /** The run as it stands: the fold of its records so far. */
  state(): RunState;
  /** The provider and model answering. */
  readonly model: string;
  /** The model answering, as its provider names it. */
  modelName?(): string;
  /** The models the provider's API lists; absent where it cannot list them (the script provider). */
  listModels?(): Promise<string[]>;
  /** Where the run is journaled, or null for an --ephemeral one. */
  store: string | null;
  /** Writes the run to `file` (the format from its extension); resolves to where it wrote. */
  exportTo(file: string): Promise<string>;
  /** What the run, and its conversation when that was read, spent so far (nothing when nothing is priced). */
  spend?(): LiveSpend | undefined;
  /** The model's context window in tokens, when known (read when /status shows it: the price table may be asked). */
  readonly contextWindow?: number | undefined;
  /** Why a fork cannot be given this id (not a valid id, or a run has it), or null when it can. */
  forkNameRefusal(name: string): Promise<string | null>;
  /** Tool output shown from now on, or hidden again (it says which). */
  toggleToolOutput?(): void;
  /** The turns typed into the conversation so far, oldest first, with the seq of each (a /rewind goes back to before one); absent when the run is not journaled. */
  typedTurns?(): Promise<TypedTurn[]>;
  /** Asks the operator a question at the chat's prompt; null when it is not answered. */
  ask?(question: string): Promise<string | null>;
  /** Tells the operator something at once (before a question). */
  say?(text: string): void;
  /** Restores the workspace's files to before typed turn `turn`, the conversation left as it is; what to say. */
  rewindFiles?(turn: TypedTurn): Promise<string>;
  /** The files a restore to before typed turn `turn` would change, listed as `session rewind` lists them; nothing is changed. */
  rewindPlan?(turn: TypedTurn): Promise<string>;
}

/** A turn typed into a chat: its text, and the seq of its user record. */
export interface TypedTurn {
  seq: number;
  text: string;
}

/** What a /rewind (or Esc twice at an empty prompt) goes back to. */
export interface RewindChoice {
  turn: TypedTurn;
  /** Restore the files too (else the conversation only). */
  files: boolean;
}

/** What a typed line comes to. */
export type Typed =
  /** A turn for the model. */
  | { turn: string }
  /** Ask the unanswered turn again. */
  | { retry: true }
  /** Compact the conversation here: it goes on in a continuation. */
  | { compact: true }
  /** The chat ends here: kept, to be continued later; or continued at once in a fork of it. */
  | { end: 'exit' }
  | { end: 'fork'; name?: string; drop?: true; rewind?: RewindChoice }
  /** The chat goes on with another model, in a new run of the conversation. */
  | { end: 'model'; model: string }
  /** Something to tell the operator (and text to put back at the prompt); the chat waits for the next line. */
  | { say: string; prefill?: string };

export interface ChatCommand {
  name: string;
  /** What it takes, as shown in /help (`FILE`, `[NAME]`); none when it takes nothing. */
  args?: string;
  summary: string;
  /** How many arguments it takes at least and at most. */
  arity?: [number, number];
  run(args: string[], chat: ChatContext): Typed | Promise<Typed>;
}

const NOT_JOURNALED = 'an --ephemeral run is not journaled, so it cannot be forked';

/**
 * Why /drop has nothing to go on without: no turn is unanswered, it is the
 * results of a tool call (asked again by /retry), or it is the chat's prompt,
 * which every fork keeps.
 */
function undroppable(state: RunState): string | null {
  if (!awaitsAnswer(state)) return state.messages.length === 0 ? 'no turn was typed yet' : 'the last turn was answered';
  const last = state.messages[state.messages.length - 1]!;
  if (!last.content.some((b) => 'text' in b)) return "the model has not answered a tool call's results: /retry asks it again";
  if (!state.messages.some((m) => m.role === 'assistant') && state.prompt !== '') {
    return 'the unanswered turn holds the prompt the chat was started with, which every fork of it keeps: start a new chat';
  }
  return null;
}

/** /model: the models the provider's API lists, the one answering marked. */
async function listModels(chat: ChatContext): Promise<Typed> {
  const current = chat.modelName?.();
  if (chat.listModels === undefined) return { say: `the provider cannot list its models; the chat is with ${sanitizeLine(chat.model)}` };
  const ids = await chat.listModels();
  if (ids.length === 0) return { say: `the API lists no models; the chat is with ${sanitizeLine(chat.model)}` };
  return { say: ids.map((id) => `${id === current ? '*' : ' '} ${sanitizeLine(id)}`).join('\n') + '\n/model NAME goes on with another' };
}

/** /model NAME: refused where it is typed when it cannot be (not journaled, the same model, one the API does not list). */
async function switchTo(name: string, chat: ChatContext): Promise<Typed> {
  if (chat.store === null) return { say: 'an --ephemeral run is not journaled, so it cannot go on in a new run: start a chat with --model NAME' };
  if (name === chat.modelName?.()) return { say: `the chat is with ${sanitizeLine(name)} already` };
  const listed = chat.listModels === undefined ? undefined : await chat.listModels().catch(() => undefined);
  if (listed !== undefined && listed.length > 0 && !listed.includes(name)) return { say: `/model: the API lists no model ${sanitizeLine(name)}; /model lists them` };
  return { end: 'model', model: name };
}

function status(chat: ChatContext): string {
  const state = chat.state();
  const c = state.counters;
  const cached = c.cache_read_tokens > 0 ? ` \u00b7 ${count(c.cache_read_tokens)} cached` : '';
  return fields([
    ['run', `${sanitizeLine(state.run_id)}${chat.store === null ? ' (not journaled: --ephemeral)' : ''}`],
    ['model', sanitizeLine(chat.model)],
    ['tokens', `${count(c.in_tokens)} in \u00b7 ${count(c.out_tokens)} out${cached}`],
    ['calls', `${count(c.llm_calls)} model call${c.llm_calls === 1 ? '' : 's'} \u00b7 ${count(c.tool_calls)} tool call${c.tool_calls === 1 ? '' : 's'}`],
    ['context', contextLine(state.last_input_tokens, chat.contextWindow)],
    ['spent', spentLine(chat.spend?.())],
    ['store', chat.store === null ? 'none' : sanitizeLine(chat.store)],
  ]);
}

/** How full the context window was at the last request. */
function contextLine(used: number, window: number | undefined): string {
  if (window === undefined) return used === 0 ? 'no model call yet' : `${count(used)} tokens at the last request (the context window is not known)`;
  return `${count(used)} of ${count(window)} tokens at the last request (${Math.round((100 * used) / window)}%)`;
}

/** What was spent, with the sources of the prices; the conversation's too when it was read. */
function spentLine(spend: LiveSpend | undefined): string {
  if (spend === undefined) return 'not priced (no price known for the model: prices: in the config gives one)';
  const run = spend.run;
  const sources = run.sources.length > 0 ? ` (prices: ${run.sources.map(sanitizeLine).join('; ')})` : '';
  const unpriced = run.unpriced > 0 ? `, ${count(run.unpriced)} call${run.unpriced === 1 ? '' : 's'} not priced` : '';
  const whole = spend.conversation !== undefined ? ` \u00b7 the conversation ${spentUsdText(spend.conversation)}` : '';
  const unheld = unheldText(spend.conversation ?? run);
  return `${spentUsdText(run)}${sources}${unpriced}${whole}${unheld !== null ? ` (${unheld})` : ''}`;
}

/** The keys a chat knows, for /help. */
export const CHAT_KEYS: readonly [string, string][] = [
  ['Enter', 'send the turn (a paste is one turn, whatever it holds)'],
  ['Ctrl-J, Alt-Enter', 'a new line in the turn; so does Enter after a \\'],
  ['Up, Down', 'between lines; past the first or last, earlier turns (this project\'s earlier chats\' too)'],
  ['Ctrl-R', 'search the earlier turns (again: an older one; Enter takes it, Esc gives up)'],
  ['Esc, Ctrl-C', 'while the model answers or tools run: stop them, back to the prompt'],
  ['Esc Esc', 'at an empty prompt: go back to a turn typed earlier, as /rewind does'],
  ['Ctrl-C', 'at an empty prompt, or twice: suspend the chat (exit 130)'],
  ['Ctrl-D', 'at an empty prompt: end the chat, as /exit does'],
  ['Ctrl-O', 'show tool output (and the last calls\'), or hide it again'],
  ['Ctrl-L', 'clear the screen and redraw the prompt'],
  ['Tab', 'complete a / command'],
  ['y, n, a, r, s, t', 'a question of the run (approve a call, rerun one) takes one key, no Enter'],
];

export const CHAT_COMMANDS: readonly ChatCommand[] = [
  { name: '/help', summary: 'list these commands and keys', run: () => ({ say: helpText() }) },
  { name: '/status', summary: "the run's id, model, tokens, calls and store", run: (_, chat) => ({ say: status(chat) }) },
  {
    name: '/retry',
    summary: 'ask the unanswered turn again (after a stopped or failed answer)',
    run: (_, chat) => {
      const state = chat.state();
      if (awaitsAnswer(state)) return { retry: true };
      return { say: `nothing to retry: ${state.messages.length === 0 ? 'no turn was typed yet' : 'the last turn was answered'}` };
    },
  },
  {
    name: '/model',
    args: '[NAME]',
    arity: [0, 1],
    summary: "list the provider's models; with NAME, go on with that model (in a new run of the conversation)",
    run: ([name], chat) => (name === undefined ? listModels(chat) : switchTo(name, chat)),
  },
  {
    name: '/tools',
    summary: 'show tool output from now on (and the last calls\'), or hide it again: as Ctrl-O',
    run: (_, chat) => {
      if (chat.toggleToolOutput === undefined) return { say: 'tool output cannot be shown here' };
      chat.toggleToolOutput();
      return { say: '' };
    },
  },
  {
    name: '/compact',
    summary: 'summarize the conversation so far and go on in a new run from the summary (nothing is deleted)',
    run: () => ({ compact: true }),
  },
  {
    name: '/fork',
    args: '[NAME]',
    arity: [0, 1],
    summary: 'fork the run here and go on in the fork',
    run: async ([name], chat) => {
      if (chat.store === null) return { say: NOT_JOURNALED };
      const refused = name === undefined ? null : await chat.forkNameRefusal(name);
      return refused !== null ? { say: `/fork: ${refused}` } : { end: 'fork', ...(name !== undefined ? { name } : {}) };
    },
  },
  {
    name: '/drop',
    summary: 'go on without the unanswered turn, in a fork made before it',
    run: (_, chat) => {
      if (chat.store === null) return { say: NOT_JOURNALED };
      const why = undroppable(chat.state());
      return why !== null ? { say: `nothing to drop: ${why}` } : { end: 'fork', drop: true };
    },
  },
  {
    name: '/rewind',
    args: '[N]',
    arity: [0, 1],
    summary: 'go back to before turn N typed earlier (the conversation, its files, or both); without N, list them',
    run: ([n], chat) => rewind(n, chat),
  },
  {
    name: '/export',
    args: 'FILE',
    arity: [1, 1],
    summary: 'write the run to FILE (.html, .jsonl, else Markdown)',
    run: async ([file], chat) => ({ say: await chat.exportTo(file!) }),
  },
  { name: '/exit', summary: 'end the chat (kept: --resume continues it)', run: () => ({ end: 'exit' }) },
];

export const COMMAND_NAMES: readonly string[] = CHAT_COMMANDS.map((c) => c.name);

/** How a rewind is offered, in the order asked. */
const REWIND_KINDS = ['conversation and files', 'conversation only', 'files only'] as const;

/**
 * /rewind: the typed turns listed; /rewind N asks what to take back to before
 * turn N. The conversation (with or without its files) goes on in a fork made
 * before it; the files alone are restored where the chat is. Either way the
 * turn's text is put back at the prompt, to change and send.
 */
async function rewind(n: string | undefined, chat: ChatContext): Promise<Typed> {
  if (chat.store === null || chat.typedTurns === undefined) return { say: NOT_JOURNALED.replace('forked', 'rewound') };
  const turns = await chat.typedTurns();
  if (turns.length === 0) return { say: 'nothing to rewind to: no turn was typed into this chat yet' };
  let picked = n;
  if (picked === undefined) {
    const width = String(turns.length).length;
    const list = turns.map((t, i) => `  ${String(i + 1).padStart(width)}  ${sanitizeLine(t.text).slice(0, 72)}`);
    const listed = ['the turns typed here (/rewind N goes back to before turn N):', ...list].join('\n');
    if (chat.ask === undefined) return { say: listed };
    chat.say?.(listed);
    picked = (await chat.ask(`back to before which turn (1-${turns.length}; Enter: none)? `))?.trim() ?? '';
    if (picked === '') return { say: 'nothing was rewound' };
  }
  const index = Number(picked);
  if (!Number.isSafeInteger(index) || index < 1 || index > turns.length) return { say: `/rewind takes a turn from 1 to ${turns.length}; /rewind lists them` };
  const turn = turns[index - 1]!;
  const asked = chat.ask === undefined ? '1' : await chat.ask(`back to before turn ${index}: ${REWIND_KINDS.map((k, i) => `${i + 1}) ${k}`).join('  ')}? `);
  const kind = REWIND_KINDS[Number(asked?.trim()) - 1];
  if (kind === undefined) return { say: 'nothing was rewound' };
  // Files are changed only once the operator saw which, as `session rewind` asks on a terminal.
  if (kind !== 'conversation only' && chat.rewindPlan !== undefined && chat.ask !== undefined) {
    chat.say?.((await chat.rewindPlan(turn)).replace(/\n$/, ''));
    const go = await chat.ask('go ahead? [y/N] ');
    if (go === null || !/^y(es)?$/i.test(go.trim())) return { say: 'nothing was rewound' };
  }
  if (kind === 'files only') {
    if (chat.rewindFiles === undefined) return { say: 'the files of this chat cannot be rewound here' };
    return { say: await chat.rewindFiles(turn), prefill: turn.text };
  }
  return { end: 'fork', rewind: { turn, files: kind === 'conversation and files' } };
}

export function helpText(): string {
  const usage = (c: ChatCommand): string => (c.args === undefined ? c.name : `${c.name} ${c.args}`);
  const width = Math.max(...CHAT_COMMANDS.map((c) => usage(c).length), '//'.length);
  const keyWidth = Math.max(...CHAT_KEYS.map(([k]) => k.length));
  return [
    ...CHAT_COMMANDS.map((c) => `  ${usage(c).padEnd(width)}  ${c.summary}`),
    `  ${'//'.padEnd(width)}  a turn starting with /: //etc/hosts sends /etc/hosts`,
    '',
    ...CHAT_KEYS.map(([k, what]) => `  ${k.padEnd(keyWidth)}  ${what}`),
  ].join('\n');
}

/** A typed line read: the text sent keeps the line as typed, but for a doubled slash. */
export async function readTyped(line: string, chat: ChatContext): Promise<Typed> {
  const start = line.length - line.trimStart().length;
  const text = line.slice(start);
  if (!text.startsWith('/')) return { turn: line };
  if (text.startsWith('//')) return { turn: line.slice(0, start) + text.slice(1) };
  const [name = '/', ...args] = text.trim().split(/\s+/);
  const command = CHAT_COMMANDS.find((c) => c.name === name);
  if (command === undefined) return { say: `unknown command ${sanitizeLine(name)}; /help lists them` };
  const [min, max] = command.arity ?? [0, 0];
  if (args.length < min || args.length > max) {
    const takes = command.args === undefined ? 'takes no arguments' : `takes ${command.args}`;
    return { say: `${name} ${takes}; /help lists the commands` };
  }
  try {
    return await command.run(args, chat);
  } catch (err) {
    return { say: `${name}: ${sanitizeLine(err instanceof Error ? err.message : String(err))}` };
  }
}
