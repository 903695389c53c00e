/**
 * `logbook session search TEXT`: the runs whose prompt, model turns, tool calls,
 * tool results or follow-ups contain TEXT, newest runs first, one line per
 * match. Journals are read as streams, a record at a time, and lines that
 * cannot match are not even decoded; nothing holds a whole run, let alone the
 * whole store, and --limit stops the reading at the last match it shows.
 * Plain text is matched as it is; a --regex runs in a worker (bounded-regex.ts)
 * that a stop signal and a deadline end. A record a fork holds as a copy of its
 * origin's (lineage.ts) is one record: a match in it is shown once, on the
 * newest run that holds it.
 */
import { LogbookError, isLogbookError, literalMatcher, type TextMatch, type TextMatcher } from '../../core/index.js';
import { sanitizeLine, searchPlaces, snippet, type SearchRole } from '../../render/index.js';
import { byId, writtenIn } from '../../store/lineage.js';
import type { ListedStatus, RunInfo, Store } from '../../store/store.js';
import type { Environment } from '../environment.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { onStopSignals } from '../signals.js';
import { outputGone } from '../stdio.js';
import { withStore, type StoreFlags } from '../store.js';
import { terminalFor, type Terminal } from '../terminal.js';
import { BoundedRegex } from './bounded-regex.js';
import { newestFirst } from './ls.js';
import { writeOut } from './streaming.js';

/** How long a --regex may spend on one record unless --regex-timeout says otherwise. */
export const DEFAULT_REGEX_TIMEOUT_MS = 10_000;

/**
 * The records a --regex search sends its worker at a time: at most this many,
 * and no more once they hold this much text. A plain-text search reads
 * nothing ahead.
 */
const BATCH_RECORDS = 256;
const BATCH_CHARS = 1 << 20;

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

/** A text of a record a search looks in (render searchPlaces). */
type Place = { role: SearchRole; text: string };

/** The hits of one record: the first match of each role, in the order of its places. */
function* hitsIn(runId: string, seq: number, places: Place[], found: (TextMatch | null)[]): Generator<SearchHit> {
  const roles = new Set<SearchRole>();
  for (const [i, { role, text }] of places.entries()) {
    const match = found[i];
    if (match === null || match === undefined || roles.has(role)) continue;
    roles.add(role);
    yield { runId, seq, role, text, ...match };
  }
}

/** Every match in run `id`, in record order: at most one per record and role. */
export async function* searchRun(store: Store, id: string, matcher: TextMatcher | BoundedRegex, signal?: AbortSignal): AsyncGenerator<SearchHit> {
  if (matcher instanceof BoundedRegex) {
    yield* searchRunBounded(store, id, matcher, signal);
    return;
  }
  const select = (line: string): boolean => matcher.mightMatch(line);
  for await (const { record } of store.records(id, { select, ...(signal ? { signal } : {}) })) {
    const places = searchPlaces(record);
    yield* hitsIn(id, record.seq, places, places.map((p) => matcher.find(p.text)));
  }
}

/**
 * searchRun for a --regex: records go to the worker in batches (BATCH_RECORDS,
 * or fewer holding BATCH_CHARS of text), one batch matched while the next is
 * read, and the hits come out in record order.
 */
async function* searchRunBounded(store: Store, id: string, matcher: BoundedRegex, signal?: AbortSignal): AsyncGenerator<SearchHit> {
  interface Sent {
    records: { seq: number; places: Place[] }[];
    found: Promise<(TextMatch | null)[][]>;
  }
  const sent: Sent[] = [];
  let batch: { seq: number; places: Place[] }[] = [];
  let chars = 0;
  const send = (): void => {
    const found = matcher.find(batch.map((r) => ({ texts: r.places.map((p) => p.text), label: `seq ${r.seq} of run ${id}` })));
    found.catch(() => {}); // awaited in order below; a failure fails every batch
    sent.push({ records: batch, found });
    batch = [];
    chars = 0;
  };
  const next = async function* (): AsyncGenerator<SearchHit> {
    const { records, found } = sent.shift()!;
    const answers = await found;
    for (const [i, r] of records.entries()) yield* hitsIn(id, r.seq, r.places, answers[i]!);
  };
  for await (const { record } of store.records(id, signal ? { signal } : {})) {
    const places = searchPlaces(record);
    if (places.length === 0) continue;
    batch.push({ seq: record.seq, places });
    chars += places.reduce((n, p) => n + p.text.length, 0);
    if (batch.length < BATCH_RECORDS && chars < BATCH_CHARS) continue;
    send();
    if (sent.length > 1) yield* next();
  }
  if (batch.length > 0) send();
  while (sent.length > 0) yield* next();
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
  const statuses = new Set<string>(flags.status ?? []);
  const since = flags.since;
  const term = terminalFor(process.stdout, { color: flags.color, env: environment.env });
  const stop = onStopSignals(() => {});
  // A reader that left (`| head -1`) has read all it wanted: the search ends there.
  const unread = outputGone('stdout');
  const ended = AbortSignal.any([stop.signal, unread]);
  let matcher: TextMatcher | BoundedRegex | undefined;
  try {
    matcher = flags.regex
      ? new BoundedRegex(text, { deadlineMs: flags.regexTimeout ?? DEFAULT_REGEX_TIMEOUT_MS, deadlineOption: '--regex-timeout', signal: ended })
      : literalMatcher(text);
    const using = matcher;
    return await withStore(environment, flags, async (store) => {
      const listed = await store.list({ origins: true });
      const runs = candidates(listed, statuses, since);
      const all = byId(listed);
      const seen = new Set<string>(); // the records shown, by the run that wrote them, seq and role
      const unreadable: string[] = [];
      let shown = 0;
      search: for (const run of runs) {
        if (ended.aborted) break;
        if (run.status === 'unreadable') {
          unreadable.push(run.runId);
          process.stderr.write(`logbook: cannot search run ${run.runId}: ${sanitizeLine(run.problem ?? 'unreadable')}\n`);
          continue;
        }
        try {
          for await (const hit of searchRun(store, run.runId, using, ended)) {
            const record = `${writtenIn(all, hit.runId, hit.seq)}\u0000${hit.seq}\u0000${hit.role}`;
            if (seen.has(record)) continue; // shown on a newer run that holds the same record
            seen.add(record);
            await writeOut(hitLine(hit, run, flags, term));
            if (++shown === flags.limit) break search;
          }
        } catch (err) {
          if (isLogbookError(err, 'interrupted') && ended.aborted) break;
          if (!(err instanceof LogbookError) || err.code === 'unavailable' || err.code === 'regex_limit') throw err;
          unreadable.push(run.runId);
          process.stderr.write(`logbook: cannot search run ${run.runId}: ${sanitizeLine(err.message)}\n`);
        }
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
