/**
 * The `run` command's options. What it does lives in run.ts and loads only when
 * the command runs, so other commands start without the agent, its providers and
 * its tools.
 */
import { Option, type Command } from 'commander';
import { DEFAULT_CONFIG_FILE } from '../config/config.js';
import type { Environment } from './environment.js';
import type { RunFlags } from './run.js';

export function registerRunCommand(program: Command, environment: Environment): void {
  program
    .command('run')
    .description('run the agent on a prompt; journal it with --checkpoint, continue one with --resume')
    .argument('[prompt...]', 'the prompt (else read from stdin when piped)')
    .option('--config <file>', 'the config file', DEFAULT_CONFIG_FILE)
    .option('--checkpoint', 'journal the run under a generated id (printed at start)')
    .option('--name <id>', 'journal the run under this id')
    .option('--resume <id>', 'resume a journaled run where it stopped')
    .option('--force', 'resume even though the configuration drifted (never across providers)')
    .option('--chat', 'keep asking for follow-ups (stdin lines when not a terminal); /exit or end of input ends it')
    .option('--state-dir <dir>', 'keep file-store runs in DIR/runs')
    .addOption(new Option('--no-tui', 'no spinner or other terminal decoration'))
    .addOption(new Option('--no-color', 'no color (also: NO_COLOR=1)'))
    .option('--tool-output', 'show tool results as they arrive')
    .option('--verbose', 'show thinking and per-turn usage; stack traces for unexpected errors')
    .action(async (words: string[], flags: RunFlags) => {
      const { executeRun } = await import('./run.js');
      process.exitCode = await executeRun(words, flags, environment);
    });
}
