/**
 * An in-memory Store, for tests and for embedding. It imports only logbook's
 * public API, which is the proof that a backend can be written outside this
 * package: it reuses the same id and append rules and stores the same encoded
 * lines as the file and JetStream backends.
 *
 * (It is also re-exported by that API; nothing here runs at import time, so the
 * cycle is harmless.)
 */
import {
  LogbookError,
  checkAppend,
  decodeRecord,
  encodeRecord,
  fold,
  isValidId,
  parseJournal,
  validateId,
  decodeOptions,
  runNotFound,
  type Journal,
  type JournalRecord,
  type LoadedRun,
  type MetaPayload,
  type Payload,
  type RunInfo,
  type Store,
} from '../../index.js';

interface StoredRun {
  lines: string[];
  locked: boolean;
  updated: Date;
}

export class MemoryStore implements Store {
  readonly backend = 'memory';
  readonly location = 'memory store (this process only)';
  private readonly runs = new Map<string, StoredRun>();

  async create(id: string, meta: MetaPayload): Promise<Journal> {
    validateId(id);
    if (this.runs.has(id)) throw new LogbookError('exists', `run ${id} already exists`);
    const run: StoredRun = { lines: [], locked: true, updated: new Date() };
    this.runs.set(id, run);
    const journal = new MemoryJournal(id, run, 0);
    await journal.append(1, { meta });
    return journal;
  }

  async open(id: string): Promise<Journal> {
    const run = this.get(id);
    if (run.locked) throw new LogbookError('locked', 'run is locked by another writer');
    const records = parseJournal(run.lines.join('\n')).records;
    if (records.length === 0) throw new LogbookError('empty', `run ${id} has no records`);
    run.locked = true;
    return new MemoryJournal(id, run, records[records.length - 1]!.seq);
  }

  async load(id: string): Promise<LoadedRun> {
    const run = this.get(id);
    const { records } = parseJournal(run.lines.join('\n'));
    const state = fold(records);
    return {
      state,
      records,
      lastSeq: records[records.length - 1]!.seq,
      created: (records[0] as { meta: MetaPayload }).meta.created,
      updated: run.updated.toISOString(),
    };
  }

  async list(): Promise<RunInfo[]> {
    const out: RunInfo[] = [];
    for (const [id, run] of this.runs) {
      if (!isValidId(id) || run.lines.length === 0) continue;
      const first = decodeRecord(run.lines[0]!);
      const last = decodeRecord(run.lines[run.lines.length - 1]!);
      const meta = (first as { meta: MetaPayload }).meta;
      out.push({
        runId: id,
        created: meta.created,
        updated: run.updated.toISOString(),
        model: meta.fingerprint.model,
        prompt: meta.prompt,
        status: 'terminal' in last ? last.terminal.reason : 'open',
      });
    }
    return out;
  }

  async delete(id: string): Promise<boolean> {
    validateId(id);
    const run = this.runs.get(id);
    if (run === undefined) return false;
    if (run.locked) throw new LogbookError('locked', 'run is locked by another writer');
    this.runs.delete(id);
    return true;
  }

  async close(): Promise<void> {}

  private get(id: string): StoredRun {
    validateId(id);
    const run = this.runs.get(id);
    if (run === undefined) throw runNotFound(id);
    return run;
  }
}

class MemoryJournal implements Journal {
  private closed = false;

  constructor(
    readonly runId: string,
    private readonly run: StoredRun,
    private last: number,
  ) {}

  get lastSeq(): number {
    return this.last;
  }

  async append(seq: number, payload: Payload): Promise<void> {
    if (this.closed) throw new LogbookError('unavailable', `journal ${this.runId} is closed`);
    if (checkAppend(this.last, seq) === 'duplicate') return;
    this.run.lines.push(encodeRecord({ seq, ...payload } as JournalRecord));
    this.run.updated = new Date();
    this.last = seq;
  }

  async records(): Promise<JournalRecord[]> {
    return parseJournal(this.run.lines.join('\n')).records;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.run.locked = false;
  }
}

export function memoryStoreFromOptions(options: Record<string, unknown>): MemoryStore {
  decodeOptions('memory', options, {});
  return new MemoryStore();
}
