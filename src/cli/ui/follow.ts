/**
 * Following for the web view. One listing of the store a second (only while a
 * page follows anything) tells every page what changed; a run's page follows
 * the run itself through Store.watch, the stream `session watch` reads, so a
 * record appears as soon as it is stored. A run that ended is followed again
 * when the listing says it changed (a resume, here or elsewhere).
 */
import { initialState, isLogbookError, step, type RunTimes } from '../../core/index.js';
import { sanitize } from '../../render/sanitize.js';
import type { LiveText } from '../../store/live-text.js';
import type { RunInfo, Store } from '../../store/store.js';
import { snapshot, type RunSnapshot } from './runs.js';

/** How often the listing is made while pages follow. */
export const LIST_MS = 1000;

/** One listing for every follower, made only while there are followers. */
export class ListPoller {
  private readonly listeners = new Set<(runs: RunInfo[]) => void>();
  private timer: NodeJS.Timeout | null = null;
  private listing = false;
  last: RunInfo[] | null = null;

  constructor(private readonly store: Store) {}

  /** Calls `listener` with every listing from now on, until the returned function is called. */
  subscribe(listener: (runs: RunInfo[]) => void): () => void {
    this.listeners.add(listener);
    // The first listing a second after the first follower: a page has just been given the runs as they stand (and a listing of the store now would slow the one it is being given).
    if (this.timer === null) this.timer = setInterval(() => void this.poll(), LIST_MS);
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.timer !== null) {
        clearInterval(this.timer);
        this.timer = null;
      }
    };
  }

  private async poll(): Promise<void> {
    if (this.listing) return;
    this.listing = true;
    try {
      this.last = await this.store.list();
      for (const listener of [...this.listeners]) listener(this.last);
    } catch {
      /* the next listing tries again */
    } finally {
      this.listing = false;
    }
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.listeners.clear();
  }
}

export interface FollowHandlers {
  /** The run as it stands now (called again at every change, at most every THROTTLE_MS). */
  changed(run: RunSnapshot): void;
  /** The run cannot be followed any more (removed, or unreadable), and why. */
  gone(message: string): void;
}

/** How often a followed run's page is told of its changes, at most. */
const THROTTLE_MS = 100;
/** How long after a record without its time the times are read (the file store notes it right after the record). */
const TIMES_AFTER_MS = 60;

/** Follows run `id` for its page until `signal` aborts. */
export async function followRun(store: Store, poller: ListPoller, id: string, handlers: FollowHandlers, signal: AbortSignal): Promise<void> {
  let run: RunSnapshot;
  try {
    run = await snapshot(store, id);
  } catch (err) {
    handlers.gone(err instanceof Error ? err.message : String(err));
    return;
  }
  let pending: NodeJS.Timeout | null = null;
  const tell = (): void => {
    pending ??= setTimeout(() => {
      pending = null;
      if (!signal.aborted) handlers.changed(run);
    }, THROTTLE_MS);
  };
  let timesTimer: NodeJS.Timeout | null = null;
  const readTimes = (): void => {
    timesTimer ??= setTimeout(() => {
      timesTimer = null;
      store.times(id).then(
        (times: RunTimes) => {
          run.times = times;
          tell();
        },
        () => {},
      );
    }, TIMES_AFTER_MS);
  };
  let listed: () => void = () => {};
  const unsubscribe = poller.subscribe((runs) => {
    const info = runs.find((r) => r.runId === id);
    if (info === undefined) return;
    if (info.held !== run.held || info.updated !== run.updated) {
      if (info.held !== undefined) run.held = info.held;
      else delete run.held;
      run.updated = info.updated;
      tell();
    }
    if (info.lastSeq !== undefined && info.lastSeq !== run.state.last_seq) listed();
  });
  handlers.changed(run);
  try {
    while (!signal.aborted) {
      for await (const { record, time } of store.watch(id, { signal })) {
        if (record.seq <= run.state.last_seq) continue;
        run.state = run.records.length === 0 ? initialState(record) : step(run.state, record);
        run.records.push(record);
        if (time !== undefined) (run.times.records as Map<number, number>).set(record.seq, time);
        else readTimes();
        run.updated = new Date().toISOString();
        tell();
      }
      readTimes(); // the resume marks and times of a run that ended
      // The run ended on a terminal record: follow it again once the listing says it changed.
      await new Promise<void>((resolve) => {
        listed = resolve;
        signal.addEventListener('abort', () => resolve(), { once: true });
      });
      listed = () => {};
    }
  } catch (err) {
    if (!signal.aborted) handlers.gone(isLogbookError(err) ? err.message : String(err));
  } finally {
    unsubscribe();
    if (pending !== null) clearTimeout(pending);
    if (timesTimer !== null) clearTimeout(timesTimer);
  }
}

/** What a run's page is sent of the answer streaming now: never journaled, replaced by the record past `after`. */
export interface LiveView {
  after: number;
  text: string;
}

/**
 * Shows run `id`'s live text (store/live-text.ts) to its page as it changes,
 * null when cleared, until `signal` aborts. A failure only stops it: the
 * records still come.
 */
export async function followLive(store: Store, id: string, show: (live: LiveView | null) => void, signal: AbortSignal): Promise<void> {
  try {
    for await (const live of store.watchLive(id, { signal })) show(liveView(live));
  } catch {
    // live text is a convenience
  }
}

/** The model's text, untrusted: sanitized here (controls and bidi overrides removed) and set as text by the page. */
const liveView = (live: LiveText | null): LiveView | null => (live === null || live.text === '' ? null : { after: live.after, text: sanitize(live.text) });
