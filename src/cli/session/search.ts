/**
 * `logbook session search TEXT`: the runs whose prompt, model turns, tool calls,
 * tool results or follow-ups contain TEXT, newest runs first, one line per
 * match: the search is api/search.ts's, which this prints. Plain text is
 * matched as it is; a --regex runs in a worker (bounded-regex.ts) that a stop
 * signal and a deadline end.
 */
import { searchRuns, searchedRuns, type SearchHit } from '../../api/search.js';
import { LogbookError, MAX_PATTERN_LENGTH, isLogbookError, literalMatcher, type TextMatcher } from '../../core/index.js';
import { sanitizeLine, snippet } from '../../render/index.js';
import { byId, lineageRoot } from '../../store/lineage.js';
import { resolveRunId } from '../../store/resolve.js';
import type { ListedStatus, RunInfo } from '../../store/store.js';
import type { Environment } from '../environment.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { onStopSignals } from '../signals.js';
import { outputGone } from '../stdio.js';
import { withStore, type StoreFlags } from '../store.js';
import { terminalFor, type Terminal } from '../terminal.js';
import { BoundedRegex } from './bounded-regex.js';
import { writeOut } from './streaming.js';

/** How long a --regex may spend on one record unless --regex-timeout says otherwise. */
export const DEFAULT_REGEX_TIMEOUT_MS = 10_000;

export interface SearchFlags extends StoreFlags {
  json?: boolean;
  status?: ListedStatus[];
  since?: Date;
  regex?: boolean;
  /** Milliseconds a --regex may spend on one record. */
  regexTimeout?: number;
  limit?: number;
  verbose?: boolean;
  color: boolean;
  /** Only the runs of this run's conversation (an id, or a unique part of one). */
  lineage?: string;
}

const ROLE_WIDTH = Math.max(...(['prompt', 'assistant', 'thinking', 'tool_call', 'tool_result', 'user'] as const).map((r) => r.length));

/** A hit as printed: `conversation` is the id of its conversation's first run (lineage.ts lineageRoot). */
function hitLine(hit: SearchHit, run: RunInfo, flags: SearchFlags, term: Terminal, conversation: string): string {
  if (flags.json) {
    const fields = { run_id: hit.runId, seq: hit.seq, role: hit.role, snippet: snippet(hit.text, hit.index, hit.length), status: run.status, updated: run.updated, conversation };
    return `${JSON.stringify(fields)}\n`;
  }
  const head = `${hit.runId}  ${String(hit.seq).padStart(5)}  ${hit.role.padEnd(ROLE_WIDTH)}  `;
  // On a terminal the context fills the line; piped, a fixed amount either side.
  const around = term.columns === undefined ? 40 : Math.max(10, Math.floor((term.columns - head.length - Math.min(hit.length, 40) - 2) / 2));
  const mark = (s: string): string => term.style.strong(s);
  return `${term.style.faint(head)}${snippet(hit.text, hit.index, hit.length, { around, mark })}\n`;
}

/** The --regex, checked in the flag's own words, running in its worker. */
function regexMatcher(pattern: string, flags: SearchFlags, signal: AbortSignal): BoundedRegex {
  const length = [...pattern].length;
  if (length > MAX_PATTERN_LENGTH) {
    throw new LogbookError(
      'usage',
      `--regex takes a pattern of at most ${MAX_PATTERN_LENGTH.toLocaleString('en-US')} characters, and this one has ${length.toLocaleString('en-US')}; ` +
        'to find plain text of any length, drop --regex',
    );
  }
  try {
    return new BoundedRegex(pattern, { deadlineMs: flags.regexTimeout ?? DEFAULT_REGEX_TIMEOUT_MS, deadlineOption: '--regex-timeout', signal });
  } catch (err) {
    throw isLogbookError(err, 'usage') ? new LogbookError('usage', `--regex ${err.message}`, { cause: err }) : err;
  }
}

export async function searchSessions(environment: Environment, text: string, flags: SearchFlags): Promise<ExitCode> {
  const since = flags.since;
  const term = terminalFor(process.stdout, { color: flags.color, env: environment.env });
  const stop = onStopSignals(() => {});
  // A reader that left (`| head -1`) has read all it wanted: the search ends there.
  const unread = outputGone('stdout');
  const ended = AbortSignal.any([stop.signal, unread]);
  let matcher: TextMatcher | BoundedRegex | undefined;
  try {
    matcher = flags.regex ? regexMatcher(text, flags, ended) : literalMatcher(text);
    const using = matcher;
    return await withStore(environment, flags, async (store) => {
      const listed = await store.list({ origins: true });
      const filter = {
        ...(flags.status !== undefined ? { statuses: flags.status } : {}),
        ...(since !== undefined ? { since } : {}),
        ...(flags.lineage !== undefined ? { lineage: await resolveRunId(store, flags.lineage) } : {}),
      };
      const all = byId(listed);
      const runs = searchedRuns(listed, filter);
      const unreadable: string[] = [];
      const onUnreadable = (id: string, err: LogbookError): void => {
        unreadable.push(id);
        process.stderr.write(`logbook: cannot search run ${id}: ${sanitizeLine(err.message)}\n`);
      };
      let shown = 0;
      const hits = searchRuns(store, using, { ...filter, listed, signal: ended, onUnreadable, ...(flags.limit !== undefined ? { limit: flags.limit } : {}) });
      for await (const hit of hits) {
        await writeOut(hitLine(hit, hit.run, flags, term, lineageRoot(all, hit.runId)));
        shown++;
      }
      if (stop.signal.aborted) return EXIT.interrupted;
      if (unread.aborted) return EXIT.ok;
      if (shown === 0) process.stderr.write(`no match in ${runs.length} run${runs.length === 1 ? '' : 's'} of the ${store.location}\n`);
      if (unreadable.length > 0) {
        throw new LogbookError('unreadable', `${unreadable.length} run${unreadable.length === 1 ? '' : 's'} could not be searched (named above); \`logbook session show ID\` says what is wrong with one`);
      }
      return EXIT.ok;
    });
  } finally {
    if (matcher instanceof BoundedRegex) await matcher.close();
    stop.dispose();
  }
}
