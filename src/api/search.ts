/**
 * Searching a store's journals: the runs whose prompt, model turns, tool
 * calls, tool results or follow-ups hold a text, newest runs first, one hit per
 * record and place. Journals are read as streams, a record at a time, and a
 * line that cannot match is not even decoded; nothing holds a whole run, let
 * alone the whole store, and a limit stops the reading at its last hit.
 */
import { LogbookError, textMatcher, type TextMatcher } from '../core/index.js';
import { searchPlaces, type SearchRole } from '../render/search.js';
import { newestFirst, when } from '../store/listing.js';
import type { ListedStatus, RunInfo, Store } from '../store/store.js';

export type { SearchRole } from '../render/search.js';
export type { TextMatcher } from '../core/index.js';

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

/** Which runs a search reads. */
export interface SearchFilter {
  /** Only runs listed in one of these statuses. */
  statuses?: readonly ListedStatus[];
  /** Only runs changed at or after this time. */
  since?: Date;
}

/** The runs a search with `filter` reads, newest first. */
export async function searchedRuns(store: Store, filter: SearchFilter = {}): Promise<RunInfo[]> {
  const statuses = new Set<string>(filter.statuses ?? []);
  const since = filter.since?.getTime();
  const runs = await store.list();
  return newestFirst(runs.filter((r) => (statuses.size === 0 || statuses.has(r.status)) && (since === undefined || when(r.updated) >= since)));
}

export interface SearchOptions extends SearchFilter {
  /** Take the text as a JavaScript regular expression (else literal text); either way case-insensitive. */
  regex?: boolean;
  /** Stop after this many hits. */
  limit?: number;
  /** Ends the search early. */
  signal?: AbortSignal;
  /** The runs to read, as searchedRuns gave them (else searchedRuns is asked). */
  runs?: readonly RunInfo[];
  /**
   * Told of each run that could not be read, which the search goes on past; a
   * server that does not answer (`unavailable`) ends it instead.
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
 * expression.
 */
export async function* searchRuns(store: Store, text: string | TextMatcher, options: SearchOptions = {}): AsyncGenerator<RunSearchHit> {
  const matcher = typeof text === 'string' ? textMatcher(text, { regex: options.regex === true }) : text;
  const runs = options.runs ?? (await searchedRuns(store, options));
  let shown = 0;
  for (const run of runs) {
    if (options.signal?.aborted) return;
    if (run.status === 'unreadable') {
      options.onUnreadable?.(run.runId, new LogbookError('corrupt', run.problem ?? 'unreadable', { details: { runId: run.runId } }));
      continue;
    }
    try {
      for await (const hit of searchRun(store, run.runId, matcher, options.signal)) {
        yield { ...hit, run };
        if (++shown === options.limit) return;
      }
    } catch (err) {
      if (!(err instanceof LogbookError) || err.code === 'unavailable') throw err;
      options.onUnreadable?.(run.runId, err);
    }
  }
}
