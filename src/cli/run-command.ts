/**
 * The `run` command's options. What it does lives in run.ts and loads only when
 * the command runs, so other commands start without the agent, its providers and
 * its tools.
 */
import { Option, type Command } from 'commander';
import type { Environment } from './environment.js';
import { helpAfter } from './help.js';
import type { RunFlags } from './run.js';
import { CONFIG_SEARCH } from './store.js';

const EXAMPLES = `
Every run is journaled (unless --ephemeral), so it can be continued:
  logbook run "Why is the build slow?"          a one-shot run
  logbook run --chat                            a chat; /help lists its commands
  logbook run -c "and the tests?"               a follow-up to the newest run started here
  logbook run --resume i8dj "and then?"         a follow-up to the run whose id holds i8dj (a completed
                                                run continues as a new run: one conversation in session ls)
  logbook run --resume                          choose the run to continue (on a terminal; this directory's first)
  logbook run --model claude-opus-4-1 --append-system "Answer in French." "Why?"
                                                another model and more of a system prompt, for this run

A tool with confirm: true in the config asks before each call on a terminal; elsewhere the
run stops before the call (exit 3) and is continued with the answer:
  logbook run --resume ID --approve CALL_ID     run the call (--approve all: every call of that batch)
  logbook run --resume ID --deny CALL_ID --reason "not on Fridays"   (--deny all: every call of that batch)
A run stopped while a side_effects tool ran is not resumed until told what to do with that call:
  logbook run --resume ID --rerun CALL_ID       run it again
  logbook run --resume ID --skip CALL_ID        do not; the model reads that it was not re-run`;

/** A repeatable option's values, in order. */
const collect = (value: string, previous: string[] | undefined): string[] => [...(previous ?? []), value];

export function registerRunCommand(program: Command, environment: Environment): void {
  program
    .command('run')
    .description('run the agent on a prompt, journaled; continue a run with --resume or --continue')
    .argument('[prompt...]', 'the prompt (else read from stdin when piped); with --resume or --continue, a follow-up')
    .option('--config <file>', `the config file (default: ${CONFIG_SEARCH})`)
    .option('--name <id>', 'the new run\'s id (default: generated from the clock)')
    .option('--ephemeral', 'do not journal this run')
    .addOption(new Option('--checkpoint', 'journal the run (the default; kept for scripts)').hideHelp())
    .option('-r, --resume [id]', 'continue a journaled run (its id, or a unique part of it); without an id, choose one')
    .option('-c, --continue', 'continue the newest run started in this directory that this config can continue (it says which it passed over, and why)')
    .option('--all', 'with --continue, look at every run of the store, not only those started in this directory')
    .option('--force', 'continue even though the configuration drifted (never across providers)')
    .option('--model <name>', "the model to use instead of the config's (the run's fingerprint records it; resume with it again)")
    .addOption(new Option('--system <text>', "the system prompt instead of the config's").conflicts('systemFile'))
    .option('--system-file <file>', "the system prompt read from FILE instead of the config's")
    .option('--append-system <text>', "text added to the system prompt (the config's, or --system's), after a blank line")
    .option('--approve <call-id>', 'on resume, approve that call of the batch in flight, or all of them (repeatable)', collect)
    .option('--deny <call-id>', 'on resume, deny that call of the batch in flight, or all of them: the model reads that it was denied (repeatable)', collect)
    .option('--reason <text>', 'with --deny, why: the model reads it')
    .option('-y, --yes', 'approve every call that asks for an approval, for this invocation')
    .option('--rerun <call-id>', 'on resume, run again the call with side effects the run stopped in')
    .option('--skip <call-id>', 'on resume, do not run again the call with side effects the run stopped in')
    .option('--chat', 'keep asking for follow-ups (one stdin line each when not a terminal); /help lists its commands and keys')
    .option('--replay <what>', 'on resume, narrate all of the journaled conversation, or the tail (the default: the last few turns)')
    .option('--json', 'stdout is the run\'s records as JSON lines, each as it becomes durable, byte for byte as stored (meta first)')
    .option('--state-dir <dir>', 'keep file-store runs in DIR/runs')
    .addOption(new Option('--no-tui', 'no spinner or other terminal decoration'))
    .addOption(new Option('--no-color', 'no color (also: NO_COLOR=1)'))
    .option('--plain', "show the model's text as written, not rendered as Markdown (as when stdout is piped)")
    .option('--tool-output', 'show tool results as they arrive')
    .option('--verbose', 'show thinking, per-turn usage and every warning the provider SDK gives; stack traces for unexpected errors')
    .addHelpText('after', `${EXAMPLES}\n${helpAfter(['LOGBOOK_CONFIG', 'LOGBOOK_DEBUG', 'LOGBOOK_PROVIDER', 'ANTHROPIC', 'XDG_STATE', 'NO_COLOR', 'OTEL'], ['ok', 'error', 'usage', 'awaiting', 'budget', 'maxIterations', 'refused', 'spendCap', 'cut', 'suspended'])}`)
    .action(async (words: string[], flags: RunFlags) => {
      const { executeRun } = await import('./run.js');
      process.exitCode = await executeRun(words, flags, environment);
    });
}
