/**
 * The JetStream backend: each run is a set of write-once subjects in one stream
 * that the operator created (see binding.ts), reached over one NATS connection
 * the store owns from construction to close().
 *
 * There is no lock to take, so open() is not exclusion: exclusion is the append
 * fence (appends.ts). What open() can check up front, it does: the id is valid;
 * no journal of this store already holds the run (`locked`, the in-process
 * part of exclusion); the run's meta exists (`not_found`) and is a readable
 * record of this version; the run's tail decodes, sits on the subject its seq
 * names, and gives lastSeq (and, for the 2.11 tail fence, the stream sequence to
 * expect). What it cannot know is whether another process has the run open:
 * that writer is fenced out at its first conflicting append with `locked`, and
 * a writer that opens and never appends harms nothing. A run removed (or its
 * stream replaced) under a writer is found by the check after each append
 * (appends.ts), on every server version.
 *
 * Every request waits through a stream leader election (election.ts) for at
 * most `leaderWaitMs`, telling `onWait` while it waits.
 */
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { LogbookError, type RunTimes } from '../../core/index.js';
import type { Backend, BackendContext, HeldRun, NatsSettings, ObjectShelf, OpenedRun, RunNames, RunSummary, StoredRun, StreamOptions, Streamed, WaitListener } from '../backend.js';
import { BUCKET_NAME, JetStreamShelf } from './objects.js';
import { JournalStore, listByNames } from '../journal-store.js';
import { decodeOptions } from '../options.js';
import { runNotFound } from '../store.js';
import { apiRefusal } from './api-errors.js';
import { checkStreamConfig, type StreamBinding } from './binding.js';
import { dial, type Link } from './connection.js';
import { HeldSubjects, type MetaMark } from './appends.js';
import { LEADER_WAIT_MS, throughElection, within } from './election.js';
import { streamFull } from './full.js';
import { writerAnswers } from './presence.js';
import { followRun, lastMessage, lineOf, readRun, resumeMarks, runBatches, runTimes, storedMsgAt, streamInfo, subjectCounts } from './reads.js';
import { allMetaFilter, allNotesFilter, liveSubject, metaSubject, noteOfSubject, noteSubject, notesFilter, notesKeysFilter, recordSubject, runFilter, runIdOfMetaSubject } from './subjects.js';

/** Runs described at once by list(). */
const LIST_CONCURRENCY = 16;

const STREAM_NAME = /^[^\s.*>/\\]{1,255}$/;

/** Where JetStreamStore.connect connects. */
export interface JetStreamStoreOptions {
  /** The stream to bind; it must exist. */
  stream: string;
  nats: NatsSettings;
  /** Bound on every request and on waiting for a dropped connection; default 5000. */
  timeoutMs?: number;
  /** How long a request waits for the stream to have a leader again; default LEADER_WAIT_MS. */
  leaderWaitMs?: number;
  /** Told while a request waits for a stream leader, and null once it is over. */
  onWait?: WaitListener;
  /** The object store workspace snapshots are shared in (bound, never created); without it they stay on this machine. */
  objects?: string;
  /** Where this machine keeps its copy of workspace snapshots (a state directory's `workspace`). */
  workspaceHome?: string;
}

/** The JetStream backend: one message per record on one subject per run, in a stream the operator made (it binds one, never creates it). */
export class JetStreamBackend implements Backend {
  readonly name = 'jetstream';
  /** Runs a writer of this backend holds. */
  private readonly held = new Set<string>();

  private constructor(
    private readonly link: Link,
    /** @internal */
    readonly binding: StreamBinding,
    /** When the bound stream was created: a writer compares it to tell a replaced stream. */
    private readonly streamCreated: string,
    /** Where this machine keeps workspace snapshots; absent: none are kept. */
    readonly workspaceHome?: string,
    /** The object store they are shared in, when one is named. */
    readonly workspaceObjects?: ObjectShelf,
  ) {}

  /** Dials NATS and binds the stream, refusing one that cannot hold journals. */
  static async connect(options: JetStreamStoreOptions): Promise<JetStreamBackend> {
    const { stream } = options;
    if (!STREAM_NAME.test(stream)) {
      throw new LogbookError('backend_options', `jetstream backend option "stream" is not a valid stream name: ${JSON.stringify(stream)}`);
    }
    const link = await dial(options.nats, {
      leaderWaitMs: options.leaderWaitMs ?? LEADER_WAIT_MS,
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.onWait !== undefined ? { onWait: options.onWait } : {}),
    });
    try {
      const info = await streamInfo(link, stream);
      if (options.objects !== undefined && !BUCKET_NAME.test(options.objects)) {
        throw new LogbookError('backend_options', `jetstream backend option "objects" is not a valid object store name: ${JSON.stringify(options.objects)}`);
      }
      const shelf = options.objects !== undefined ? new JetStreamShelf(link, options.objects) : undefined;
      return new JetStreamBackend(link, checkStreamConfig(info.config), info.created, options.workspaceHome, shelf);
    } catch (err) {
      await link.close().catch(() => {});
      throw err;
    }
  }

  get location(): string {
    return `jetstream stream ${this.binding.stream} (subjects ${this.binding.prefix}.>) at ${this.link.url}`;
  }

  /** Whether appends fence on the run's whole tail (server 2.11 and newer) rather than on the record subject alone. */
  get tailFence(): boolean {
    return this.link.tailFence;
  }

  /** The version of the NATS server the store is connected to. */
  get serverVersion(): string {
    return this.link.serverVersion;
  }

  /** Marks `id` held by a writer of this backend until it lets go. */
  private hold(id: string): () => void {
    if (this.held.has(id)) {
      throw new LogbookError('locked', `run ${id} is already open for appending through this store; close that journal first`);
    }
    this.held.add(id);
    return () => this.held.delete(id);
  }

  async create(id: string, metaLine: string): Promise<HeldRun> {
    if (this.held.has(id)) throw new LogbookError('exists', `run ${id} already exists in stream ${this.binding.stream}`, { details: { runId: id } });
    const run = this.heldRun(id, 0, null, this.hold(id));
    try {
      // The 2.11 fence expects the whole run to be empty; before 2.11 only the
      // meta subject is fenced, so look for records a removed run left behind.
      if (!this.link.tailFence && (await lastMessage(this.link, this.binding, runFilter(this.binding.prefix, id))) !== null) {
        throw new LogbookError(
          'exists',
          `run ${id} already has records in stream ${this.binding.stream}`,
          { details: { runId: id } },
        );
      }
      await run.write(1, metaLine);
    } catch (err) {
      await run.release();
      throw err;
    }
    return run;
  }

  async open(id: string): Promise<OpenedRun> {
    const release = this.hold(id);
    try {
      const { first, last, tail, meta } = await this.ends(id);
      await this.markResumed(id, last);
      const run = this.heldRun(id, tail, meta, release);
      await run.answering.ready;
      return { run, first, last };
    } catch (err) {
      release();
      throw err;
    }
  }

  /**
   * Marks that a writer takes run `id` up again after its last record: a note
   * of its own (`resumed-<seq>-<nonce>`, write-once like every note), whose
   * message timestamp is the resume's time (Backend.times). Best effort: a mark
   * lost only costs the duration of the step the resume starts.
   */
  private async markResumed(id: string, lastLine: string): Promise<void> {
    const seq = /^\{"seq":(\d{1,15})\b/.exec(lastLine)?.[1];
    if (seq === undefined) return;
    const subject = noteSubject(this.binding.prefix, id, `resumed-${seq}-${randomBytes(6).toString('hex')}`);
    try {
      await this.link.js.publish(subject, '', { timeout: this.link.timeoutMs });
    } catch {
      /* the run goes on without the mark */
    }
  }

  private heldRun(runId: string, tail: number, meta: MetaMark | null, onRelease: () => void): HeldSubjects {
    return new HeldSubjects({ runId, link: this.link, binding: this.binding, streamCreated: this.streamCreated, tail, meta, onRelease });
  }

  /** The run's meta line and last line, from two single-message reads (one when the meta is the tail). */
  private async ends(id: string): Promise<{ first: string; last: string; tail: number; meta: MetaMark; updated: Date }> {
    const tail = await lastMessage(this.link, this.binding, runFilter(this.binding.prefix, id));
    if (tail === null) throw runNotFound(id);
    const metaSubj = metaSubject(this.binding.prefix, id);
    const meta = tail.subject === metaSubj ? tail : await lastMessage(this.link, this.binding, metaSubj);
    if (meta === null) throw new LogbookError('no_meta', `run ${id} in stream ${this.binding.stream} has records but no meta record`);
    const first = lineOf(this.binding.stream, meta.subject, meta.data);
    const last = tail === meta ? first : lineOf(this.binding.stream, tail.subject, tail.data);
    return { first, last, tail: tail.seq, meta: { seq: meta.seq, time: meta.timestamp }, updated: tail.time };
  }

  async read(id: string): Promise<StoredRun | null> {
    const read = await readRun(this.link, this.binding, id);
    if (read === null) return null;
    const records = new Map<number, number>();
    read.lines.forEach((line, i) => {
      const seq = /^\{"seq":(\d{1,15})\b/.exec(line)?.[1];
      if (seq !== undefined) records.set(Number(seq), read.times[i]!);
    });
    const times = { records, resumed: await resumeMarks(this.link, this.binding, id) };
    return { lines: read.lines, updated: read.updated, source: this.sourceOf(id), times };
  }

  sourceOf(id: string): string {
    return `stream ${this.binding.stream} run ${id}`;
  }

  /** Each record's message timestamp (read from headers alone) and the resume marks (reads.ts runTimes). */
  async times(id: string): Promise<RunTimes> {
    return runTimes(this.link, this.binding, id);
  }

  /** An ordered consumer on the run's subjects: a batch at a time, or following (reads.ts). */
  async *stream(id: string, options: StreamOptions): AsyncGenerator<Streamed> {
    if (options.follow) {
      yield* followRun(this.link, this.binding, id, options.signal);
      return;
    }
    const batches = await runBatches(this.link, this.binding, id);
    if (batches === null) throw runNotFound(id);
    for await (const batch of batches) {
      if (options.signal?.aborted) return;
      yield batch;
    }
  }

  list(): Promise<RunSummary[]> {
    return listByNames(this);
  }

  /** Two subject listings: the runs' meta subjects, and their note subjects. */
  async runNames(): Promise<RunNames[]> {
    const counts = await subjectCounts(this.link, this.binding, allMetaFilter(this.binding.prefix));
    const ids = Object.keys(counts)
      .map((s) => runIdOfMetaSubject(this.binding.prefix, s))
      .filter((id): id is string => id !== null);
    const notes = ids.length === 0 ? new Map<string, string[]>() : await this.allNoteKeys();
    return ids.map((id) => ({ id, notes: notes.get(id) ?? [] }));
  }

  async summaries(ids: readonly string[]): Promise<RunSummary[]> {
    const runs: RunSummary[] = [];
    for (let i = 0; i < ids.length; i += LIST_CONCURRENCY) {
      const described = await Promise.all(ids.slice(i, i + LIST_CONCURRENCY).map((id) => this.summarize(id)));
      for (const summary of described) if (summary !== null) runs.push(summary);
    }
    return runs;
  }

  /** The note keys of every run, by run id: one listing of the note subjects. */
  private async allNoteKeys(): Promise<Map<string, string[]>> {
    const keys = new Map<string, string[]>();
    for (const subject of Object.keys(await subjectCounts(this.link, this.binding, allNotesFilter(this.binding.prefix)))) {
      const note = noteOfSubject(this.binding.prefix, subject);
      if (note === null) continue;
      const list = keys.get(note.id);
      if (list === undefined) keys.set(note.id, [note.key]);
      else list.push(note.key);
    }
    return keys;
  }

  private async summarize(id: string): Promise<RunSummary | null> {
    try {
      const { first, last, updated } = await this.ends(id);
      return { id, first, last, updated };
    } catch (err) {
      if (err instanceof LogbookError && err.code === 'not_found') return null; // deleted since it was listed
      if (err instanceof LogbookError && err.code === 'unavailable') throw err;
      return { id, first: null, last: null, updated: new Date(0), problem: err instanceof Error ? err.message : String(err) };
    }
  }

  /** One last-by-subject get: line `index` sits on the subject of seq `index`. */
  async readLine(id: string, index: number): Promise<string | null> {
    if (!Number.isSafeInteger(index) || index < 1) return null;
    const subject = recordSubject(this.binding.prefix, id, index);
    const msg = await lastMessage(this.link, this.binding, subject);
    return msg === null ? null : lineOf(this.binding.stream, msg.subject, msg.data);
  }

  async delete(id: string): Promise<boolean> {
    const release = this.hold(id);
    const what = `cannot remove run ${id} from stream ${this.binding.stream}`;
    try {
      const res = await throughElection(this.link, this.binding.stream, what, (ms) =>
        within(ms, this.link.jsm.streams.purge(this.binding.stream, { filter: runFilter(this.binding.prefix, id) })),
      );
      await throughElection(this.link, this.binding.stream, what, (ms) =>
        within(ms, this.link.jsm.streams.purge(this.binding.stream, { filter: notesFilter(this.binding.prefix, id) })),
      );
      return res.purged > 0;
    } finally {
      release();
    }
  }

  /** A note is one message on its own subject; the stream keeps it write-once, so writing it again changes nothing. */
  async putNote(id: string, key: string, text: string): Promise<void> {
    const subject = noteSubject(this.binding.prefix, id, key);
    if ((await lastMessage(this.link, this.binding, subject)) !== null) return;
    const what = `cannot keep note ${key} of run ${id} in stream ${this.binding.stream}`;
    try {
      await this.link.ensureConnected(what);
      // Expecting the subject empty makes the first writer's note the one kept when two race.
      await this.link.js.publish(subject, text, { timeout: this.link.timeoutMs, expect: { lastSubjectSequence: 0 } });
    } catch (err) {
      if ((await lastMessage(this.link, this.binding, subject)) !== null) return; // another writer kept the same note
      const refusal = apiRefusal(err);
      if (refusal?.verdict === 'full') throw await streamFull(this.link, this.binding, what, refusal.limit, err);
      throw this.link.failure(what, err);
    }
  }

  async getNote(id: string, key: string): Promise<string | null> {
    const found = await lastMessage(this.link, this.binding, noteSubject(this.binding.prefix, id, key));
    return found === null ? null : new TextDecoder().decode(found.data);
  }

  /** The record's message time: one last-by-subject read of its subject. */
  async recordTime(id: string, seq: number): Promise<number | undefined> {
    const msg = await lastMessage(this.link, this.binding, recordSubject(this.binding.prefix, id, seq));
    return msg === null ? undefined : storedMsgAt(msg);
  }

  /** A writer answers for the run it holds while its process lives (presence.ts). */
  holder(id: string, writer?: string): Promise<boolean> {
    return writerAnswers(this.link, this.binding.prefix, id, writer);
  }

  /** Live text is a core message on a subject beside the run's, outside the stream: never stored, lost to whoever is not listening. */
  async putLive(id: string, body: string | null): Promise<void> {
    if (this.link.nc.isClosed()) return;
    this.link.nc.publish(liveSubject(this.binding.prefix, id), body ?? '');
  }

  async *followLive(id: string, signal: AbortSignal): AsyncIterable<string | null> {
    const sub = this.link.nc.subscribe(liveSubject(this.binding.prefix, id));
    const stop = (): void => sub.unsubscribe();
    signal.addEventListener('abort', stop, { once: true });
    try {
      for await (const msg of sub) {
        const body = msg.string();
        yield body === '' ? null : body;
      }
    } finally {
      signal.removeEventListener('abort', stop);
      sub.unsubscribe();
    }
  }

  /** One listing of the run's note subjects. */
  async noteKeys(id: string): Promise<string[]> {
    const keys: string[] = [];
    for (const subject of Object.keys(await subjectCounts(this.link, this.binding, notesKeysFilter(this.binding.prefix, id)))) {
      const note = noteOfSubject(this.binding.prefix, subject);
      if (note !== null && note.id === id) keys.push(note.key);
    }
    return keys;
  }

  async close(): Promise<void> {
    await this.link.close();
  }
}

/** The JetStream backend as a Store. */
export class JetStreamStore extends JournalStore {
  private constructor(private readonly jetstream: JetStreamBackend) {
    super(jetstream);
  }

  /** Connects to the NATS server and binds the stream `options` name: refused (`stream_config`) for a stream that cannot hold journals, with the `nats` command that fixes it. */
  static async connect(options: JetStreamStoreOptions): Promise<JetStreamStore> {
    return new JetStreamStore(await JetStreamBackend.connect(options));
  }

  /** @internal */
  get binding(): StreamBinding {
    return this.jetstream.binding;
  }

  /** Whether the server fences an append on the run's whole tail (NATS 2.11 and newer), not only on its meta subject. */
  get tailFence(): boolean {
    return this.jetstream.tailFence;
  }

  /** The NATS server's version, as it reported it. */
  get serverVersion(): string {
    return this.jetstream.serverVersion;
  }
}

/** Builds the backend from the `session.options` mapping and the context's `nats` settings. */
export async function jetStreamBackendFromOptions(options: Record<string, unknown>, context: BackendContext): Promise<JetStreamBackend> {
  const opts = decodeOptions('jetstream', options, { stream: { kind: 'string', required: true }, objects: { kind: 'string' } });
  if (context.nats === undefined || context.nats.url === '') {
    throw new LogbookError(
      'config',
      'the jetstream session backend needs NATS settings: add a `nats:` block with `url:` (and `creds:` when the server wants credentials) to the config',
    );
  }
  return JetStreamBackend.connect({
    stream: opts.stream as string,
    nats: context.nats,
    ...(context.onWait !== undefined ? { onWait: context.onWait } : {}),
    ...(typeof opts.objects === 'string' ? { objects: opts.objects } : {}),
    ...(context.stateDir !== undefined ? { workspaceHome: join(resolve(context.stateDir), 'workspace') } : {}),
  });
}
