/**
 * An in-memory backend, for tests and for embedding. It is written against the
 * package's public API alone (every name imported here is exported by
 * src/index.ts), which is the proof that a backend can be written outside this
 * package: it supplies bytes in and out, and JournalStore applies the same
 * journal rules to it as to the file and JetStream backends.
 */
import { LogbookError, type RunTimes } from '../../core/index.js';
import type { Backend, HeldRun, OpenedRun, RunNames, RunSummary, StoredRun, StreamOptions, Streamed } from '../backend.js';
import { JournalStore, listByNames } from '../journal-store.js';
import { decodeOptions } from '../options.js';
import { runNotFound } from '../store.js';

interface Kept {
  lines: string[];
  /** When each line was written (Date.now()), index for index. */
  times: number[];
  /** Resume marks: the seq a writer took the run up after, and when. */
  resumed: Map<number, number>;
  held: boolean;
  updated: Date;
  removed?: boolean;
}

/** Lines given per step of a stream. */
const BATCH = 256;

const locked = (id: string): LogbookError => new LogbookError('locked', `run ${id} is locked by another writer`);

/** A backend that keeps runs in memory, for tests and programs that need no journal on disk. */
export class MemoryBackend implements Backend {
  readonly name = 'memory';
  /** A run is held by one journal of the process at a time. */
  readonly exclusiveOpen = true;
  readonly location = 'memory store (this process only)';
  private readonly runs = new Map<string, Kept>();
  /** Notes by run: a run's may be kept before it exists, as on the other backends (a compaction's continuation's are). */
  private readonly notes = new Map<string, Map<string, string>>();
  /** The live text of runs whose writer shows some (Backend.putLive). */
  private readonly live = new Map<string, string>();
  /** Followers waiting for any run to change. */
  private readonly waiting = new Set<() => void>();

  private changed(): void {
    for (const wake of [...this.waiting]) wake();
  }

  /** Resolves at the next change, or on abort. */
  private nextChange(signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.waiting.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      this.waiting.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  async create(id: string, metaLine: string): Promise<HeldRun> {
    if (this.runs.has(id)) throw new LogbookError('exists', `run ${id} already exists`, { details: { runId: id } });
    const run: Kept = { lines: [metaLine], times: [Date.now()], resumed: new Map(), held: true, updated: new Date() };
    this.runs.set(id, run);
    this.changed();
    return held(run, () => this.changed());
  }

  async open(id: string): Promise<OpenedRun> {
    const run = this.runs.get(id);
    if (run === undefined) throw runNotFound(id);
    if (run.held) throw locked(id);
    run.held = true;
    run.resumed.set(seqOf(run.lines[run.lines.length - 1]!), Date.now());
    return { run: held(run, () => this.changed()), first: run.lines[0]!, last: run.lines[run.lines.length - 1]! };
  }

  async read(id: string): Promise<StoredRun | null> {
    const run = this.runs.get(id);
    return run === undefined ? null : { lines: [...run.lines], updated: run.updated, source: this.sourceOf(id), held: run.held, times: timesOf(run) };
  }

  sourceOf(id: string): string {
    return `memory run ${id}`;
  }

  async times(id: string): Promise<RunTimes> {
    const run = this.runs.get(id);
    return run === undefined ? { records: new Map(), resumed: new Map() } : timesOf(run);
  }

  async readLine(id: string, index: number): Promise<string | null> {
    return this.runs.get(id)?.lines[index - 1] ?? null;
  }

  async *stream(id: string, options: StreamOptions): AsyncGenerator<Streamed> {
    let run = this.runs.get(id);
    if (run === undefined && !options.follow) throw runNotFound(id);
    let given = 0;
    for (let gave = true; ; ) {
      if (options.signal?.aborted) return;
      run ??= this.runs.get(id);
      if (run !== undefined) {
        if (run.removed === true) throw new LogbookError('journal_gone', `run ${id} was removed while it was being followed`);
        while (given < run.lines.length) {
          const lines = run.lines.slice(given, given + BATCH);
          const times = run.times.slice(given, given + BATCH);
          given += lines.length;
          yield { lines, times };
          gave = true;
          if (options.signal?.aborted) return;
        }
      }
      if (!options.follow) return;
      if (gave) {
        yield { caughtUp: true };
        gave = false;
        continue; // the run may have changed while the caller had it: look again before waiting
      }
      await this.nextChange(options.signal);
    }
  }

  list(): Promise<RunSummary[]> {
    return listByNames(this);
  }

  async runNames(): Promise<RunNames[]> {
    return [...this.runs.keys()].map((id) => ({ id, notes: this.keysOf(id) }));
  }

  async summaries(ids: readonly string[]): Promise<RunSummary[]> {
    return ids.flatMap((id) => {
      const run = this.runs.get(id);
      return run === undefined ? [] : [summaryOf(id, run)];
    });
  }

  private keysOf(id: string): string[] {
    return [...(this.notes.get(id)?.keys() ?? [])];
  }

  async delete(id: string): Promise<boolean> {
    const run = this.runs.get(id);
    if (run === undefined) return false;
    if (run.held) throw locked(id);
    this.runs.delete(id);
    this.notes.delete(id);
    run.removed = true;
    this.changed();
    return true;
  }

  async putNote(id: string, key: string, text: string): Promise<void> {
    let notes = this.notes.get(id);
    if (notes === undefined) this.notes.set(id, (notes = new Map()));
    if (!notes.has(key)) notes.set(key, text);
  }

  async getNote(id: string, key: string): Promise<string | null> {
    return this.notes.get(id)?.get(key) ?? null;
  }

  async putLive(id: string, body: string | null): Promise<void> {
    if (body === null) this.live.delete(id);
    else this.live.set(id, body);
    this.changed();
  }

  async *followLive(id: string, signal: AbortSignal): AsyncIterable<string | null> {
    let shown: string | null = null;
    for (let first = true; !signal.aborted; first = false) {
      const now = this.live.get(id) ?? null;
      if (now !== shown) {
        shown = now;
        yield now;
      } else if (first && now !== null) yield now;
      await this.nextChange(signal);
    }
  }

  async noteKeys(id: string): Promise<string[]> {
    return [...(this.notes.get(id)?.keys() ?? [])];
  }

  async close(): Promise<void> {}
}

/** What a listing says of a run, read from its ends. */
function summaryOf(id: string, run: Kept): RunSummary {
  return { id, first: run.lines[0] ?? null, last: run.lines[run.lines.length - 1] ?? null, updated: run.updated, held: run.held };
}

function held(run: Kept, changed: () => void): HeldRun {
  let released = false;
  return {
    async write(_seq, line) {
      const at = Date.now();
      run.lines.push(line);
      run.times.push(at);
      run.updated = new Date();
      changed();
      return at;
    },
    async release() {
      if (released) return;
      released = true;
      run.held = false;
    },
  };
}

/** The seq a stored line starts with, 0 when it does not (the journal layer decodes it). */
function seqOf(line: string): number {
  return Number(/^\{"seq":(\d{1,15})\b/.exec(line)?.[1] ?? 0);
}

function timesOf(run: Kept): RunTimes {
  return { records: new Map(run.lines.map((line, i) => [seqOf(line), run.times[i]!])), resumed: new Map(run.resumed) };
}

/** The memory backend as a Store. */
export class MemoryStore extends JournalStore {
  constructor() {
    super(new MemoryBackend());
  }
}

/** The memory backend's factory, as registerBackend takes one (it takes no options). */
export async function memoryBackendFromOptions(options: Record<string, unknown>): Promise<MemoryBackend> {
  decodeOptions('memory', options, {});
  return new MemoryBackend();
}
