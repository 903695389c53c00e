/**
 * `logbook session search TEXT`: the runs whose prompt, model turns, tool calls,
 * tool results or follow-ups contain TEXT, newest runs first, one line per
 * match. Journals are read as streams, a record at a time, and lines that
 * cannot match are not even decoded; nothing holds a whole run, let alone the
 * whole store, and --limit stops the reading at the last match it shows. A
 * record a fork holds as a copy of its origin's (lineage.ts) is one record: a
 * match in it is shown once, on the newest run that holds it.
 */
import { LogbookError, textMatcher, type TextMatcher } from '../../core/index.js';
import { sanitizeLine, searchPlaces, snippet, type SearchRole } from '../../render/index.js';
import { byId, writtenIn } from '../../store/lineage.js';
import type { ListedStatus, RunInfo, Store } from '../../store/store.js';
import type { Environment } from '../environment.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { onStopSignals } from '../signals.js';
import { withStore, type StoreFlags } from '../store.js';
import { terminalFor, type Terminal } from '../terminal.js';
import { newestFirst } from './ls.js';
import { writeOut } from './streaming.js';

export interface SearchFlags extends StoreFlags {
  json?: boolean;
  status?: ListedStatus[];
  since?: Date;
  regex?: boolean;
  limit?: number;
  verbose?: boolean;
  color: boolean;
}

export interface SearchHit {
  runId: string;
  seq: number;
  role: SearchRole;
  /** The text the match is in, and where. */
  text: string;
  index: number;
  length: number;
}

/** Every match in run `id`, in record order: at most one per record and role. */
export async function* searchRun(store: Store, id: string, matcher: TextMatcher, signal?: AbortSignal): AsyncGenerator<SearchHit> {
  const select = (line: string): boolean => matcher.mightMatch(line);
  for await (const { record } of store.records(id, { select, ...(signal ? { signal } : {}) })) {
    const found = new Set<SearchRole>();
    for (const { role, text } of searchPlaces(record)) {
      if (found.has(role)) continue;
      const match = matcher.find(text);
      if (match === null) continue;
      found.add(role);
      yield { runId: id, seq: record.seq, role, text, ...match };
    }
  }
}

/** The runs to search, newest first: those the filters keep. */
function candidates(runs: RunInfo[], statuses: Set<string>, since: Date | undefined): RunInfo[] {
  const kept = runs.filter((r) => (statuses.size === 0 || statuses.has(r.status)) && (since === undefined || Date.parse(r.updated) >= since.getTime()));
  return newestFirst(kept);
}

const ROLE_WIDTH = Math.max(...(['prompt', 'assistant', 'thinking', 'tool_call', 'tool_result', 'user'] as const).map((r) => r.length));

function hitLine(hit: SearchHit, run: RunInfo, flags: SearchFlags, term: Terminal): string {
  if (flags.json) {
    return `${JSON.stringify({ run_id: hit.runId, seq: hit.seq, role: hit.role, snippet: snippet(hit.text, hit.index, hit.length), status: run.status, updated: run.updated })}\n`;
  }
  const head = `${hit.runId}  ${String(hit.seq).padStart(5)}  ${hit.role.padEnd(ROLE_WIDTH)}  `;
  // On a terminal the context fills the line; piped, a fixed amount either side.
  const around = term.columns === undefined ? 40 : Math.max(10, Math.floor((term.columns - head.length - Math.min(hit.length, 40) - 2) / 2));
  const mark = (s: string): string => term.style.strong(s);
  return `${term.style.faint(head)}${snippet(hit.text, hit.index, hit.length, { around, mark })}\n`;
}

export async function searchSessions(environment: Environment, text: string, flags: SearchFlags): Promise<ExitCode> {
  const matcher = textMatcher(text, { regex: flags.regex === true });
  const statuses = new Set<string>(flags.status ?? []);
  const since = flags.since;
  const term = terminalFor(process.stdout, { color: flags.color, env: environment.env });
  const stop = onStopSignals(() => {});
  try {
    return await withStore(environment, flags, async (store) => {
      const listed = await store.list({ origins: true });
      const runs = candidates(listed, statuses, since);
      const all = byId(listed);
      const seen = new Set<string>(); // the records shown, by the run that wrote them, seq and role
      const unreadable: string[] = [];
      let shown = 0;
      search: for (const run of runs) {
        if (stop.signal.aborted) break;
        if (run.status === 'unreadable') {
          unreadable.push(run.runId);
          process.stderr.write(`logbook: cannot search run ${run.runId}: ${sanitizeLine(run.problem ?? 'unreadable')}\n`);
          continue;
        }
        try {
          for await (const hit of searchRun(store, run.runId, matcher, stop.signal)) {
            const record = `${writtenIn(all, hit.runId, hit.seq)}\u0000${hit.seq}\u0000${hit.role}`;
            if (seen.has(record)) continue; // shown on a newer run that holds the same record
            seen.add(record);
            await writeOut(hitLine(hit, run, flags, term));
            if (++shown === flags.limit) break search;
          }
        } catch (err) {
          if (!(err instanceof LogbookError) || err.code === 'unavailable') throw err;
          unreadable.push(run.runId);
          process.stderr.write(`logbook: cannot search run ${run.runId}: ${sanitizeLine(err.message)}\n`);
        }
      }
      if (stop.signal.aborted) return EXIT.interrupted;
      if (shown === 0) process.stderr.write(`no match in ${runs.length} run${runs.length === 1 ? '' : 's'} of the ${store.location}\n`);
      if (unreadable.length > 0) {
        throw new LogbookError('unreadable', `${unreadable.length} run${unreadable.length === 1 ? '' : 's'} could not be searched (named above); \`logbook session show ID\` says what is wrong with one`);
      }
      return EXIT.ok;
    });
  } finally {
    stop.dispose();
  }
}
