/**
 * Forking a run: a new run holding a prefix of another's records, byte for
 * byte, under a meta of its own (the new id, created now; the same prompt,
 * fingerprint and interactivity). A cut inside a tool batch leaves that batch
 * pending, so a resume of the fork completes it. The original is never touched.
 * The fork's origin is kept beside it (its lineage, lineage.ts), and where it
 * was started: where its origin was, unless it is started elsewhere.
 */
import { LogbookError, VERSION, isLogbookError, encodeRecord, formatTimestamp, type Fingerprint, type JournalRecord, type MetaPayload } from '../core/index.js';
import type { RunTimes } from '../core/index.js';
import { foldingRecords } from './read-fold.js';
import type { RunPlace, Store } from './store.js';

/** Where a fork is cut: at a seq, or after a number of model turns; the whole run when neither. */
export interface ForkPoint {
  /** Keep the records up to and including this seq. */
  at?: number;
  /** Keep the first N model turns: through the Nth assistant record and its tool results. */
  turn?: number;
  /**
   * Keep what comes before the typed turns the run ends on, unanswered (the
   * user records after its last model turn and that turn's results, a chat's
   * refused or stopped question): what a chat's /drop goes on from.
   */
  beforeTyped?: true;
}

/** What forkRun makes. */
export interface ForkOptions extends ForkPoint {
  /** The new run's id. */
  id: string;
  now?: Date;
  /** Where the fork is started (the run it continues goes on here); else it keeps where its origin was started. */
  place?: RunPlace;
  /**
   * The fork's own fingerprint, when its calls go to another configuration than
   * its origin's (a follow-up forced past a change): what its meta says, and so
   * what its own calls are priced and judged by. Else its origin's.
   */
  fingerprint?: Fingerprint;
}

/** The fork forkRun made. */
export interface Forked {
  id: string;
  /** The last seq the fork holds. */
  lastSeq: number;
  /** How many records it holds. */
  records: number;
}

/** The number of records to keep from the start for a fork point. */
export function forkLength(records: readonly JournalRecord[], point: ForkPoint): number {
  if ([point.at, point.turn, point.beforeTyped].filter((p) => p !== undefined).length > 1) {
    throw new LogbookError('usage', 'a fork is cut at a seq, at a turn, or before the typed turns a run ends on: one of them');
  }
  if (point.beforeTyped) return beforeTypedTurns(records);
  if (point.at !== undefined) {
    const n = records.filter((r) => r.seq <= point.at!).length;
    if (point.at < 1 || n === 0) throw new LogbookError('usage', `a fork at seq ${point.at} keeps nothing: a fork keeps at least the meta record (seq 1)`);
    return n;
  }
  if (point.turn !== undefined) {
    let turns = 0;
    for (let i = 1; i < records.length; i++) {
      const r = records[i]!;
      if ('assistant' in r && turns++ === point.turn) return i;
      if ('user' in r && turns === point.turn) return i;
    }
    if (turns < point.turn) throw new LogbookError('usage', `a fork after turn ${point.turn}: the run has ${turns} model turn${turns === 1 ? '' : 's'}`);
    return records.length;
  }
  return records.length;
}

/** How many records come before the typed turns the run ends on (terminal records between them aside); `usage` when it ends on none. */
function beforeTypedTurns(records: readonly JournalRecord[]): number {
  let first: number | undefined;
  for (let i = records.length - 1; i > 0; i--) {
    const r = records[i]!;
    if ('user' in r) first = i;
    else if (!('terminal' in r)) break;
  }
  if (first === undefined) throw new LogbookError('usage', 'the run does not end on a typed turn the model has not answered');
  return first;
}

/** The lines a fork of `from` cut at `options` holds, its meta its own, and the last seq it takes. */
async function forkLines(store: Store, from: string, options: ForkOptions): Promise<{ lines: string[]; lastSeq: number }> {
  const { lines, source } = await store.storedLines(from);
  const records = foldingRecords(lines, from, source); // only a run that folds is forked
  let keep = forkLength(records, options);
  const last = records[keep - 1]!;
  if (keep > 1 && 'terminal' in last && last.terminal.reason === 'completed') keep--;
  const meta = (records[0] as { meta: MetaPayload }).meta;
  const forkMeta: MetaPayload = {
    ...meta,
    version: VERSION,
    run_id: options.id,
    created: formatTimestamp(options.now ?? new Date()),
    ...(options.fingerprint !== undefined ? { fingerprint: options.fingerprint } : {}),
  };
  return { lines: [encodeRecord({ seq: 1, meta: forkMeta }), ...lines.slice(1, keep)], lastSeq: records[keep - 1]!.seq };
}

/** The notes a fork is kept with: its origin, and where it was started. */
async function markForked(store: Store, from: string, options: ForkOptions, lastSeq: number): Promise<void> {
  await store.markFork(options.id, { from, at: lastSeq });
  const place = options.place ?? (await store.placeOf(from));
  if (place !== null) await store.markPlace(options.id, place);
}

/**
 * Forks run `from` in `store` into a new run. The fork never ends on a
 * `completed` record, which would refuse its continuation: such a final record
 * is left out.
 */
export async function forkRun(store: Store, from: string, options: ForkOptions): Promise<Forked> {
  const { lines, lastSeq } = await forkLines(store, from, options);
  const times = await originTimes(store, from);
  const journal = await store.createFromLines(options.id, lines, times !== undefined ? { times } : {});
  await journal.close();
  await markForked(store, from, options, lastSeq);
  return { id: options.id, lastSeq, records: lines.length };
}

/**
 * The fork forkRun makes, made or finished: a fork a crash left partway (its
 * meta and a head of its records, its notes missing) gets the rest of the
 * records it takes and its notes; one already whole is left as it is (its own
 * records after the cut untouched). Each step is one a fresh fork makes, so
 * the end is the same whenever the crash came.
 */
export async function finishFork(store: Store, from: string, options: ForkOptions & { at: number }): Promise<void> {
  if (!(await store.has(options.id))) {
    try {
      await forkRun(store, from, options);
      return;
    } catch (err) {
      if (!isLogbookError(err, 'exists')) throw err;
    }
  }
  const { lines, lastSeq } = await forkLines(store, from, options);
  if ((await store.loadState(options.id)).lastSeq < lastSeq) {
    // Its `copied` note first, as a fresh fork's: the records copied now keep their origin's times, not this moment's.
    const times = await originTimes(store, from);
    await store.finishFromLines(options.id, lines, times !== undefined ? { times } : {});
  }
  await markForked(store, from, options, lastSeq);
}

/** The times `from`'s records were written, which its fork's copies of them keep; undefined when they cannot be read (the copies then have none). */
function originTimes(store: Store, from: string): Promise<RunTimes | undefined> {
  return store.times(from).catch(() => undefined);
}
