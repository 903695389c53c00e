/** `logbook session search`: its options and help; what it does (search.ts) loads only when it runs. */
import { Option, type Command } from 'commander';
import type { Environment } from '../environment.js';
import { parseDuration, parsePointInTime, UNITS_HELP } from '../durations.js';
import { helpAfter } from '../help.js';
import { parseCount, parseStatuses, STATUS_HELP } from '../options.js';
import { addStoreOptions } from '../store.js';
import type { SearchFlags } from './search.js';

const SEARCH_HELP = `
TEXT is found case-insensitively in a run's prompt, the model's prose and
thinking, tool calls (name and arguments), tool results (a command's output)
and the operator's follow-ups, as it is typed and however long. With --regex
it is a JavaScript regular expression of at most 1,000 characters, also
case-insensitive, matched apart from the command: Ctrl-C stops it at once, and
one that spends longer than --regex-timeout (10s) on a single record stops the
search with exit 1 (nested repeats such as (a+)+ can take exponential time).
Each match prints the run id, the record's seq, where it is (prompt,
assistant, thinking, tool_call, tool_result, user) and the text around it, one
line each, at most one per record and place; runs come newest first (by last
change), records in order.
A fork (session fork, or a completed run continued as a new run) holds a copy
of its origin's records: a match in one of those is shown once, on the newest
run holding it. A compacted run's continuation holds a summary of it, and
the compacted run keeps every record: both are searched. --lineage RUN
searches one conversation: RUN's origins, forks and continuations. With
--json each match names its conversation (the id of its first run).

--since takes a duration back from now (90s, 30m, 2h, 3d, 1w) or a date or
time (2026-11-30, 2026-11-30T14:00 in local time, or RFC 3339 with a zone):
only runs changed since then are searched. --status takes the statuses
\`session ls\` shows, one or several separated by commas.

No match is not an error: the command says so on stderr and exits 0. A run
that cannot be read is named on stderr, the search goes on, and the command
exits 1 at the end. Examples:
  logbook session search "connection refused"
  logbook session search --regex 'rm -rf?' --status completed --since 3d
  logbook session search timeout --json --limit 20`;

export function registerSearchCommand(session: Command, environment: Environment): void {
  addStoreOptions(
    session
      .command('search')
      .description('find runs whose prompt, messages, tool calls or results contain TEXT, newest first')
      .argument('<text>', 'the text to find (case-insensitive); with --regex, a regular expression')
      .option('--json', 'one JSON object per match: run_id, seq, role, snippet, status, updated, conversation')
      .option('--status <status>', `only runs in these statuses (${STATUS_HELP})`, parseStatuses)
      .option('--since <when>', `only runs changed since WHEN: a duration back from now (2h, 3d; units ${UNITS_HELP}) or a date (2026-11-30, 2026-11-30T09:15)`, (v) => parsePointInTime(v))
      .option('--regex', 'TEXT is a regular expression (JavaScript syntax, case-insensitive, at most 1,000 characters)')
      .addOption(
        new Option('--regex-timeout <duration>', 'how long --regex may spend on one record before the search stops (default 10s; a duration such as 30s or 2m)').argParser((v) =>
          parseDuration(v),
        ),
      )
      .addOption(new Option('--limit <n>', 'stop after N matches').argParser(parseCount))
      .option('--lineage <id>', "only the runs of that run's conversation: its origins, forks and continuations"),
  )
    .option('--no-color', 'no color (also NO_COLOR=1)')
    .option('--verbose', 'show where an error came from (also LOGBOOK_DEBUG=1)')
    .addHelpText('after', `${SEARCH_HELP}\n${helpAfter(['LOGBOOK_CONFIG', 'LOGBOOK_DEBUG', 'XDG_STATE', 'NO_COLOR'], ['ok', 'error', 'usage', 'interrupted'])}`)
    .action(async (text: string, flags: SearchFlags) => {
      const { searchSessions } = await import('./search.js');
      process.exitCode = await searchSessions(environment, text, flags);
    });
}
