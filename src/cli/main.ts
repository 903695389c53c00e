/**
 * The logbook command. Every failure ends in reportError: one line on stderr
 * and a documented exit code (exit-codes.ts).
 */
import { Command } from 'commander';
import { registerA2ACommands } from './a2a/index.js';
import { registerCompletionCommands } from './completion.js';
import { readEnvironment, type Environment } from './environment.js';

/** For scripts/cli-reference.mjs, which renders every command's help from these same definitions. */
export { readEnvironment };
import { debugWanted, reportError } from './errors.js';
import { EXIT } from './exit-codes.js';
import { helpAfter } from './help.js';
import { registerMcpCommands } from './mcp/index.js';
import { registerRunCommand } from './run-command.js';
import { registerSessionCommands } from './session/index.js';
import { guardStdio } from './stdio.js';
import { configSource, NO_CONFIG } from './store.js';
import { registerUiCommand } from './ui-command.js';
import { packageVersion } from '../api/version.js';

/** Every exit code the command has, for the top-level --help. */
const EXIT_HELP = helpAfter([], Object.keys(EXIT) as (keyof typeof EXIT)[]);


/**
 * The top-level commands, in the order the help lists them, with what adds
 * each group. A command line that names one of them is parsed by a program
 * of that group alone (buildProgram's `for`): the others' definitions are
 * never made, and nothing they define is reached from it.
 */
const COMMANDS: readonly (readonly [readonly string[], (program: Command, environment: Environment) => void])[] = [
  [['run'], registerRunCommand],
  [['session'], registerSessionCommands],
  [['mcp'], registerMcpCommands],
  [['serve', 'ask', 'tasks', 'agents'], registerA2ACommands],
  [['ui'], registerUiCommand],
];

/**
 * The program and its commands. Errors are thrown, not printed: exitOverride
 * turns commander's own exits into CommanderErrors and outputError is silenced
 * so that main prints the one line. Settings are made before any subcommand is
 * added, which copies them. The program has no options of its own: one would
 * take a subcommand's option of the same name away from it (--verbose is read
 * by main from argv). With `for`, the name a command line starts with, only
 * the group of commands it names is added (COMMANDS); any other word, or
 * none, builds them all.
 */
export function buildProgram(environment: Environment, options: { completion?: boolean; for?: string } = {}): Command {
  const program = new Command('logbook')
    .description('an agent runner whose every run is an append-only, resumable journal')
    .version(packageVersion(), '-V, --version')
    .addHelpText('after', `\nWith no command, on a terminal where a config is found, a chat opens (as with run --chat).\n${EXIT_HELP}`)
    .exitOverride()
    .configureOutput({ outputError: () => {} })
    .showSuggestionAfterError(true);
  const named = options.for === undefined ? undefined : COMMANDS.find(([names]) => names.includes(options.for!));
  for (const entry of COMMANDS) if (named === undefined || entry === named) entry[1](program, environment);
  if (named === undefined && options.completion !== false) registerCompletionCommands(program, environment, () => buildProgram(environment, { completion: false }));
  return program;
}

/**
 * A bare `logbook` on a terminal, with a config to be found, opens a chat
 * (`logbook run --chat`); anywhere else it prints the help, and on a terminal
 * with no config also why no chat opened (`noChat`).
 */
function defaultArgs(argv: string[], environment: Environment): { args: string[]; noChat: boolean } {
  const onTerminal = process.stdin.isTTY === true && process.stdout.isTTY === true && process.stderr.isTTY === true;
  if (argv.length > 0 || !onTerminal) return { args: argv, noChat: false };
  return configSource(undefined, environment) !== undefined ? { args: ['run', '--chat'], noChat: false } : { args: argv, noChat: true };
}

/**
 * A closed stdout or stderr ends no command (a run goes on to its end): what
 * is written to it is dropped, and the exit code says whether output was lost
 * (stdio.ts). A terminal that hangs up is a SIGHUP.
 */
export async function main(argv: string[]): Promise<void> {
  guardStdio();
  const environment = readEnvironment();
  const { args, noChat } = defaultArgs(argv, environment);
  try {
    await buildProgram(environment, { for: args[0] }).parseAsync(args, { from: 'user' });
  } catch (err) {
    process.exitCode = reportError(err, { verbose: debugWanted(argv, environment.debug) });
  }
  // Below the help, where it is seen: the one reason no chat opened.
  if (noChat) process.stderr.write(`logbook: no chat opened, as there is ${NO_CONFIG}\n`);
}
