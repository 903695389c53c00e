/**
 * `logbook completion bash|zsh|fish`: a shell completion script, made by the
 * @bomb.sh/tab library from the command tree (its commander adapter reads every
 * command, option and argument). The script asks `logbook complete -- WORDS`
 * at each TAB, so completions come from logbook itself at completion time: run
 * ids from the store the command line names (--config, --state-dir), the way
 * the completed command would open it. The library loads only for these two
 * commands.
 */
import { Argument, Command } from 'commander';
import type { RootCommand } from '@bomb.sh/tab';
import { sanitizeLine } from '../render/index.js';
import { LISTED_STATUSES, type RunInfo } from '../store/store.js';
import type { Environment } from './environment.js';
import { storeCommandHelp } from './help.js';
import { truncate } from './output.js';
import { newestFirst } from './session/ls.js';
import { withStore } from './store.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** Arguments that take run ids: their values are completed from the store. */
const RUN_ID_ARGUMENT = /^(id|ids|run|runs)$/;
/** Options that take a run id. */
const RUN_ID_OPTIONS = ['--resume', '-r'];
/** Options that take statuses. */
const STATUS_OPTION = 'status';

const COMPLETION_HELP = `
Prints a script that makes the shell complete logbook's commands, options,
statuses and run ids; run ids are asked of logbook as you press TAB, from the
store the command line names (--config, --state-dir) or else the default one.
Load it in the shell's startup file:
  bash   eval "$(logbook completion bash)"     (needs the bash-completion package)
  zsh    eval "$(logbook completion zsh)"      (after compinit)
  fish   logbook completion fish | source`;

/** What `write` prints with console.log, which is how the tab library hands out its scripts. */
function printed(write: () => void): string {
  const log = console.log;
  let out = '';
  console.log = (...parts: unknown[]) => void (out += `${parts.join(' ')}\n`);
  try {
    write();
  } finally {
    console.log = log;
  }
  return out;
}

/**
 * The library's bash script declares its directive constants `readonly` and
 * global, so sourcing it again (a second `eval "$(logbook completion bash)"`,
 * a reloaded .bashrc) fails on each, as does a second program whose script the
 * library made. Here they are plain variables under the program's own prefix,
 * so the script can be sourced any number of times beside any other.
 */
function sourceableTwice(script: string, name: string): string {
  return script.replace(/^readonly (ShellCompDirective\w+=)/gm, '$1').replace(/\bShellCompDirective(\w+)/g, `__${name}_ShellCompDirective$1`);
}

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
function wantsRunIds(program: Command, words: readonly string[]): boolean {
  const before = words.slice(0, -1);
  if (RUN_ID_OPTIONS.includes(before[before.length - 1] ?? '')) return true;
  if ((words[words.length - 1] ?? '').startsWith('-')) return false;
  return commandAt(program, before).registeredArguments.some((a) => RUN_ID_ARGUMENT.test(a.name()));
}

/** The runs of the store the words name, newest first; none when it cannot be opened. */
async function runsFor(environment: Environment, words: readonly string[]): Promise<RunInfo[]> {
  try {
    return newestFirst(await withStore(environment, storeFlagsOf(words), (store) => store.list()));
  } catch {
    return []; // no store here, or it is unreachable: complete the rest
  }
}

/** The tab library's tree for `program`, with run ids and statuses where they are taken. */
async function completionTree(program: Command, runs: readonly RunInfo[]): Promise<RootCommand> {
  const { default: tab } = await import('@bomb.sh/tab/commander');
  const root = tab(program, { completionCommandName: 'completion' });
  const runIds = (complete: (value: string, description: string) => void): void => {
    for (const r of runs) complete(r.runId, truncate(`${r.status}: ${sanitizeLine(r.prompt)}`, 60));
  };
  const statuses = (complete: (value: string, description: string) => void): void => {
    for (const s of LISTED_STATUSES) complete(s, '');
  };
  const shells = root.commands.get('completion')?.arguments.get('shell');
  if (shells !== undefined) shells.handler = (complete) => SHELLS.forEach((shell) => complete(shell, ''));
  for (const command of [root, ...root.commands.values()]) {
    for (const argument of command.arguments.values()) if (RUN_ID_ARGUMENT.test(argument.name)) argument.handler = runIds;
    for (const option of command.options.values()) {
      if (RUN_ID_OPTIONS.includes(`--${option.value}`)) option.handler = runIds;
      if (option.value === STATUS_OPTION) option.handler = statuses;
    }
  }
  return root;
}

/**
 * Adds `completion SHELL` and the hidden `complete -- WORDS` its scripts call.
 * `commands` builds the program afresh without these two (the library adds its
 * own to the tree it reads, so that `completion` completes too).
 */
export function registerCompletionCommands(program: Command, environment: Environment, commands: () => Command): void {
  program
    .command('completion')
    .description('print a shell completion script (commands, options, run ids)')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText('after', `${COMPLETION_HELP}\n${storeCommandHelp()}`)
    .action(async (shell: (typeof SHELLS)[number]) => {
      const tree = await completionTree(commands(), []);
      const script = printed(() => tree.setup(program.name(), program.name(), shell));
      process.stdout.write(shell === 'bash' ? sourceableTwice(script, program.name()) : script);
    });
  program
    .command('complete', { hidden: true })
    .description('the completions of a command line, for the completion scripts')
    .argument('[words...]')
    .allowUnknownOption()
    .helpOption(false)
    .action(async (words: string[]) => {
      const tree = commands();
      const runs = wantsRunIds(tree, words) ? await runsFor(environment, words) : [];
      (await completionTree(tree, runs)).parse(words);
    });
}
