/** The environment variables and exit codes a command's --help lists. */
import { ENVIRONMENT_HELP } from './environment.js';
import { EXIT } from './exit-codes.js';

const EXIT_MEANINGS: Record<keyof typeof EXIT, string> = {
  ok: 'done',
  error: 'an error (one line on stderr says what and how to fix it; --verbose or LOGBOOK_DEBUG=1 adds where)',
  usage: 'a usage error (unknown option, missing argument)',
  suspended: 'a run was suspended (Ctrl-C, SIGTERM, SIGHUP, SIGQUIT); it can be resumed',
  interrupted: 'stopped by Ctrl-C, SIGTERM, SIGHUP or SIGQUIT; nothing was changed',
};

/** `--help` text after the options: the variables named (all when none are), and the exit codes given. */
export function helpAfter(variables: readonly string[] | 'all', exits: readonly (keyof typeof EXIT)[]): string {
  const vars = ENVIRONMENT_HELP.filter(([name]) => variables === 'all' || variables.some((v) => name.startsWith(v)));
  const width = Math.max(...vars.map(([name]) => name.length));
  const env = vars.map(([name, what]) => `  ${name.padEnd(width)}  ${what}`).join('\n');
  const codes = exits.map((e) => `  ${String(EXIT[e]).padEnd(3)}  ${EXIT_MEANINGS[e]}`).join('\n');
  return `\nEnvironment:\n${env}\n\nExit codes:\n${codes}`;
}
