/**
 * Searching a store's journals: the runs whose prompt, model turns, tool
 * calls, tool results or follow-ups hold a text, newest runs first, at most one
 * hit per record and place. Journals are read as streams, a record at a time,
 * and a line that cannot match is not even decoded; nothing holds a whole run,
 * let alone the whole store, and a limit stops the reading at its last hit. A
 * record a fork holds as a copy of its origin's (store/lineage.ts) is one
 * record: a match in it is given once, on the newest run that holds it.
 */
import { LogbookError, isLogbookError, literalMatcher, patternMatcher, type TextMatch, type TextMatcher } from '../core/index.js';
import { searchPlaces, type SearchRole } from '../render/search.js';
import { byId, lineageOf, writtenIn } from '../store/lineage.js';
import { newestFirst, when } from '../store/listing.js';
import type { ListedStatus, RunInfo, Store } from '../store/store.js';

export type { SearchRole } from '../render/search.js';

/** One match: where it is, and the text it is in. */
export interface SearchHit {
  runId: string;
  /** The record it is in. */
  seq: number;
  /** The place in that record. */
  role: SearchRole;
  /** The whole text the match is in, and where in it. */
  text: string;
  index: number;
  length: number;
}

/** The texts of one record, for a BatchMatcher; `label` names the record in its errors. */
export interface RecordTexts {
  texts: string[];
  label: string;
}

/**
 * A matcher that takes records in batches and answers later: one that runs a
 * pattern where a deadline can stop it (the command's worker), say. For each
 * record, the first match in each of its texts, in order.
 */
export interface BatchMatcher {
  /** The first match in each text of each record, in order. */
  find(records: RecordTexts[]): Promise<(TextMatch | null)[][]>;
}

/**
 * The records a BatchMatcher is sent at a time: at most this many, and no more
 * once they hold this much text. A TextMatcher reads nothing ahead.
 */
const BATCH_RECORDS = 256;
const BATCH_CHARS = 1 << 20;

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

const isTextMatcher = (m: TextMatcher | BatchMatcher): m is TextMatcher => 'mightMatch' in m;

/** Every match in run `id`, in record order: at most one per record and role. */
export async function* searchRun(store: Store, id: string, matcher: TextMatcher | BatchMatcher, signal?: AbortSignal): AsyncGenerator<SearchHit> {
  if (!isTextMatcher(matcher)) {
    yield* searchRunInBatches(store, id, matcher, signal);
    return;
  }
  const select = (line: string): boolean => matcher.mightMatch(line);
  for await (const { record } of store.records(id, { select, ...(signal ? { signal } : {}) })) {
    const places = searchPlaces(record);
    yield* hitsIn(id, record.seq, places, places.map((p) => matcher.find(p.text)));
  }
}

/**
 * searchRun for a BatchMatcher: records go to it in batches (BATCH_RECORDS, or
 * fewer holding BATCH_CHARS of text), one batch matched while the next is
 * read, and the hits come out in record order.
 */
async function* searchRunInBatches(store: Store, id: string, matcher: BatchMatcher, signal?: AbortSignal): AsyncGenerator<SearchHit> {
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

/** Which runs a search reads. */
export interface SearchFilter {
  /** Only runs listed in one of these statuses. */
  statuses?: readonly ListedStatus[];
  /** Only runs changed at or after this time. */
  since?: Date;
  /** Only the runs of this run's conversation (its lineage: origins, forks, continuations); a whole id. */
  lineage?: string;
}

/** The runs of a listing a search with `filter` reads, newest first. */
export function searchedRuns(listed: readonly RunInfo[], filter: SearchFilter = {}): RunInfo[] {
  const statuses = new Set<string>(filter.statuses ?? []);
  const since = filter.since?.getTime();
  const within = filter.lineage === undefined ? listed : lineageOf(listed, filter.lineage);
  return newestFirst(within.filter((r) => (statuses.size === 0 || statuses.has(r.status)) && (since === undefined || when(r.updated) >= since)));
}

export interface SearchOptions extends SearchFilter {
  /**
   * Take a text as a JavaScript regular expression (core checkPattern: at most
   * MAX_PATTERN_LENGTH characters), else as literal text; either way
   * case-insensitive. A pattern runs in this thread: to bound one a person
   * typed, pass a BatchMatcher that can be stopped instead.
   */
  regex?: boolean;
  /** Stop after this many hits. */
  limit?: number;
  /** Ends the search early: the iteration returns. */
  signal?: AbortSignal;
  /**
   * The store's runs, listed with their origins (`store.list({ origins: true })`)
   * by a caller that needs them too (else listed here): the search reads those
   * searchedRuns keeps, and tells copies of a record by all of them.
   */
  listed?: readonly RunInfo[];
  /**
   * Told of each run that could not be read, which the search goes on past; a
   * server that does not answer (`unavailable`) or a matcher that failed
   * (`regex_limit`) ends it instead, as an error.
   */
  onUnreadable?(runId: string, error: LogbookError): void;
}

/** A hit with the run it is in, as listed. */
export interface RunSearchHit extends SearchHit {
  run: RunInfo;
}

/**
 * Every match of `text` in the store's runs, newest runs first. Refused
 * (`usage`) for an empty text or, with `regex`, one that is not a regular
 * expression or is too long.
 */
export async function* searchRuns(store: Store, text: string | TextMatcher | BatchMatcher, options: SearchOptions = {}): AsyncGenerator<RunSearchHit> {
  const matcher = typeof text !== 'string' ? text : options.regex === true ? patternMatcher(text) : literalMatcher(text);
  const listed = options.listed ?? (await store.list({ origins: true }));
  const runs = searchedRuns(listed, options);
  const all = byId(listed);
  const seen = new Set<string>(); // the records given, by the run that wrote them, seq and role
  let given = 0;
  for (const run of runs) {
    if (options.signal?.aborted) return;
    if (run.status === 'unreadable') {
      options.onUnreadable?.(run.runId, new LogbookError('corrupt', run.problem ?? 'unreadable', { details: { runId: run.runId } }));
      continue;
    }
    try {
      for await (const hit of searchRun(store, run.runId, matcher, options.signal)) {
        const record = `${writtenIn(all, hit.runId, hit.seq)}\u0000${hit.seq}\u0000${hit.role}`;
        if (seen.has(record)) continue; // given on a newer run that holds the same record
        seen.add(record);
        yield { ...hit, run };
        if (++given === options.limit) return;
      }
    } catch (err) {
      if (isLogbookError(err, 'interrupted') && options.signal?.aborted) return;
      if (!(err instanceof LogbookError) || err.code === 'unavailable' || err.code === 'regex_limit') throw err;
      options.onUnreadable?.(run.runId, err);
    }
  }
}
