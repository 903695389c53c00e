/**
 * The command's one error path: whatever goes wrong ends as one line on stderr,
 * `logbook: <what is wrong>`, and an exit code. A stack trace only when asked
 * for, with --verbose or LOGBOOK_DEBUG=1.
 */
import { CommanderError } from 'commander';
import { isLogbookError, redactUrlCredentials } from '../core/index.js';
import { sanitize, sanitizeLine } from '../render/sanitize.js';
import { withAdvice } from './advice.js';
import { EXIT, type ExitCode } from './exit-codes.js';

/** --verbose anywhere before `--`, or LOGBOOK_DEBUG=1 (`debugEnv`). */
export function debugWanted(argv: readonly string[], debugEnv: boolean): boolean {
  if (debugEnv) return true;
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--verbose');
}

export interface ReportOptions {
  verbose: boolean;
  write?: (text: string) => void;
}

/**
 * A message as stderr shows it (an error, a warning): safe on a terminal, and
 * no URL's credentials in it, whatever it came from.
 */
export const messageLine = (text: string): string => redactUrlCredentials(sanitizeLine(text));

/**
 * Where a provider SDK's warnings go (a deprecated model, said on every
 * request): the first of a command's in one line, through `say` (which draws
 * it clear of a spinner's line); with --verbose every other one too, each once.
 */
export function sdkWarningSink(say: (line: string) => void, verbose: boolean): (message: string) => void {
  const said = new Set<string>();
  return (message) => {
    const line = oneLine(message);
    if (said.size === 0 || (verbose && !said.has(line))) say(`warning: ${line}`);
    said.add(line);
  };
}

/** One line of messageLine. */
const oneLine = (text: string): string => messageLine(text).replace(/\s+/g, ' ').trim();

/** Prints `err` the way the command does and returns the exit code it calls for. */
export function reportError(reported: unknown, options: ReportOptions): ExitCode {
  const err = withAdvice(reported);
  const write = options.write ?? ((text: string) => process.stderr.write(text));
  if (err instanceof CommanderError) {
    // Help and version were printed by commander. Help asked for (`help run`) exits 0 as --help
    // does; help shown for a missing or unknown command (commander's exit code 1) is a usage error.
    if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT.ok;
    if (err.code === 'commander.help') return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    write(`logbook: ${oneLine(err.message.replace(/^error: /, ''))} (see --help)\n`);
    return EXIT.usage;
  }
  // A stack starts with the message, which may quote an API server or a journal.
  const stack = options.verbose && err instanceof Error && err.stack ? `${redactUrlCredentials(sanitize(err.stack))}\n` : '';
  if (isLogbookError(err)) {
    write(`logbook: ${oneLine(err.message)}\n${stack}`);
    return err.code === 'usage' ? EXIT.usage : err.code === 'budget_reached' ? EXIT.budget : err.code === 'spend_cap_reached' ? EXIT.spendCap : err.code === 'workspace_conflict' ? EXIT.workspaceConflict : EXIT.error;
  }
  const message = err instanceof Error ? err.message : String(err);
  const hint = options.verbose ? '' : ' (LOGBOOK_DEBUG=1 shows where)';
  write(`logbook: unexpected error: ${oneLine(message)}${hint}\n${stack}`);
  return EXIT.error;
}
