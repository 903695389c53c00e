/**
 * Appending to a run in a stream. A record is one message on its own subject,
 * which the stream keeps write-once (one message per subject, discard new per
 * subject). Every publish is fenced:
 *
 * - on every server, it expects the record's subject to be empty (expected last
 *   subject sequence 0), so a second writer's record for the same seq is refused;
 * - on 2.11 and newer, where the fence can name a wildcard subject, it instead
 *   expects the last message under `<prefix>.<run>.>` to be this writer's last
 *   record, so a stale writer is refused even where its subject is still free
 *   (say the run was deleted and created again). The record subject lies under
 *   that filter, so a message already on it would also break the fence, and the
 *   stream's per-subject limit still makes it write-once.
 *
 * Each open mints a nonce and publishes seq N with message id
 * `<nonce>-N-<digest of the record>`. When a publish is refused, or its ack is
 * lost (timeout, dropped connection), the subject is read back: this writer's
 * message id there means the record is stored and it is adopted; another id is
 * another writer (`locked`, or `exists` for a meta record). The digest keeps
 * adoption to the very same record: a writer whose append failed uncertainly and
 * that then appends something else at that seq (the loop's terminal record after
 * a failed tool result) is refused, whether the server's duplicate check or the
 * read-back sees it, instead of being told a record it never stored is durable.
 * lastSeq advances only after the ack or the adoption.
 *
 * Every publish waits through a stream leader election (election.ts). A retry
 * publishes the very same message (id and body) again, so the stream stores it
 * once: it answers with a duplicate ack, or the fence refuses it and the
 * read-back finds this writer's id, or it was never stored and is stored now.
 * Never twice, and never another record at that seq (the per-subject limit).
 *
 * A record is durable only in the run it was written to. After each write the
 * run's meta record is read back and compared with the one this writer bound
 * (its stream sequence and stored time): when it is gone (the run's subjects
 * were purged) or is another message (the run, or the whole stream, was removed
 * and created again), the record just written is taken back out and the write
 * fails (`journal_gone`) saying which, so a writer never reports success into a
 * run that no longer exists. The stream's creation time, read when the store bound it,
 * tells a replaced stream from a removed run. A read-back the cluster cannot
 * answer within the leader wait, after an acknowledged append, is asked again
 * by the next append and at release rather than failing a stored record.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { PubAck, StoredMsg } from '@nats-io/jetstream';
import { LogbookError, isLogbookError } from '../../core/index.js';
import type { HeldRun } from '../backend.js';
import { apiRefusal, mayBeStored } from './api-errors.js';
import { streamProblems, type StreamBinding } from './binding.js';
import { unavailable, type Link } from './connection.js';
import { NoAnswer, throughElection, within } from './election.js';
import { streamFull, tooLarge } from './full.js';
import { answerForRun, type Answering } from './presence.js';
import { lastMessageOnce } from './reads.js';
import { metaSubject, recordSubject, runFilter } from './subjects.js';

const MSG_ID_HEADER = 'Nats-Msg-Id';


export function mintNonce(): string {
  return randomBytes(9).toString('base64url');
}

/** The message id of seq `seq` with this body; the prefix up to the digest names the writer and seq. */
function messageId(nonce: string, seq: number, body: string): string {
  return `${nonce}-${seq}-${createHash('sha256').update(body).digest('base64url').slice(0, 22)}`;
}

/** A run's meta message as a writer bound it: its stream sequence and its stored time (RFC 3339, nanoseconds). */
export interface MetaMark {
  seq: number;
  time: string;
}

export interface HeldSubjectsOptions {
  runId: string;
  link: Link;
  binding: StreamBinding;
  /** The stream's creation time when the store bound it. */
  streamCreated: string;
  /** The stream sequence of the run's last message (0 when none): what the 2.11 fence expects. */
  tail: number;
  /** The run's meta as opened; null when creating it (the first write is the meta). */
  meta: MetaMark | null;
  onRelease: () => void;
}

/** A run held by this writer: the fence of its appends, and the nonce of its message ids. */
export class HeldSubjects implements HeldRun {
  readonly runId: string;
  private readonly link: Link;
  private readonly binding: StreamBinding;
  private readonly streamCreated: string;
  private tail: number;
  private meta: MetaMark | null;
  private readonly onRelease: () => void;
  private released = false;
  /** A record was appended with the run checked alongside it, not after it. */
  private checkAtRelease = false;
  /** The last seq this writer stored. */
  private lastWritten = 0;
  private readonly nonce = mintNonce();
  /** Its answering for the run (presence.ts). */
  readonly answering: Answering;

  constructor(options: HeldSubjectsOptions) {
    ({
      runId: this.runId,
      link: this.link,
      binding: this.binding,
      streamCreated: this.streamCreated,
      tail: this.tail,
      meta: this.meta,
      onRelease: this.onRelease,
    } = options);
    this.answering = answerForRun(this.link, this.binding.prefix, this.runId, this.nonce);
  }

  /** This writer's id: what it answers with while it holds the run (presence.ts). */
  get writer(): string {
    return this.nonce;
  }

  /** The time kept for the record is its message's, the server's: not known here (undefined; Backend.recordTime reads it). */
  async write(seq: number, body: string): Promise<undefined> {
    try {
      await this.writeChecked(seq, body);
      return undefined;
    } catch (err) {
      // A failed append is the run's failure, said already: no last check is owed at release.
      this.checkAtRelease = false;
      throw err;
    }
  }

  /** Stores the record; resolves with its stream sequence. */
  private async writeChecked(seq: number, body: string): Promise<number> {
    const subject = recordSubject(this.binding.prefix, this.runId, seq);
    const msgId = messageId(this.nonce, seq, body);
    const what = `cannot append seq ${seq} to run ${this.runId} in stream ${this.binding.stream}`;
    const size = Buffer.byteLength(body);
    if (this.link.maxPayload > 0 && size > this.link.maxPayload) {
      throw unavailable(`${what}: the record is ${size} bytes and the NATS server takes at most ${this.link.maxPayload} (its max_payload setting)`);
    }
    // Is the run still the one bound? With the run-wide tail fence (2.11+) a removed or re-created
    // run breaks the fence, so nothing need be read. Before 2.11 the meta is read back alongside
    // the publish, at the cost of one round trip overlapped with the publish's own.
    const early = this.link.tailFence || this.meta === null ? null : this.readMeta().catch(() => undefined);
    /** Set once an attempt's ack is lost or the fence refuses it: from then on the record may be stored. */
    let unsure = false;
    const stored = await throughElection(
      this.link,
      this.binding.stream,
      what,
      async (timeoutMs) => {
        let ack: PubAck;
        try {
          ack = await this.publish(subject, body, msgId, timeoutMs);
        } catch (err) {
          if (mayBeStored(err)) unsure = true;
          const refusal = apiRefusal(err);
          // Refused for want of room, or for its size: nothing was stored.
          if (refusal?.verdict === 'full') throw await streamFull(this.link, this.binding, what, refusal.limit, err);
          if (refusal?.verdict === 'too_large') throw await tooLarge(this.link, this.binding, what, size, err);
          // Anything but the fence is the election wait's to judge (a stream still replicating is waited for).
          if (refusal?.verdict !== 'fenced') throw err;
          // Something holds the subject: this very record, until the read-back says otherwise.
          unsure = true;
          return await this.settle(seq, subject, msgId, what, timeoutMs);
        }
        // A duplicate ack means the stream already holds this very message id: this record, ours.
        return ack.seq;
      },
      {
        missing: () => this.streamDeleted(what, seq),
        unsettled: () => (unsure ? 'it may or may not be stored: open the run again to find out (a stored record is kept, a missing one is appended again)' : null),
      },
    );
    this.tail = stored;
    this.lastWritten = seq;
    if (this.meta !== null && this.link.tailFence) return stored;
    if (early !== null) {
      this.checkAtRelease = true; // the run could have gone between the read and the publish
      const meta = await early;
      if (meta !== undefined && this.isBound(meta)) return stored;
    }
    await this.confirmRun(seq, stored, msgId, what);
    return stored;
  }

  /** The run's meta message now, in one attempt. */
  private readMeta(): Promise<StoredMsg | null> {
    return lastMessageOnce(this.link, this.binding, metaSubject(this.binding.prefix, this.runId), this.link.timeoutMs);
  }

  private async publish(subject: string, body: string, msgId: string, timeoutMs: number): Promise<PubAck> {
    const fence = this.link.tailFence
      ? { lastSubjectSequence: this.tail, lastSubjectSequenceSubject: runFilter(this.binding.prefix, this.runId) }
      : { lastSubjectSequence: 0 };
    const sent = this.link.js.publish(subject, body, { msgID: msgId, expect: fence, timeout: timeoutMs });
    sent.catch(() => {}); // settled below, or abandoned when the connection drops first
    const drop = this.link.onDrop();
    try {
      return await Promise.race([
        sent,
        drop.dropped.then(() => {
          throw new NoAnswer('the connection dropped before the ack arrived');
        }),
      ]);
    } finally {
      drop.cancel();
    }
  }

  /**
   * After a refused publish: reads the subject back and returns the stream
   * sequence of our message when it is there. A failed read is thrown as the
   * client's error, so the election wait retries the publish.
   */
  private async settle(seq: number, subject: string, msgId: string, what: string, timeoutMs: number): Promise<number> {
    const found = await lastMessageOnce(this.link, this.binding, subject, timeoutMs);
    const foundId = found?.header?.get(MSG_ID_HEADER) ?? '';
    if (found !== null && foundId === msgId) return found.seq;
    if (found !== null && foundId.startsWith(`${this.nonce}-${seq}-`)) {
      throw unavailable(
        `${what}: seq ${seq} already holds a different record this writer stored (an earlier append of it whose ack was lost); ` +
          'open the run again to continue from what is stored',
      );
    }
    if (seq === 1) {
      throw new LogbookError(
        'exists',
        `run ${this.runId} already exists in stream ${this.binding.stream}`,
        { details: { runId: this.runId } },
      );
    }
    if (found === null) {
      // The fence saw the run's tail move (2.11): the run may be gone altogether.
      const meta = await lastMessageOnce(this.link, this.binding, metaSubject(this.binding.prefix, this.runId), timeoutMs);
      if (!this.isBound(meta)) throw await this.vanished(what, seq, meta, null);
    }
    const inspect = `inspect it with \`nats stream view ${this.binding.stream} --subject '${runFilter(this.binding.prefix, this.runId)}'\``;
    throw new LogbookError(
      'locked',
      found !== null
        ? `run ${this.runId} has another writer: stream ${this.binding.stream} already holds its seq ${seq}; ${inspect}`
        : `run ${this.runId} changed under this writer in stream ${this.binding.stream} (another writer appended to it); ${inspect}`,
    );
  }

  /** Whether `meta` is the meta message this writer bound. */
  private isBound(meta: StoredMsg | null): boolean {
    return meta !== null && this.meta !== null && meta.seq === this.meta.seq && meta.timestamp === this.meta.time;
  }

  /**
   * Checks, after record `seq` was stored at stream sequence `stored`, that the
   * run is still the one this writer bound. Writing the meta itself (creating),
   * it binds it.
   */
  private async confirmRun(seq: number, stored: number, msgId: string, what: string): Promise<void> {
    let meta: StoredMsg | null;
    try {
      meta = await throughElection(
        this.link,
        this.binding.stream,
        `seq ${seq} of run ${this.runId} was stored in stream ${this.binding.stream}, but whether the run is still there could not be checked`,
        (ms) => lastMessageOnce(this.link, this.binding, metaSubject(this.binding.prefix, this.runId), ms),
        { missing: () => this.streamDeleted(what, seq) },
      );
    } catch (err) {
      // The record is acknowledged, so it is kept; only a removal of a bound run since it was opened
      // is in question. A cluster whose API has no meta leader yet still takes the stream's writes
      // (a server just back after its peers died), so that question waits for the next append's
      // read-back or the release instead of failing a record that is stored.
      if (this.meta === null || !isLogbookError(err, 'unavailable')) throw err;
      this.checkAtRelease = true;
      return;
    }
    if (this.meta === null && seq === 1 && meta !== null && meta.seq === stored) {
      this.meta = { seq: meta.seq, time: meta.timestamp };
      return;
    }
    if (this.isBound(meta)) return;
    throw await this.vanished(what, seq, meta, { seq: stored, msgId });
  }

  /**
   * Why the run this writer bound is not there any more (`journal_gone`), for
   * an append of `seq`. `written`, the record just stored into what is left, is
   * taken back out first when it is still there and still ours, so the run
   * stays as removed as whoever removed it left it.
   */
  private async vanished(what: string, seq: number, meta: StoredMsg | null, written: { seq: number; msgId: string } | null): Promise<LogbookError> {
    const { stream } = this.binding;
    let created: string;
    /** What the stream, changed since, does that can drop a record (a limit that fills it on 2.9). */
    let unfit: string[];
    try {
      const info = await throughElection(this.link, stream, what, (ms) => within(ms, this.link.jsm.streams.info(stream)), {
        missing: () => this.streamDeleted(what, seq),
      });
      created = info.created;
      unfit = streamProblems(info.config, this.binding.prefix);
    } catch (err) {
      return err instanceof LogbookError ? err : this.link.failure(what, err);
    }
    let lost = `seq ${seq} and what follows are not kept`;
    if (written !== null) {
      lost += (await this.takeBack(written.seq, written.msgId))
        ? ' (the record was taken back out)'
        : ` (the record is left at stream sequence ${written.seq}, with what is left of the run)`;
    }
    const cause =
      created !== this.streamCreated
        ? `stream ${stream} was deleted and created again while run ${this.runId} was being written ` +
          `(created ${this.streamCreated} when the run was opened, ${created} now), and the run's records went with the old stream`
        : meta === null && unfit.length > 0
          ? `run ${this.runId}'s meta record was dropped from stream ${stream} while the run was being written: ` +
            `the stream was changed since the run was opened, and ${unfit.join('; ')}`
          : meta === null
          ? `run ${this.runId} was removed from stream ${stream} while it was being written (its meta record is gone)`
          : `run ${this.runId} was removed and created again in stream ${stream} while this writer held it (its meta record is another message now)`;
    return new LogbookError('journal_gone', `${what}: ${cause}; ${lost}. Restore the run from a copy, or start a new run`);
  }

  /** Deletes the message at stream sequence `seq` when it is this writer's `msgId`; true when it is gone. */
  private async takeBack(seq: number, msgId: string): Promise<boolean> {
    try {
      const there = await this.link.jsm.streams.getMessage(this.binding.stream, { seq });
      if (there === null) return true;
      if (there.header?.get(MSG_ID_HEADER) !== msgId) return false;
      return await this.link.jsm.streams.deleteMessage(this.binding.stream, seq, false);
    } catch {
      return false;
    }
  }

  /** The error for a stream deleted under a writer appending `seq`. */
  private streamDeleted(what: string, seq: number): LogbookError {
    return new LogbookError(
      'journal_gone',
      `${what}: stream ${this.binding.stream} no longer exists at ${this.link.url}: it was deleted while run ${this.runId} was being written, ` +
        `and the run's records with it; seq ${seq} and what follows are not kept. Restore the run from a copy, or start a new run`,
    );
  }

  /**
   * Lets the run go. Where a meta read overlapped an append (before 2.11), the
   * run could have been removed between that read and the publish: one last
   * read makes sure, so the last records are never reported kept in a run that
   * is gone.
   */
  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    try {
      if (this.checkAtRelease && this.meta !== null) {
        const what = `cannot keep the last records of run ${this.runId} in stream ${this.binding.stream}`;
        let meta: StoredMsg | null | undefined;
        try {
          meta = await throughElection(this.link, this.binding.stream, what, () => this.readMeta(), {
            missing: () => this.streamDeleted(what, this.lastWritten),
          });
        } catch (err) {
          // Every record was acknowledged; only a removal racing the last ones is in question,
          // and a server that cannot be asked now cannot tell.
          if (!isLogbookError(err, 'journal_gone')) meta = undefined;
          else throw err;
        }
        if (meta !== undefined && !this.isBound(meta)) throw await this.vanished(what, this.lastWritten, meta, null);
      }
    } finally {
      await this.answering.stop();
      this.onRelease();
    }
  }
}
