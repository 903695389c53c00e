/**
 * What `logbook completion` and `logbook complete` do (completion.ts registers
 * them): the @bomb.sh/tab tree of the command line, with run ids read from the
 * store the words name. Loaded only when one of the two runs.
 */
import { Command } from 'commander';
import type { RootCommand } from '@bomb.sh/tab';
import { sanitizeLine } from '../render/index.js';
import { LISTED_STATUSES, type RunInfo } from '../store/store.js';
import type { Environment } from './environment.js';
import { truncate } from './output.js';
import { newestFirst } from './session/ls.js';
import { withStore } from './store.js';

/** Arguments that take run ids: their values are completed from the store. */
const RUN_ID_ARGUMENT = /^(id|ids|run|runs)$/;
/** Options that take a run id. */
const RUN_ID_OPTIONS = ['--resume', '-r'];
/** Options that take statuses. */
const STATUS_OPTION = 'status';

/** The store flags a command line gives, found without knowing its other options. */
function storeFlagsOf(words: readonly string[]): { config?: string; stateDir?: string } {
  const probe = new Command()
    .option('--config <file>')
    .option('--state-dir <dir>')
    .option('--from-config <file>')
    .option('--from-state-dir <dir>')
    .allowUnknownOption()
    .allowExcessArguments();
  probe.parseOptions([...words]);
  const o = probe.opts<{ config?: string; stateDir?: string; fromConfig?: string; fromStateDir?: string }>();
  const config = o.config ?? o.fromConfig;
  const stateDir = o.stateDir ?? o.fromStateDir;
  return { ...(config !== undefined ? { config } : {}), ...(stateDir !== undefined ? { stateDir } : {}) };
}

/** The command `words` (before the one being completed) lead to, options and their values skipped. */
function commandAt(program: Command, words: readonly string[]): Command {
  let command = program;
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (word.startsWith('-')) {
      const option = command.options.find((o) => o.long === word || o.short === word);
      if (option?.required) i++; // its value
      continue;
    }
    const sub = command.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub !== undefined) command = sub;
  }
  return command;
}

/** Whether completing the last of `words` may offer run ids. */
export function wantsRunIds(program: Command, words: readonly string[]): boolean {
  const before = words.slice(0, -1);
  if (RUN_ID_OPTIONS.includes(before[before.length - 1] ?? '')) return true;
  if ((words[words.length - 1] ?? '').startsWith('-')) return false;
  return commandAt(program, before).registeredArguments.some((a) => RUN_ID_ARGUMENT.test(a.name()));
}

/** The runs of the store the words name, newest first; none when it cannot be opened. */
export async function runsFor(environment: Environment, words: readonly string[]): Promise<RunInfo[]> {
  try {
    return newestFirst(await withStore(environment, storeFlagsOf(words), (store) => store.list()));
  } catch {
    return []; // no store here, or it is unreachable: complete the rest
  }
}

/**
 * The run ids to offer for the word being completed (the last of `words`), as
 * an id is resolved (store/resolve.ts): those it starts, else the one run whose
 * id holds it. The library keeps only what starts with the word, so for that
 * one run the word is given to it as empty (the words to parse are returned).
 */
export function runIdCompletion(runs: RunInfo[], words: readonly string[]): { runs: RunInfo[]; words: string[] } {
  const typed = words[words.length - 1] ?? '';
  if (typed === '' || runs.some((r) => r.runId.startsWith(typed))) return { runs, words: [...words] };
  const holding = runs.filter((r) => r.runId.includes(typed));
  return holding.length === 1 ? { runs: holding, words: [...words.slice(0, -1), ''] } : { runs: [], words: [...words] };
}

/** The tab library's tree for `program`, with run ids and statuses where they are taken. */
export async function completionTree(program: Command, runs: readonly RunInfo[], shells: readonly string[]): Promise<RootCommand> {
  const { default: tab } = await import('@bomb.sh/tab/commander');
  const root = tab(program, { completionCommandName: 'completion' });
  const runIds = (complete: (value: string, description: string) => void): void => {
    for (const r of runs) complete(r.runId, truncate(`${r.status}: ${sanitizeLine(r.prompt)}`, 60));
  };
  const statuses = (complete: (value: string, description: string) => void): void => {
    for (const s of LISTED_STATUSES) complete(s, '');
  };
  const shell = root.commands.get('completion')?.arguments.get('shell');
  if (shell !== undefined) shell.handler = (complete) => shells.forEach((name) => complete(name, ''));
  for (const command of [root, ...root.commands.values()]) {
    for (const argument of command.arguments.values()) if (RUN_ID_ARGUMENT.test(argument.name)) argument.handler = runIds;
    for (const option of command.options.values()) {
      if (RUN_ID_OPTIONS.includes(`--${option.value}`)) option.handler = runIds;
      if (option.value === STATUS_OPTION) option.handler = statuses;
    }
  }
  return root;
}

