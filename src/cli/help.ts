/** The environment variables and exit codes a command's --help lists. */
import { ENVIRONMENT_HELP } from './environment.js';
import { EXIT } from './exit-codes.js';

const EXIT_MEANINGS: Record<keyof typeof EXIT, string> = {
  ok: 'done',
  error: 'an error (one line on stderr says what and how to fix it; --verbose or LOGBOOK_DEBUG=1 adds where)',
  usage: 'a usage error (unknown option, missing argument, a run id that is part of several ids)',
  awaiting: 'a run stopped before a call that needs an approval (no terminal to ask on); --approve or --deny continues it',
  budget: 'a run stopped at its token budget (budget in the config), or a compaction was refused at it; raise it, then resume',
  maxIterations: 'a run stopped at max_iterations; a resume goes on (a chat), or a raised limit and --force (a one-shot)',
  refused: 'the model refused to answer (stop reason "refusal"); a follow-up PROMPT to the run can rephrase',
  spendCap: 'a run stopped at a spend cap (budget_usd or lineage_budget_usd in the config), or a compaction was refused at one; raise it, then resume',
  cut: "a run completed on a final answer cut short at max_tokens; raise it, then a follow-up PROMPT with --force asks for the rest",
  workspaceConflict: 'a rewind (or --undo, --redo) refused before it changed a file: a path in the workspace holds what the snapshot does not track; move it away, then try again',
  suspended: 'a run was suspended (Ctrl-C, SIGTERM, SIGHUP, SIGQUIT); it can be resumed',
  interrupted: 'stopped by Ctrl-C, SIGTERM, SIGHUP or SIGQUIT; nothing was changed',
};

/** Which commands a meaning belongs to, where a code has two. */
const SHARED_CODE_CONTEXT: Partial<Record<keyof typeof EXIT, string>> = {
  interrupted: 'for a command that only reads (session watch, session search)',
};

/** What every command that opens a store honours: where the config is found, where runs live, --verbose's twin. */
export const STORE_VARIABLES: readonly string[] = ['LOGBOOK_CONFIG', 'LOGBOOK_DEBUG', 'XDG_STATE_HOME', 'XDG_CONFIG_HOME'];

/** `--help` text after the options: the variables named (all when none are), and the exit codes given. */
export function helpAfter(variables: readonly string[] | 'all', exits: readonly (keyof typeof EXIT)[]): string {
  const vars = ENVIRONMENT_HELP.filter(([name]) => variables === 'all' || variables.some((v) => name.startsWith(v)));
  const width = Math.max(...vars.map(([name]) => name.length));
  const env = vars.map(([name, what]) => `  ${name.padEnd(width)}  ${what}`).join('\n');
  // A code listed with two meanings (130: a run suspended, or a command that only reads stopped) is shown once.
  const codes = exits
    .map((e, i) => {
      const again = exits.slice(0, i).some((d) => EXIT[d] === EXIT[e]);
      return again ? `       or, ${SHARED_CODE_CONTEXT[e] ?? ''}: ${EXIT_MEANINGS[e]}` : `  ${String(EXIT[e]).padEnd(3)}  ${EXIT_MEANINGS[e]}`;
    })
    .join('\n');
  return `${vars.length > 0 ? `\nEnvironment:\n${env}\n` : ''}\nExit codes:\n${codes}`;
}

/** The --help text after the options of a command that opens a store, with the other variables it honours. */
export function storeCommandHelp(more: readonly string[] = []): string {
  return helpAfter([...STORE_VARIABLES, ...more], ['ok', 'error', 'usage']);
}
