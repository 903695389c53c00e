/** The command that continues a run, as the user would type it from here. */
import { shellQuote } from '../agent/tools/command-tool.js';
import { overrideArguments, type OverrideFlags } from './run-overrides.js';

export interface ResumeFlags extends OverrideFlags {
  /** --config, as given. */
  config?: string;
  /** --state-dir, as given. */
  stateDir?: string;
}

/**
 * `logbook run --resume ID` with exactly the --config and --state-dir the user
 * gave (a config found by search is found again from the same place), and the
 * --model and system prompt flags the run was given, which its fingerprint holds.
 */
export function resumeCommand(id: string, flags: ResumeFlags): string {
  const argv = ['logbook', 'run', '--resume', id];
  if (flags.config !== undefined) argv.push('--config', flags.config);
  if (flags.stateDir !== undefined) argv.push('--state-dir', flags.stateDir);
  argv.push(...overrideArguments(flags));
  return shellQuote(argv);
}

/** The command that compacts run `id` in the store the flags name (`logbook session compact`). */
export function compactCommand(id: string, flags: ResumeFlags): string {
  const argv = ['logbook', 'session', 'compact', id];
  if (flags.config !== undefined) argv.push('--config', flags.config);
  if (flags.stateDir !== undefined) argv.push('--state-dir', flags.stateDir);
  return shellQuote(argv);
}
