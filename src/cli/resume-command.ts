/** The command that continues a run, as the user would type it from here. */
import { shellQuote } from '../core/index.js';
import { overrideArguments, type OverrideFlags } from './run-overrides.js';

export interface ResumeFlags extends OverrideFlags {
  /** --config, as given. */
  config?: string;
  /** --state-dir, as given. */
  stateDir?: string;
}

/** The --config and --state-dir arguments exactly as the user gave them, so a suggested command finds the same store. */
export function storeArguments(flags: Pick<ResumeFlags, 'config' | 'stateDir'>): string[] {
  return [...(flags.config !== undefined ? ['--config', flags.config] : []), ...(flags.stateDir !== undefined ? ['--state-dir', flags.stateDir] : [])];
}

/**
 * `logbook run --resume ID` with exactly the --config and --state-dir the user
 * gave (a config found by search is found again from the same place), and the
 * --model and system prompt flags the run was given, which its fingerprint holds.
 */
export function resumeCommand(id: string, flags: ResumeFlags): string {
  return shellQuote(['logbook', 'run', '--resume', id, ...storeArguments(flags), ...overrideArguments(flags)]);
}

/** The command that compacts run `id` in the store the flags name (`logbook session compact`). */
export function compactCommand(id: string, flags: ResumeFlags): string {
  return shellQuote(['logbook', 'session', 'compact', id, ...storeArguments(flags)]);
}
