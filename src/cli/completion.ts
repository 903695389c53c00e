/**
 * `logbook completion bash|zsh|fish`: a shell completion script, made by the
 * @bomb.sh/tab library from the command tree (its commander adapter reads every
 * command, option and argument). The script asks `logbook complete -- WORDS`
 * at each TAB, so completions come from logbook itself at completion time: run
 * ids from the store the command line names (--config, --state-dir), the way
 * the completed command would open it. The library loads only for these two
 * commands.
 */
import { Argument, type Command } from 'commander';
import type { Environment } from './environment.js';
import { storeCommandHelp } from './help.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

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

/**
 * The library's bash and zsh scripts match what logbook offers against the
 * word typed, by its start, after logbook has already done so; a run id is
 * also completed from a unique part of it (`i8dj`), which starts no
 * candidate. Here the shell takes what logbook offers as it is: bash without
 * compgen's filter, zsh with compadd's -U (fish matches parts by itself).
 */
function offeredAsGiven(script: string, shell: (typeof SHELLS)[number]): string {
  if (shell === 'bash') {
    return script.replace(
      'COMPREPLY=( $(compgen -W "${completions[*]}" -- "$cur") )',
      'COMPREPLY=()\n    for comp in "${completions[@]}"; do if [[ -n "$comp" ]]; then COMPREPLY+=("$comp"); fi; done',
    );
  }
  if (shell === 'zsh') return script.replace('_describe $keepOrder "completions" completions -Q', '_describe $keepOrder "completions" completions -U -Q');
  return script;
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
      const { completionTree } = await import('./completion-tree.js');
      const tree = await completionTree(commands(), [], SHELLS);
      const script = offeredAsGiven(printed(() => tree.setup(program.name(), program.name(), shell)), shell);
      process.stdout.write(shell === 'bash' ? sourceableTwice(script, program.name()) : script);
    });
  program
    .command('complete', { hidden: true })
    .description('the completions of a command line, for the completion scripts')
    .argument('[words...]')
    .allowUnknownOption()
    .helpOption(false)
    .action(async (words: string[]) => {
      const { completionTree, runIdCompletion, runsFor, wantsRunIds } = await import('./completion-tree.js');
      const tree = commands();
      if (!wantsRunIds(tree, words)) return (await completionTree(tree, [], SHELLS)).parse(words);
      const offered = runIdCompletion(await runsFor(environment, words), words);
      (await completionTree(tree, offered.runs, SHELLS)).parse(offered.words);
    });
}
