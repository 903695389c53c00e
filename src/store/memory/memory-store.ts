/**
 * An in-memory backend, for tests and for embedding. It is written against the
 * package's public API alone (every name imported here is exported by
 * src/index.ts), which is the proof that a backend can be written outside this
 * package: it supplies bytes in and out, and JournalStore applies the same
 * journal rules to it as to the file and JetStream backends.
 */
import { LogbookError } from '../../core/index.js';
import type { Backend, HeldRun, OpenedRun, RunSummary, StoredRun } from '../backend.js';
import { JournalStore } from '../journal-store.js';
import { decodeOptions } from '../options.js';
import { runNotFound } from '../store.js';

interface Kept {
  lines: string[];
  held: boolean;
  updated: Date;
  notes: Map<string, string>;
}

const locked = (): LogbookError => new LogbookError('locked', 'run is locked by another writer');

export class MemoryBackend implements Backend {
  readonly name = 'memory';
  readonly location = 'memory store (this process only)';
  private readonly runs = new Map<string, Kept>();

  async create(id: string, metaLine: string): Promise<HeldRun> {
    if (this.runs.has(id)) throw new LogbookError('exists', `run ${id} already exists`);
    const run: Kept = { lines: [metaLine], held: true, updated: new Date(), notes: new Map() };
    this.runs.set(id, run);
    return held(run);
  }

  async open(id: string): Promise<OpenedRun> {
    const run = this.runs.get(id);
    if (run === undefined) throw runNotFound(id);
    if (run.held) throw locked();
    run.held = true;
    return { run: held(run), first: run.lines[0]!, last: run.lines[run.lines.length - 1]! };
  }

  async read(id: string): Promise<StoredRun | null> {
    const run = this.runs.get(id);
    return run === undefined ? null : { lines: [...run.lines], updated: run.updated, source: `memory run ${id}`, held: run.held };
  }

  async readLine(id: string, index: number): Promise<string | null> {
    return this.runs.get(id)?.lines[index - 1] ?? null;
  }

  async list(): Promise<RunSummary[]> {
    return [...this.runs].map(([id, run]) => ({
      id,
      first: run.lines[0] ?? null,
      last: run.lines[run.lines.length - 1] ?? null,
      updated: run.updated,
      held: run.held,
    }));
  }

  async delete(id: string): Promise<boolean> {
    const run = this.runs.get(id);
    if (run === undefined) return false;
    if (run.held) throw locked();
    this.runs.delete(id);
    return true;
  }

  async putNote(id: string, key: string, text: string): Promise<void> {
    const run = this.runs.get(id);
    if (run === undefined) throw runNotFound(id);
    if (!run.notes.has(key)) run.notes.set(key, text);
  }

  async getNote(id: string, key: string): Promise<string | null> {
    return this.runs.get(id)?.notes.get(key) ?? null;
  }

  async close(): Promise<void> {}
}

function held(run: Kept): HeldRun {
  let released = false;
  return {
    async write(_seq, line) {
      run.lines.push(line);
      run.updated = new Date();
    },
    async release() {
      if (released) return;
      released = true;
      run.held = false;
    },
  };
}

/** The memory backend as a Store. */
export class MemoryStore extends JournalStore {
  constructor() {
    super(new MemoryBackend());
  }
}

export async function memoryBackendFromOptions(options: Record<string, unknown>): Promise<MemoryBackend> {
  decodeOptions('memory', options, {});
  return new MemoryBackend();
}
