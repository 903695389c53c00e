/**
 * The JetStream backend: each run is a set of write-once subjects in one stream
 * that the operator created (see binding.ts), reached over one NATS connection
 * the store owns from construction to close().
 *
 * There is no lock to take, so open() is not exclusion: exclusion is the append
 * fence (journal.ts). What open() can check up front, it does: the id is valid;
 * no journal of this store already holds the run (`locked`, the in-process
 * part of exclusion); the run's meta exists (`not_found`) and is a readable
 * record of this version; the run's tail decodes, sits on the subject its seq
 * names, and gives lastSeq (and, for the 2.11 tail fence, the stream sequence to
 * expect). What it cannot know is whether another process has the run open:
 * that writer is fenced out at its first conflicting append with `locked`, and
 * a writer that opens and never appends harms nothing. On servers before 2.11
 * the fence is per record subject, so a writer left holding a run that was
 * deleted and created again is not fenced until its seqs collide; delete() and
 * a recreate while a writer is live is the operator's to avoid there.
 */
import {
  LogbookError,
  fold,
  validateId,
  type JournalRecord,
  type MetaPayload,
} from '../../core/index.js';
import { decodeOptions } from '../options.js';
import type { BackendContext, NatsSettings } from '../registry.js';
import { runNotFound, type Journal, type LoadedRun, type RunInfo, type Store } from '../store.js';
import { checkStreamConfig, missingStream, type StreamBinding } from './binding.js';
import { dial, type Link } from './connection.js';
import { JetStreamJournal } from './journal.js';
import { decodeMessage, lastMessage, readRun, subjectCounts } from './reads.js';
import { allMetaFilter, metaSubject, runFilter, runIdOfMetaSubject } from './subjects.js';

/** Runs described at once by list(). */
const LIST_CONCURRENCY = 16;

const STREAM_NAME = /^[^\s.*>/\\]{1,255}$/;

export interface JetStreamStoreOptions {
  /** The stream to bind; it must exist. */
  stream: string;
  nats: NatsSettings;
  /** Bound on every request and on waiting for a dropped connection; default 5000. */
  timeoutMs?: number;
}

export class JetStreamStore implements Store {
  readonly backend = 'jetstream';
  /** Runs a journal of this store holds open. */
  private readonly held = new Set<string>();

  private constructor(
    private readonly link: Link,
    readonly binding: StreamBinding,
  ) {}

  /** Dials NATS and binds the stream, refusing one that cannot hold journals. */
  static async connect(options: JetStreamStoreOptions): Promise<JetStreamStore> {
    const { stream } = options;
    if (!STREAM_NAME.test(stream)) {
      throw new LogbookError('backend_options', `jetstream backend option "stream" is not a valid stream name: ${JSON.stringify(stream)}`);
    }
    const link = await dial(options.nats, options.timeoutMs);
    try {
      let config;
      try {
        config = (await link.jsm.streams.info(stream)).config;
      } catch (err) {
        if ((err as Error).name === 'StreamNotFoundError') throw missingStream(stream, link.url);
        throw link.failure(`cannot read stream ${stream}`, err);
      }
      return new JetStreamStore(link, checkStreamConfig(config));
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

  /** Marks `id` held by a journal of this store until it closes. */
  private hold(id: string): () => void {
    if (this.held.has(id)) {
      throw new LogbookError('locked', `run ${id} is already open for appending through this store; close that journal first`);
    }
    this.held.add(id);
    return () => this.held.delete(id);
  }

  async create(id: string, meta: MetaPayload): Promise<Journal> {
    validateId(id);
    if (meta.run_id !== id) throw new LogbookError('corrupt', `meta run_id ${meta.run_id} does not match run id ${id}`);
    if (this.held.has(id)) throw new LogbookError('exists', `run ${id} already exists in stream ${this.binding.stream}`);
    const journal = new JetStreamJournal(id, this.link, this.binding, { lastSeq: 0, tail: 0 }, this.hold(id));
    try {
      // The 2.11 fence expects the whole run to be empty; before 2.11 only the
      // meta subject is fenced, so look for records a removed run left behind.
      if (!this.link.tailFence && (await lastMessage(this.link, this.binding, runFilter(this.binding.prefix, id))) !== null) {
        throw new LogbookError(
          'exists',
          `run ${id} already has records in stream ${this.binding.stream}; pick another id or remove them with \`logbook session rm ${id}\``,
        );
      }
      await journal.append(1, { meta });
    } catch (err) {
      await journal.close();
      throw err;
    }
    return journal;
  }

  async open(id: string): Promise<Journal> {
    validateId(id);
    const release = this.hold(id);
    try {
      const tail = await lastMessage(this.link, this.binding, runFilter(this.binding.prefix, id));
      if (tail === null) throw runNotFound(id);
      const meta = tail.subject === metaSubject(this.binding.prefix, id) ? tail : await lastMessage(this.link, this.binding, metaSubject(this.binding.prefix, id));
      if (meta === null) throw new LogbookError('no_meta', `run ${id} in stream ${this.binding.stream} has records but no meta record`);
      const first = decodeMessage(this.binding.stream, meta.subject, meta.data);
      if (!('meta' in first)) throw new LogbookError('no_meta', `run ${id} in stream ${this.binding.stream} does not start with a meta record`);
      const last = tail === meta ? first : decodeMessage(this.binding.stream, tail.subject, tail.data);
      return new JetStreamJournal(id, this.link, this.binding, { lastSeq: last.seq, tail: tail.seq }, release);
    } catch (err) {
      release();
      throw err;
    }
  }

  async load(id: string): Promise<LoadedRun> {
    validateId(id);
    const read = await readRun(this.link, this.binding, id);
    if (read === null) throw runNotFound(id);
    const { records } = read;
    const state = fold(records);
    return {
      state,
      records,
      lastSeq: records[records.length - 1]!.seq,
      created: (records[0] as JournalRecord & { meta: MetaPayload }).meta.created,
      updated: read.updated.toISOString(),
    };
  }

  async list(): Promise<RunInfo[]> {
    const counts = await subjectCounts(this.link, this.binding, allMetaFilter(this.binding.prefix));
    const ids = Object.keys(counts)
      .map((s) => runIdOfMetaSubject(this.binding.prefix, s))
      .filter((id): id is string => id !== null);
    const runs: RunInfo[] = [];
    for (let i = 0; i < ids.length; i += LIST_CONCURRENCY) {
      const described = await Promise.all(ids.slice(i, i + LIST_CONCURRENCY).map((id) => this.describe(id)));
      for (const info of described) if (info !== null) runs.push(info);
    }
    return runs;
  }

  /** Meta and status from two single-message reads (one when the meta is the tail); never the whole run. */
  private async describe(id: string): Promise<RunInfo | null> {
    const tail = await lastMessage(this.link, this.binding, runFilter(this.binding.prefix, id));
    if (tail === null) return null; // deleted since it was listed
    const info: RunInfo = { runId: id, created: '', updated: tail.time.toISOString(), model: '', prompt: '', status: 'open' };
    try {
      const metaSubj = metaSubject(this.binding.prefix, id);
      const meta = tail.subject === metaSubj ? tail : await lastMessage(this.link, this.binding, metaSubj);
      if (meta === null) throw new LogbookError('no_meta', 'the run has no meta record');
      const first = decodeMessage(this.binding.stream, meta.subject, meta.data);
      if (!('meta' in first)) throw new LogbookError('no_meta', 'the run does not start with a meta record');
      info.created = first.meta.created;
      info.model = first.meta.fingerprint.model;
      info.prompt = first.meta.prompt;
      const last = tail === meta ? first : decodeMessage(this.binding.stream, tail.subject, tail.data);
      info.status = 'terminal' in last ? last.terminal.reason : 'open';
    } catch (err) {
      if (isUnreachable(err)) throw err;
      info.status = 'unreadable';
      info.problem = err instanceof Error ? err.message : String(err);
    }
    return info;
  }

  async delete(id: string): Promise<boolean> {
    validateId(id);
    const release = this.hold(id);
    const what = `cannot remove run ${id} from stream ${this.binding.stream}`;
    try {
      await this.link.ensureConnected(what);
      const res = await this.link.jsm.streams.purge(this.binding.stream, { filter: runFilter(this.binding.prefix, id) });
      return res.purged > 0;
    } catch (err) {
      throw this.link.failure(what, err);
    } finally {
      release();
    }
  }

  async close(): Promise<void> {
    await this.link.close();
  }
}

function isUnreachable(err: unknown): boolean {
  return err instanceof LogbookError && err.code === 'unavailable';
}


/** Builds the store from the `session.options` mapping and the config's `nats` block. */
export async function jetStreamStoreFromOptions(options: Record<string, unknown>, context: BackendContext): Promise<JetStreamStore> {
  const opts = decodeOptions('jetstream', options, { stream: { kind: 'string', required: true } });
  if (context.nats === undefined || context.nats.url === '') {
    throw new LogbookError(
      'config',
      'the jetstream session backend needs NATS settings: add a `nats:` block with `url:` (and `creds:` when the server wants credentials) to the config',
    );
  }
  return JetStreamStore.connect({ stream: opts.stream as string, nats: context.nats });
}
