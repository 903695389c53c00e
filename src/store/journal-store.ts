/**
 * The journal rules, once, over any backend: ids are validated before they
 * become keys, a meta record must name the run it sits in, appends are checked
 * (duplicate, gap) and encoded here, the last seq advances only after the
 * backend says the record is durable, and loads decode and fold the same way
 * whatever stored the bytes.
 */
import {
  LogbookError,
  NO_TIMES,
  checkAppend,
  decodeLine,
  decodeLineOf,
  decodeLineKeepingOutput,
  takeRecords,
  encodeRecord,
  isLogbookError,
  LinesDigest,
  encodeFoldCheckpoint,
  modelCallOf,
  type ModelCall,
  isValidId,
  runStatus,
  timesAfter,
  validateId,
  type JournalRecord,
  type LineDecoder,
  type MetaPayload,
  type RunState,
  type RunTimes,
} from '../core/index.js';
import type { Backend, HeldRun, RunSummary, StoredRun, StreamOptions, Streamed } from './backend.js';
import { claimRunEnd, type ClaimPlace } from './claims.js';
import {
  listedStatus,
  runNotFound,
  type CreateFromLinesOptions,
  type Journal,
  type FoldedRun,
  type LoadedRun,
  type LoadedState,
  type LoadFoldedOptions,
  type LoadStateOptions,
  type RecordsOptions,
  type ForkOrigin,
  type ListingOptions,
  type NoteReadOptions,
  type OpenOptions,
  type RunInfo,
  type RunPlace,
  type Store,
  type StoredLines,
  type StreamedRecord,
  type WatchOptions,
  type WorkspaceStorage,
} from './store.js';
import {
  FORK_NOTE,
  PLACE_NOTE,
  encodeForkOrigin,
  encodePlace,
  lastTurnKey,
  parseForkOrigin,
  parsePlace,
  turnNoteKey,
  turnNoteText,
  typedText,
} from './run-notes.js';
import { encodeListingIndex, parseListingIndex, type EndsFacts, type IndexedEnds } from './listing-index.js';
import { LiveTextWriter, parseLiveText, type LiveText } from './live-text.js';
import { CheckpointTrail, fromCheckpoint, keepsCheckpoints } from './checkpoint.js';
import { lineageOf, lineageReach } from './lineage.js';
import { buildIdentity } from './package-version.js';
import { checkFollows, foldIn, foldRead, ofRun } from './read-fold.js';

/** The meta record a run starts with; `corrupt` when it is not one, or names another run. */
function metaOf(record: JournalRecord, id: string, where: string): MetaPayload {
  if (!('meta' in record)) {
    throw new LogbookError('no_meta', `${where} does not start with a meta record (seq ${record.seq} is not one)`, { details: { runId: id } });
  }
  if (record.meta.run_id !== id) {
    throw new LogbookError('corrupt', `${where} holds run ${record.meta.run_id}, not run ${id}: its meta names another run`, { details: { runId: id } });
  }
  return record.meta;
}

/**
 * The journal rules over a streamed run, one line at a time: the first line is
 * this run's meta record, every line decodes (errors name the line number), and
 * seqs strictly increase. `caughtUp` marks pass through, for the watch.
 */
class StreamChecks {
  constructor(
    private readonly id: string,
    /** Where the lines are read from (JournalStore.sourceOf): what a refusal names. */
    private readonly source: string,
    /** Lines already read and checked before this one's first (a checkpoint's), and the last seq among them. */
    private lineNo = 0,
    private lastSeq = 0,
  ) {}

  /** The record `line` holds, checked against those before it. */
  check(line: string): JournalRecord {
    const n = ++this.lineNo;
    let record: JournalRecord;
    try {
      record = decodeLine(line, `${this.source} line ${n}`);
    } catch (err) {
      throw ofRun(err, this.id);
    }
    if (n === 1) metaOf(record, this.id, this.source);
    checkFollows(this.lastSeq, record, this.id, this.source, n); // meta as seq 1, of this format version; then seqs in order
    this.lastSeq = record.seq;
    return record;
  }

  /** The number of the line last checked (or passed over). */
  get line(): number {
    return this.lineNo;
  }

  /** Counts a line passed over without decoding it. */
  skip(): void {
    this.lineNo++;
  }

  get started(): boolean {
    return this.lineNo > 0;
  }
}

/** Keeps a note beside the run a journal writes (Backend.putNote). */
type KeepNote = (key: string, text: string) => Promise<void>;

class StoreJournal implements Journal {
  private closed = false;

  constructor(
    readonly runId: string,
    private readonly held: HeldRun,
    /** Advanced only once the backend says a record is durable. */
    private last: number,
    /** Every line stored before this writer's was checked whole (it created the run, or loaded it just before holding it). */
    private readonly checkedWhole: boolean,
    private readonly keepNote: KeepNote,
    /** Claims going on with the run at a seq as a writer (claims.ts); null where an open excludes every other writer. */
    private readonly claimAt: ((at: number, writer: string) => Promise<boolean>) | null = null,
    /** What the run's next checkpoint needs, of every line through `last`; null where none is written (store/checkpoint.ts). */
    private trail: CheckpointTrail | null = null,
    private readonly writeCheckpoint: (text: string) => Promise<void> = () => Promise.resolve(),
  ) {}

  /**
   * Writes the run's checkpoint of `state` when it is the fold of the lines
   * through lastSeq and they grew enough since the last one (CheckpointTrail):
   * taken now, encoded and written after the current turn of the event loop
   * (what called this goes on first). Else does nothing. Never fails: a
   * checkpoint only saves a load work.
   */
  async keepCheckpoint(state: RunState): Promise<void> {
    try {
      if (this.closed || this.trail === null || this.trail.seq !== this.last) return;
      const checkpoint = this.trail.due(state);
      if (checkpoint === null) return;
      await new Promise((resolve) => setImmediate(resolve));
      await this.writeCheckpoint(encodeFoldCheckpoint(checkpoint, buildIdentity()));
    } catch {
      // a checkpoint not kept costs the next load only its work
    }
  }

  async claim(): Promise<boolean> {
    if (this.closed) throw new LogbookError('journal_closed', `journal ${this.runId} is closed; open the run again to claim it`);
    const writer = this.held.writer;
    return this.claimAt === null || writer === undefined ? true : this.claimAt(this.last, writer);
  }

  /**
   * A user record, once durable, has its text kept in a note (run-notes.ts), so
   * a listing shows the last typed turn without reading the journal. A note
   * only saves a listing work: failing to keep one fails nothing.
   */
  private async durable(record: JournalRecord): Promise<void> {
    this.last = record.seq;
    const typed = typedText(record);
    if (typed !== null) await this.keepNote(turnNoteKey(record.seq), turnNoteText(typed)).catch(() => {});
  }

  get lastSeq(): number {
    return this.last;
  }

  async append(record: JournalRecord): Promise<number | undefined> {
    if (this.closed) throw new LogbookError('journal_closed', `journal ${this.runId} is closed; open the run again to append`);
    if (checkAppend(this.last, record.seq) === 'duplicate') return undefined;
    const line = encodeRecord(record);
    const time = await this.held.write(record.seq, line);
    this.trail?.add(line, record);
    await this.durable(record);
    return time;
  }

  async appendLine(line: string): Promise<number | undefined> {
    if (this.closed) throw new LogbookError('journal_closed', `journal ${this.runId} is closed; open the run again to append`);
    const record = decodeLine(line, `a line copied into run ${this.runId}`);
    if (checkAppend(this.last, record.seq) === 'duplicate') return undefined;
    this.trail = null; // a copy's lines: the run is checkpointed by the writer that goes on with it
    const time = await this.held.write(record.seq, line);
    await this.durable(record);
    return time;
  }

  /**
   * Appends copied `lines` as appendLine does each of them (checked, duplicates
   * passed over, a gap refused), made durable together where the backend can
   * (HeldRun.writeCopied), else one at a time. `beforeWrite` is called before
   * each write to the backend (what throws there stops the copy).
   */
  async appendCopied(lines: readonly string[], beforeWrite: () => void = () => {}): Promise<void> {
    if (this.held.writeCopied === undefined) {
      for (const line of lines) {
        beforeWrite();
        await this.appendLine(line);
      }
      return;
    }
    if (this.closed) throw new LogbookError('journal_closed', `journal ${this.runId} is closed; open the run again to append`);
    const records: JournalRecord[] = [];
    const kept: string[] = [];
    let last = this.last;
    for (const line of lines) {
      const record = decodeLine(line, `a line copied into run ${this.runId}`);
      if (checkAppend(last, record.seq) === 'duplicate') continue;
      last = record.seq;
      records.push(record);
      kept.push(line);
    }
    if (records.length === 0) return;
    this.trail = null;
    beforeWrite();
    await this.held.writeCopied(records[0]!.seq, kept);
    for (const record of records) await this.durable(record);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Every line after those is one this writer encoded, or checked as it copied it.
    await this.held.release({ checked: this.checkedWhole });
  }
}

/**
 * Every run `backend` names, summarized, each with the notes and check mark
 * it was named with: Backend.list for a backend that names its runs before
 * reading them (runNames) and summarizes the ones asked for (summaries).
 */
export async function listByNames(backend: Required<Pick<Backend, 'runNames' | 'summaries'>>, known?: (id: string, version: string) => boolean): Promise<RunSummary[]> {
  const names = await backend.runNames();
  const runs = await backend.summaries(names.map((run) => run.id), known);
  // Both in the order named: a run left out (gone since it was named) is passed over. A backend that summed
  // them up in another order is still served, by a search for each one the walk passed.
  let at = 0;
  for (const summary of runs) {
    while (at < names.length && names[at]!.id !== summary.id) at++;
    const run = at < names.length ? names[at++] : names.find((named) => named.id === summary.id);
    if (run === undefined) continue;
    summary.notes = run.notes;
    if (run.checkedVersion !== undefined) summary.checkedVersion = run.checkedVersion;
  }
  return runs;
}

/** A Store over any Backend: ids, record order, duplicates and gaps, encoding, the meta record and the fold, applied once for every backend. */
export class JournalStore implements Store {
  constructor(protected readonly backendImpl: Backend) {}

  get backend(): string {
    return this.backendImpl.name;
  }

  get exclusiveOpen(): boolean {
    return this.backendImpl.exclusiveOpen === true;
  }

  get location(): string {
    return this.backendImpl.location;
  }

  async create(id: string, meta: MetaPayload): Promise<Journal> {
    validateId(id);
    if (meta.run_id !== id) {
      throw new LogbookError('invalid_meta', `the meta record names run ${meta.run_id}, but it is being created as run ${id}`);
    }
    const metaLine = encodeRecord({ seq: 1, meta });
    const held = await this.backendImpl.create(id, metaLine);
    const trail = keepsCheckpoints(this.backendImpl) ? CheckpointTrail.fromMeta(metaLine) : null;
    return new StoreJournal(id, held, 1, true, this.noteKeeper(id), this.claimer(id), trail, this.checkpointWriter(id));
  }

  async createFromLines(id: string, lines: readonly string[], options: CreateFromLinesOptions = {}): Promise<Journal> {
    validateId(id);
    const first = lines[0];
    if (first === undefined) throw new LogbookError('empty', `run ${id} has no records to copy`);
    const record = decodeLine(first, `line 1 of run ${id}`);
    metaOf(record, id, `run ${id}`);
    if (record.seq !== 1) throw new LogbookError('corrupt', `run ${id}: its meta record has seq ${record.seq}, not 1`);
    const stopIfAborted = (): void => {
      if (options.signal?.aborted) throw new LogbookError('interrupted', `copying run ${id} was interrupted`);
    };
    stopIfAborted();
    const journal = new StoreJournal(id, await this.backendImpl.create(id, first), 1, true, this.noteKeeper(id), this.claimer(id));
    try {
      // A carried note that cannot be kept fails the copy: without it the copy is another run (a compacted run compacted again).
      for (const [key, text] of options.notes ?? []) await this.backendImpl.putNote?.(id, key, text);
      await this.markCopied(id, lines, options.times);
      for (const batch of copyBatches(lines, 1)) await journal.appendCopied(batch, stopIfAborted);
    } catch (err) {
      // The whole run or none of it.
      await journal.close().catch(() => {});
      await this.backendImpl.delete(id).catch(() => {});
      throw err;
    }
    return journal;
  }

  async finishFromLines(id: string, lines: readonly string[], options: Pick<CreateFromLinesOptions, 'times'> = {}): Promise<void> {
    validateId(id);
    if ((await this.copiedThrough(id)) === 0) await this.markCopied(id, lines, options.times);
    const journal = await this.openJournal(id);
    try {
      for (const batch of copyBatches(lines, journal.lastSeq)) await journal.appendCopied(batch); // a journal's seqs run from 1 without a gap
    } finally {
      await journal.close();
    }
  }

  /**
   * Notes that run `id` holds copied records through the last of `lines`: the
   * times they get as they are written (a JetStream message's timestamp, the
   * file backend's note) are the copy's, not theirs, and are not given
   * (Store.times). Kept before the records are, so no copied record is ever
   * taken for a timed one.
   */
  private async markCopied(id: string, lines: readonly string[], times?: RunTimes): Promise<void> {
    const last = decodeLine(lines[lines.length - 1]!, `the last line copied into run ${id}`).seq;
    await this.backendImpl.putNote?.(id, COPIED_NOTE, String(last)).catch(() => {}); // without it, only times are wrong
    if (times !== undefined && (times.records.size > 0 || times.resumed.size > 0)) {
      await this.backendImpl.putNote?.(id, COPIED_TIMES_NOTE, encodeCopiedTimes(times, last)).catch(() => {}); // without it, the copied records have no times
    }
  }

  /** The last seq run `id` holds as copied (markCopied), 0 when none. */
  private async copiedThrough(id: string): Promise<number> {
    const text = await this.backendImpl.getNote?.(id, COPIED_NOTE).catch(() => null);
    const seq = Number(text ?? '0');
    return Number.isSafeInteger(seq) && seq > 0 ? seq : 0;
  }

  async times(id: string): Promise<RunTimes> {
    validateId(id);
    if (this.backendImpl.times === undefined) return NO_TIMES;
    return this.runTimes(id, await this.backendImpl.times(id));
  }

  /**
   * Run `id`'s times, from those its backend kept (`kept`): a copy's records
   * have the times its source kept for them (markCopied), never those they got
   * as the copy was written.
   */
  private async runTimes(id: string, kept: RunTimes): Promise<RunTimes> {
    const copied = await this.copiedThrough(id);
    if (copied === 0) return kept;
    const own = timesAfter(kept, copied);
    const theirs = await this.copiedTimes(id, copied);
    return { records: new Map([...theirs.records, ...own.records]), resumed: new Map([...theirs.resumed, ...own.resumed]) };
  }

  /** The times a copy's source kept for the records copied into run `id`, through seq `copied`. */
  private async copiedTimes(id: string, copied: number): Promise<RunTimes> {
    return decodeCopiedTimes((await this.backendImpl.getNote?.(id, COPIED_TIMES_NOTE).catch(() => null)) ?? null, copied);
  }

  open(id: string, options: OpenOptions = {}): Promise<Journal> {
    return this.openJournal(id, options);
  }

  /** Holds run `id` as `open` does, as this store's own journal (which takes copied lines: appendCopied). */
  private async openJournal(id: string, options: OpenOptions = {}): Promise<StoreJournal> {
    validateId(id);
    const opened = await this.backendImpl.open(id);
    try {
      metaOf(decodeLine(opened.first, `the first line of run ${id}`), id, `run ${id}`);
      const last = decodeLine(opened.last, `the last line of run ${id}`);
      // The load's trail is of the lines through its last seq: the run's, when it still ends there.
      const trail = options.trail?.seq === last.seq && options.checkedThrough === last.seq ? options.trail : null;
      return new StoreJournal(id, opened.run, last.seq, options.checkedThrough === last.seq, this.noteKeeper(id), this.claimer(id), trail, this.checkpointWriter(id));
    } catch (err) {
      await opened.run.release();
      throw err;
    }
  }

  /** How a journal of run `id` claims going on with it, where an open does not exclude other writers. */
  private claimer(id: string): ((at: number, writer: string) => Promise<boolean>) | null {
    if (this.exclusiveOpen) return null;
    const place: ClaimPlace = {
      notesWith: (prefix) => this.notesWith(id, prefix),
      putNote: (key, text) => this.putNote(id, key, text),
      getNote: (key) => this.getNote(id, key),
      answers: (writer) => this.backendImpl.holder?.(id, writer) ?? Promise.resolve(undefined),
    };
    return (at, writer) => claimRunEnd(place, at, writer);
  }

  async recordTime(id: string, seq: number): Promise<number | undefined> {
    validateId(id);
    if (this.backendImpl.recordTime !== undefined) return this.backendImpl.recordTime(id, seq);
    return (await this.times(id)).records.get(seq);
  }

  async held(id: string): Promise<boolean | undefined> {
    validateId(id);
    return this.backendImpl.holder?.(id);
  }

  /** How a journal of run `id` writes its checkpoint. */
  private checkpointWriter(id: string): (text: string) => Promise<void> {
    return (text) => this.backendImpl.writeCheckpoint?.(id, text) ?? Promise.resolve();
  }

  /** How a journal of run `id` keeps its notes. */
  private noteKeeper(id: string): KeepNote {
    return (key, text) => this.backendImpl.putNote?.(id, key, text) ?? Promise.resolve();
  }

  async load(id: string): Promise<LoadedRun> {
    const records: JournalRecord[] = [];
    const { run, metaLine } = await this.readRecords(id, (record) => records.push(record));
    return { ...(await this.folded(id, run, metaLine, foldRead(records, id, run.source), records[0]!)), records };
  }

  async loadFolded(id: string, options: LoadFoldedOptions = {}): Promise<FoldedRun> {
    const { onRecord, onFolded, pace, outputsAsLiterals } = options;
    let first: JournalRecord | undefined;
    let state: RunState | undefined;
    // A load decodes every line before it folds: a line that does not decode is its error even after a record that does not fold.
    let refused: { error: unknown } | undefined;
    const { run, metaLine } = await this.readRecords(id, (record, line, source, n) => {
      if (refused !== undefined) return;
      try {
        onRecord?.(record, line);
        state = foldIn(state, record, id, source, n); // as fold begins: the first record is this format's meta, seq 1
        first ??= record;
        onFolded?.(state);
      } catch (error) {
        refused = { error };
      }
    }, pace, outputsAsLiterals === true ? decodeLineKeepingOutput : decodeLineOf);
    if (refused !== undefined) throw refused.error;
    return this.folded(id, run, metaLine, state!, first!); // readRecords gives one record at least
  }

  /** Run `id` as read (`run`) and folded: its meta checked to be its own (after the fold, as a load always has), and what is kept beside it. */
  private async folded(id: string, run: StoredRun, metaLine: string, state: RunState, first: JournalRecord): Promise<FoldedRun> {
    const meta = metaOf(first, id, run.source);
    const loaded: FoldedRun = {
      state,
      metaLine,
      lastSeq: state.last_seq,
      created: meta.created,
      updated: run.updated.toISOString(),
      times: run.times === undefined ? NO_TIMES : await this.runTimes(id, run.times),
    };
    if (run.held !== undefined) loaded.held = run.held;
    return loaded;
  }

  /**
   * Each line is decoded, checked and folded as its chunk is read, and dropped:
   * what stays is the state, whose conversation holds only what the records
   * decoded to. Nothing else of the run is kept, as the whole of it would be by
   * a load (its lines, then its records) while it decodes and folds.
   */
  async loadState(id: string, options: LoadStateOptions = {}): Promise<LoadedState> {
    return this.foldStream(id, options);
  }

  /**
   * A run read a chunk at a time, each line checked and folded as it comes
   * (loadState): the checks of checkedStream, in a loop over each chunk's lines
   * rather than a generator's step per record (a long run's resume paid for
   * one per record). From the run's checkpoint when it names the journal's
   * first lines as they are (store/checkpoint.ts: then only the lines after
   * them are read, checked and folded), unless every record is to be seen
   * (`onRecord`) or only outlines are read.
   */
  private async foldStream(id: string, options: LoadStateOptions & { outline?: boolean; source?: string }): Promise<LoadedState> {
    validateId(id);
    const { onRecord, calls: tally, forWriting, source = this.sourceOf(id), ...read } = options;
    const start = onRecord === undefined && read.outline !== true ? await fromCheckpoint(this.backendImpl, id) : null;
    const checkpoint = start?.checkpoint;
    const checks = checkpoint === undefined ? new StreamChecks(id, source) : new StreamChecks(id, source, checkpoint.lines, checkpoint.state.last_seq);
    let state = checkpoint?.state;
    let metaLine = checkpoint?.metaLine ?? '';
    const calls: ModelCall[] = checkpoint !== undefined ? [...checkpoint.calls] : [];
    const digest = start?.digest ?? (forWriting === true && keepsCheckpoints(this.backendImpl) ? new LinesDigest() : null);
    const stream = start?.rest ?? this.backendImpl.stream(id, { follow: false, ...read });
    for await (const chunk of stream) {
      if (!('lines' in chunk)) continue;
      digest?.addLines(chunk.lines);
      for (const line of chunk.lines) {
        const record = checks.check(line);
        onRecord?.(record);
        if (tally === true || digest !== null) {
          const call = modelCallOf(record);
          if (call !== null) calls.push(call);
        }
        if (state === undefined) metaLine = line;
        state = foldIn(state, record, id, source, checks.line);
      }
    }
    if (state === undefined) throw new LogbookError('empty', `run ${id} has no records`);
    const loaded: LoadedState = { state, metaLine, lastSeq: state.last_seq };
    if (tally === true) loaded.calls = [...calls];
    if (forWriting === true && digest !== null) loaded.trail = new CheckpointTrail(digest, calls, metaLine, state.last_seq, checkpoint === undefined ? 0 : checkpoint.length);
    return loaded;
  }

  /** The run's stored lines, exactly as stored (a copy between stores, an export of the bytes). */
  async lines(id: string): Promise<string[]> {
    return (await this.readLines(id)).lines;
  }

  async storedLines(id: string): Promise<StoredLines> {
    const { run, lines } = await this.readLines(id);
    return run.held === undefined ? { lines, source: run.source } : { lines, source: run.source, held: run.held };
  }

  /** Where run `id` is read from, as a read names it (StoredRun.source), for a line of it that is streamed; its id where the backend cannot say. */
  private sourceOf(id: string): string {
    return this.backendImpl.sourceOf?.(id) ?? `run ${id}`;
  }

  /**
   * Run `id`'s records, each line decoded as its batch is read and handed to
   * `take` (with the line where it is still held, and where it was read: the
   * source and line number a refusal names), then dropped where the backend
   * reads in batches (Backend.readEach), else as the whole run's lines are
   * decoded: the run's text and its records are never all held here (`take`
   * decides what of them is kept). A line that does not decode names the run
   * in its details (read-fold.ts ofRun).
   */
  private async readRecords(
    id: string,
    take: (record: JournalRecord, line: string | undefined, source: string, n: number) => void,
    pace?: () => Promise<void> | undefined,
    decode: LineDecoder = decodeLineOf,
  ): Promise<{ run: StoredRun; metaLine: string }> {
    validateId(id);
    let taken = 0;
    let metaLine: string | undefined;
    const each = (lines: string[], source: string): Promise<void> | undefined => {
      metaLine ??= lines[0];
      for (const line of lines) {
        const n = ++taken;
        take(decode(line, source, n), line, source, n);
      }
      return pace?.();
    };
    const read = this.backendImpl.readEach;
    if (read === undefined) {
      const { run, lines } = await this.readLines(id);
      const metaLine = lines[0]!;
      let records: JournalRecord[];
      try {
        records = takeRecords(lines, run.source, decode); // the lines read are this load's own
      } catch (err) {
        throw ofRun(err, id);
      }
      for (let i = 0; i < records.length; i++) take(records[i]!, undefined, run.source, i + 1);
      return { run, metaLine };
    }
    let run: StoredRun | null;
    try {
      run = await read.call(this.backendImpl, id, each);
    } catch (err) {
      throw ofRun(err, id);
    }
    if (run === null) throw runNotFound(id);
    if (metaLine === undefined) throw new LogbookError('empty', `${run.source} has no records`);
    return { run, metaLine };
  }

  private async readLines(id: string) {
    validateId(id);
    const run = await this.backendImpl.read(id);
    if (run === null) throw runNotFound(id);
    if (run.lines.length === 0) throw new LogbookError('empty', `${run.source} has no records`);
    return { run, lines: run.lines };
  }

  async *records(id: string, options: RecordsOptions = {}): AsyncGenerator<StreamedRecord> {
    const { select, signal } = options;
    yield* this.checkedStream(id, { follow: false, ...(signal ? { signal } : {}) }, select);
  }

  /** A run's stored lines, streamed, each checked (StreamChecks) unless `select` passes it over; `empty` when it has none. */
  private async *checkedStream(id: string, options: StreamOptions, select?: (line: string) => boolean): AsyncGenerator<StreamedRecord> {
    validateId(id);
    const checks = new StreamChecks(id, this.sourceOf(id));
    for await (const step of this.backendImpl.stream(id, options)) {
      if (!('lines' in step)) continue;
      for (const line of step.lines) {
        if (checks.started && select !== undefined && !select(line)) checks.skip();
        else yield { record: checks.check(line), line };
      }
    }
    if (!checks.started) throw new LogbookError('empty', `run ${id} has no records`);
  }

  async *watch(id: string, options: WatchOptions = {}): AsyncGenerator<StreamedRecord> {
    validateId(id);
    const { signal, onAbsent } = options;
    const source = this.sourceOf(id);
    const checks = new StreamChecks(id, source);
    // Folded as it comes, so a record the fold refuses is named by its line here, before a watcher's own fold meets it.
    let state: RunState | undefined;
    let last: JournalRecord | undefined;
    let told = false;
    const stream: AsyncIterable<Streamed> = this.backendImpl.stream(id, { follow: true, ...(signal ? { signal } : {}) });
    let copied: { through: number; times: RunTimes } | undefined;
    for await (const step of stream) {
      if ('lines' in step) {
        for (let i = 0; i < step.lines.length; i++) {
          const line = step.lines[i]!;
          last = checks.check(line);
          state = foldIn(state, last, id, source, checks.line);
          const kept = step.times?.[i];
          if (copied === undefined && kept !== undefined) {
            const through = await this.copiedThrough(id);
            copied = { through, times: through === 0 ? NO_TIMES : await this.copiedTimes(id, through) };
          }
          const time = copied === undefined ? undefined : last.seq > copied.through ? kept : copied.times.records.get(last.seq);
          yield time !== undefined ? { record: last, line, time } : { record: last, line };
        }
      } else if (last === undefined) {
        if (!told) onAbsent?.();
        told = true;
      } else if ('terminal' in last) {
        return; // caught up on a terminal record: the run has ended
      }
      if (signal?.aborted) return;
    }
  }

  async list(options: ListingOptions = {}): Promise<RunInfo[]> {
    if (options.lineage !== undefined) return this.listLineage(options.lineage, options);
    const index = await this.listingIndex();
    const known = index === null ? undefined : (id: string, version: string): boolean => index.get(id)?.version === version;
    const summaries = (await this.backendImpl.list(known)).filter((s) => isValidId(s.id));
    const runs: RunInfo[] = [];
    const notes = new Map<string, readonly string[] | undefined>();
    const indexed = new Map<string, IndexedEnds>();
    for (const summary of summaries) {
      const entry = summary.endsKnown === true ? index?.get(summary.id) : undefined;
      const known = entry !== undefined && entry.version === summary.version ? entry : undefined;
      const run = known !== undefined ? describeKnown(summary, known.facts) : describe(summary);
      const damaged = options.checkWhole === true && needsWholeCheck(summary, run) && !(await this.checkWhole(summary));
      runs.push(damaged ? describe(summary) : run);
      notes.set(summary.id, summary.notes);
      if (known !== undefined && !damaged) indexed.set(summary.id, known); // the same facts at the same version: kept as read
      else {
        const read = endsFacts(run);
        if (read !== null && summary.version !== undefined && summary.problem === undefined) indexed.set(summary.id, { version: summary.version, facts: read });
      }
    }
    if (index !== null && !sameEntries(index, indexed)) await this.backendImpl.writeListingIndex?.(encodeListingIndex(indexed)).catch(() => {}); // it only saves the next listing work
    return this.describeBeside(runs, notes, options);
  }

  /** The runs listed, described from beside their journals (describeFromNotes); `notes`: the keys the backend listed each with. */
  private async describeBeside(runs: RunInfo[], notes: ReadonlyMap<string, readonly string[] | undefined>, options: ListingOptions): Promise<RunInfo[]> {
    const continues = new Map<string, string>();
    const withNotes = runs.filter((run) => !describedWithoutNotes(run, notes.get(run.runId), options));
    await eachAtOnce(withNotes, NOTE_READS, (run) => this.describeFromNotes(run, notes.get(run.runId), options, continues));
    if (options.lastTurns === true) lastTurnsAlongLineages(runs, continues);
    if (options.noteKeys === true) {
      for (const run of runs) {
        const keys = notes.get(run.runId);
        if (keys !== undefined) run.noteKeys = keys;
      }
    }
    return runs;
  }

  /**
   * The runs of run `id`'s lineage, as the whole listing with their origins
   * would give them. Where the backend names its runs and their notes without
   * reading them (Backend.runNames), only the origin notes are read, and the
   * ends of the runs they connect to `id`, either way (lineageReach: every run
   * of the lineage, whichever of them turn out unreadable); else the store is listed.
   */
  private async listLineage(id: string, options: ListingOptions): Promise<RunInfo[]> {
    const { lineage: _, ...rest } = options;
    const listing: ListingOptions = { ...rest, origins: true };
    const backend = this.backendImpl;
    if (backend.runNames === undefined || backend.summaries === undefined || options.checkWhole === true) return lineageOf(await this.list(listing), id);
    const names = (await backend.runNames()).filter((run) => isValidId(run.id));
    const origins = new Map<string, string>();
    await eachAtOnce(
      names.filter((run) => run.notes.includes(FORK_NOTE)),
      NOTE_READS,
      async (run) => {
        const from = parseForkOrigin(await this.note(run.id, FORK_NOTE))?.from;
        if (from !== undefined) origins.set(run.id, from);
      },
    );
    const reach = lineageReach(origins, id);
    const near = names.filter((run) => reach.has(run.id));
    const runs = (await backend.summaries(near.map((run) => run.id))).map(describe);
    return lineageOf(await this.describeBeside(runs, new Map(near.map((run) => [run.id, run.notes])), listing), id);
  }

  /** The listing index's entries; null where the backend keeps none. */
  private async listingIndex(): Promise<Map<string, IndexedEnds> | null> {
    if (this.backendImpl.readListingIndex === undefined) return null;
    return parseListingIndex(await this.backendImpl.readListingIndex().catch(() => null));
  }

  /**
   * What a listing tells of a run from beside its journal: the first typed turn
   * of a chat opened without a prompt (its second line), and the notes asked
   * for (run-notes.ts). `keys`: the notes the backend listed it with, so only
   * those are read; undefined where it cannot list them, and each is asked for.
   */
  private async describeFromNotes(run: RunInfo, keys: readonly string[] | undefined, options: ListingOptions, continues: Map<string, string>): Promise<void> {
    if (run.status === 'unreadable') return;
    const has = (key: string): boolean => keys === undefined || keys.includes(key);
    if (run.prompt === '') run.prompt = await this.firstTypedTurn(run.runId);
    const mayBeForked = run.status === 'interrupted' || run.status === 'open';
    if ((options.origins === true || mayBeForked) && has(FORK_NOTE)) await this.describeFork(run);
    if (options.places === true && has(PLACE_NOTE)) {
      const place = parsePlace(await this.note(run.runId, PLACE_NOTE));
      if (place !== null) run.place = place;
    }
    if (options.lastTurns === true) {
      const key = keys === undefined ? null : lastTurnKey(keys);
      run.lastTurn = (key === null ? null : await this.note(run.runId, key)) ?? run.prompt;
      // A continuation's prompt is its summary: with no turn typed into it, its last typed turn is its origin's (lastTurnsAlongLineages).
      if (key === null && has(FORK_NOTE)) {
        const origin = run.forkedFrom ?? parseForkOrigin(await this.note(run.runId, FORK_NOTE));
        if (origin?.compacted === true) continues.set(run.runId, origin.from);
      }
    }
  }

  /** A note a listing reads: null when it cannot be read (the listing shows the run all the same). */
  private async note(id: string, key: string): Promise<string | null> {
    return (await this.backendImpl.getNote?.(id, key).catch(() => null)) ?? null;
  }

  /**
   * Reads a run whole, checked as a load checks it (every line decoded, seqs in
   * order, the fold), in bounded memory: damage anywhere, not only at its ends,
   * is then listed as it would be shown (the problem is set on `summary`, and
   * false returned), naming the run by its id, as its row does (its journal's
   * path would crowd the reason out of a listing's column). A run found whole
   * is marked checked at the version listed, so the next listing takes it from
   * its ends.
   */
  private async checkWhole(summary: RunSummary): Promise<boolean> {
    try {
      await this.foldStream(summary.id, { outline: true, source: `run ${summary.id}` });
    } catch (err) {
      if (isLogbookError(err, 'not_found')) return true; // removed since it was listed
      summary.problem = err instanceof Error ? err.message : String(err);
      return false;
    }
    if (summary.version !== undefined) {
      await this.backendImpl.markChecked?.(summary.id, summary.version).catch(() => {}); // a mark only saves the next listing work
    }
    return true;
  }

  /** A fork's origin; one that `session fork` made and nothing has run in since is listed `forked`. */
  private async describeFork(run: RunInfo): Promise<void> {
    const origin = parseForkOrigin(await this.note(run.runId, FORK_NOTE));
    if (origin === null || run.lastSeq === undefined) return;
    run.forkedFrom = origin;
    if (run.foldStatus === 'open') run.status = listedStatus('open', run.held, { origin, lastSeq: run.lastSeq });
  }

  /** Where run `id` was forked from, when `session fork` made it (a note beside it); null otherwise. */
  async forkOrigin(id: string): Promise<ForkOrigin | null> {
    return parseForkOrigin(await this.getNote(id, FORK_NOTE));
  }

  /** Notes where run `id` was forked from: the run and the last seq taken, so a listing can tell a fork nothing has run in. */
  async markFork(id: string, origin: ForkOrigin): Promise<void> {
    await this.putNote(id, FORK_NOTE, encodeForkOrigin(origin));
  }

  async placeOf(id: string): Promise<RunPlace | null> {
    return parsePlace(await this.getNote(id, PLACE_NOTE));
  }

  async markPlace(id: string, place: RunPlace): Promise<void> {
    await this.putNote(id, PLACE_NOTE, encodePlace(place));
  }

  async has(id: string): Promise<boolean> {
    validateId(id);
    return (await this.backendImpl.readLine(id, 1)) !== null;
  }

  /**
   * What was typed first into a run opened without a prompt: its second line,
   * read alone, when that is a user record; else nothing.
   */
  private async firstTypedTurn(id: string): Promise<string> {
    try {
      const line = await this.backendImpl.readLine(id, 2);
      if (line === null) return '';
      return typedText(decodeLine(line, `line 2 of run ${id}`)) ?? '';
    } catch {
      return ''; // the listing shows the run all the same; loading it says what is wrong
    }
  }

  async delete(id: string): Promise<boolean> {
    validateId(id);
    return this.backendImpl.delete(id);
  }

  async putNote(id: string, key: string, text: string): Promise<void> {
    validateId(id);
    checkNoteKey(key);
    await this.backendImpl.putNote?.(id, key, text);
  }

  async getNote(id: string, key: string): Promise<string | null> {
    validateId(id);
    checkNoteKey(key);
    return (await this.backendImpl.getNote?.(id, key)) ?? null;
  }

  get workspace(): WorkspaceStorage | null {
    const home = this.backendImpl.workspaceHome;
    if (home === undefined) return null;
    const shelf = this.backendImpl.workspaceObjects;
    return { home, ...(shelf !== undefined ? { shelf } : {}) };
  }

  liveText(id: string): LiveTextWriter {
    validateId(id);
    return new LiveTextWriter((body) => this.backendImpl.putLive?.(id, body) ?? Promise.resolve());
  }

  async *watchLive(id: string, options: { signal: AbortSignal }): AsyncIterable<LiveText | null> {
    validateId(id);
    const follow = this.backendImpl.followLive?.(id, options.signal);
    if (follow === undefined) return;
    for await (const body of follow) yield parseLiveText(body);
  }

  async noteKeys(id: string): Promise<string[]> {
    validateId(id);
    return (await this.backendImpl.noteKeys?.(id)) ?? [];
  }

  async notesWith(id: string, prefix: string, options: NoteReadOptions = {}): Promise<Map<string, string>> {
    validateId(id);
    const found = new Map<string, string>();
    const keys = (options.keys ?? (await this.noteKeys(id))).filter((key) => key.startsWith(prefix) && options.skip?.(key) !== true).sort();
    await eachAtOnce(keys, NOTE_READS, async (key) => {
      const text = options.strict === true ? ((await this.backendImpl.getNote?.(id, key)) ?? null) : await this.note(id, key);
      if (text !== null) found.set(key, text);
    });
    return new Map([...found].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  async close(): Promise<void> {
    await this.backendImpl.close();
  }
}

/**
 * A continuation no turn was typed into yet shows its origin's last typed
 * turn, not its first user turn, which is a summary (`lastTurn` is its
 * prompt): followed along the lineage, as far as the listing holds it.
 */
function lastTurnsAlongLineages(runs: RunInfo[], continues: ReadonlyMap<string, string>): void {
  if (continues.size === 0) return; // no continuation: every run's last turn is its own
  const byId = new Map(runs.map((run) => [run.runId, run]));
  const lastTurn = (run: RunInfo, seen: Set<string>): string | undefined => {
    const from = continues.get(run.runId);
    if (from === undefined || seen.has(run.runId)) return run.lastTurn;
    seen.add(run.runId);
    const origin = byId.get(from);
    return origin === undefined ? run.lastTurn : lastTurn(origin, seen);
  };
  for (const run of runs) if (continues.has(run.runId)) run.lastTurn = lastTurn(run, new Set()); // for any other, lastTurn is its own
}

/** Runs whose notes a listing reads at once: a JetStream read is a request, and a listing has a run per request in flight. */
const NOTE_READS = 16;
/** The note of a run made from stored lines (a copy, a fork): the last seq copied into it (markCopied). */
const COPIED_NOTE = 'copied';
/** About how many bytes of copied lines go to the backend at once: large writes, each batch's buffer bounded. */
const COPY_BATCH_BYTES = 4 * 1024 * 1024;

/** `lines` from index `from` on, in batches of about COPY_BATCH_BYTES (at least one line each). */
function* copyBatches(lines: readonly string[], from: number): Generator<readonly string[]> {
  let start = from;
  let size = 0;
  for (let i = from; i < lines.length; i++) {
    size += lines[i]!.length + 1;
    if (size >= COPY_BATCH_BYTES) {
      yield lines.slice(start, i + 1);
      start = i + 1;
      size = 0;
    }
  }
  if (start < lines.length) yield lines.slice(start);
}
/** The note of a copy that holds its copied records' own times, as the source kept them (markCopied). */
const COPIED_TIMES_NOTE = 'copied-times';

/** A copy's source times, up to seq `last`, as its note keeps them: `[seq, ms]` pairs. */
function encodeCopiedTimes(times: RunTimes, last: number): string {
  const upTo = (m: ReadonlyMap<number, number>, max: number): [number, number][] => [...m].filter(([seq]) => seq <= max);
  return JSON.stringify({ records: upTo(times.records, last), resumed: upTo(times.resumed, last - 1) });
}

/** The copied-times note read back (only the pairs at or below the copy's last copied seq); no times when it cannot be read. */
function decodeCopiedTimes(text: string | null, last: number): RunTimes {
  if (text === null) return NO_TIMES;
  try {
    const o = JSON.parse(text) as { records?: unknown; resumed?: unknown };
    const pairs = (v: unknown, max: number): Map<number, number> =>
      new Map(
        (Array.isArray(v) ? v : []).filter(
          (p): p is [number, number] => Array.isArray(p) && Number.isSafeInteger(p[0]) && p[0] >= 1 && p[0] <= max && typeof p[1] === 'number' && Number.isFinite(p[1]),
        ),
      );
    return { records: pairs(o.records, last), resumed: pairs(o.resumed, last - 1) };
  } catch {
    return NO_TIMES;
  }
}

/** Calls `fn` on each item, at most `limit` at a time. */
async function eachAtOnce<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** A note key is one lowercase word of letters, digits and dashes: safe in a file name and a subject. */
function checkNoteKey(key: string): void {
  if (!/^[a-z0-9][a-z0-9-]{0,63}$/.test(key)) throw new LogbookError('usage', `invalid note key ${JSON.stringify(key)}`);
}

/**
 * Whether a listing reads a run whole before describing it from its ends: when
 * the backend can name its bytes and no check mark names them, unless a writer
 * may hold it now (listed running, or open where the backend cannot tell): its
 * writer marks it when it lets go, and a live run is not read whole at every listing.
 */
function needsWholeCheck(s: RunSummary, listed: RunInfo): boolean {
  const maybeWritten = listed.status === 'running' || listed.status === 'open';
  return listed.status !== 'unreadable' && !maybeWritten && s.version !== undefined && s.version !== s.checkedVersion;
}

/**
 * Describes from beside its journal a run the backend listed with no notes and
 * a prompt (describeFromNotes would read nothing for it); false where
 * describeFromNotes must: notes to read, or not listed.
 */
function describedWithoutNotes(run: RunInfo, keys: readonly string[] | undefined, options: ListingOptions): boolean {
  if (run.status === 'unreadable') return true;
  if (keys === undefined || keys.length > 0 || run.prompt === '') return false;
  if (options.lastTurns === true) run.lastTurn = run.prompt;
  return true;
}

/** A listing's entry from what the listing index kept of the run's ends, read at the version listed now. */
function describeKnown(s: RunSummary, facts: EndsFacts): RunInfo {
  const { created, model, prompt, interactive, lastSeq, fingerprint, foldStatus } = facts;
  // The fields in describe's order, so that anything printing the entry prints it alike.
  const info: RunInfo = { runId: s.id, created, updated: s.updated.toISOString(), model, prompt, interactive, status: listedStatus(foldStatus, s.held) };
  if (s.held !== undefined) info.held = s.held;
  info.lastSeq = lastSeq;
  info.fingerprint = fingerprint;
  info.foldStatus = foldStatus;
  return info;
}

/** What the listing index keeps of a run's ends, as describe read them; null for a run whose ends could not be read. */
function endsFacts(run: RunInfo): EndsFacts | null {
  if (run.status === 'unreadable' || run.lastSeq === undefined || run.fingerprint === undefined || run.foldStatus === undefined) return null;
  const { created, model, prompt, interactive, lastSeq, fingerprint, foldStatus } = run;
  return { created, model, prompt, interactive, lastSeq, fingerprint, foldStatus };
}

/** Whether two indexes name the same runs at the same versions (the facts follow from the versions). */
function sameEntries(a: ReadonlyMap<string, IndexedEnds>, b: ReadonlyMap<string, IndexedEnds>): boolean {
  if (a.size !== b.size) return false;
  for (const [id, entry] of a) if (b.get(id)?.version !== entry.version) return false;
  return true;
}

/** A listing's entry: meta from the first line, status from the last. */
function describe(s: RunSummary): RunInfo {
  const info: RunInfo = { runId: s.id, created: '', updated: s.updated.toISOString(), model: '', prompt: '', interactive: false, status: 'open' };
  if (s.held !== undefined) info.held = s.held;
  try {
    if (s.problem !== undefined) throw new LogbookError('corrupt', s.problem);
    if (s.first === null || s.last === null) throw new LogbookError('empty', 'the run has no records');
    const meta = metaOf(decodeLine(s.first, 'its first line'), s.id, `run ${s.id}`);
    info.created = meta.created;
    info.model = meta.fingerprint.model;
    info.prompt = meta.prompt;
    info.interactive = meta.interactive === true;
    const last = decodeLine(s.last, 'its last line');
    info.lastSeq = last.seq;
    info.fingerprint = meta.fingerprint;
    info.foldStatus = runStatus(last);
    info.status = listedStatus(info.foldStatus, s.held);
  } catch (err) {
    info.status = 'unreadable';
    info.problem = err instanceof Error ? err.message : String(err);
  }
  return info;
}
