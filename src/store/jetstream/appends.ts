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
 */
import { createHash, randomBytes } from 'node:crypto';
import type { PubAck, StoredMsg } from '@nats-io/jetstream';
import { LogbookError } from '../../core/index.js';
import type { HeldRun } from '../backend.js';
import type { StreamBinding } from './binding.js';
import { unavailable, type Link } from './connection.js';
import { lastMessage } from './reads.js';
import { recordSubject, runFilter } from './subjects.js';

const MSG_ID_HEADER = 'Nats-Msg-Id';

/**
 * The server's "error storing message" (JSStreamStoreFailedF), which a stream
 * with discard-new-per-subject answers when a subject already holds its one
 * message. The client has no name for it.
 */
const STREAM_STORE_FAILED = 10077;

/** Whether the fence or the per-subject limit refused the publish. */
function isFenced(err: unknown, link: Link): boolean {
  const e = err as { name?: string; code?: number };
  if (e?.name !== 'JetStreamApiError' || typeof e.code !== 'number') return false;
  const codes = link.apiCodes;
  return e.code === codes.StreamWrongLastSequence || e.code === codes.StreamWrongLastSequenceUnknown || e.code === STREAM_STORE_FAILED;
}

/** The publish never reached a stream: nothing was stored. */
function notStored(err: unknown, link: Link): boolean {
  const name = (err as Error | undefined)?.name;
  return name === 'JetStreamNotEnabled' || (name === 'JetStreamApiError' && !isFenced(err, link));
}

class ConnectionDropped extends Error {
  override readonly name = 'ConnectionDropped';
}

export function mintNonce(): string {
  return randomBytes(9).toString('base64url');
}

/** The message id of seq `seq` with this body; the prefix up to the digest names the writer and seq. */
function messageId(nonce: string, seq: number, body: string): string {
  return `${nonce}-${seq}-${createHash('sha256').update(body).digest('base64url').slice(0, 22)}`;
}

/** A run held by this writer: the fence of its appends, and the nonce of its message ids. */
export class HeldSubjects implements HeldRun {
  private released = false;
  private readonly nonce = mintNonce();

  constructor(
    readonly runId: string,
    private readonly link: Link,
    private readonly binding: StreamBinding,
    /** The stream sequence of the run's last message (0 when none): what the 2.11 fence expects. */
    private tail: number,
    private readonly onRelease: () => void,
  ) {}

  async write(seq: number, body: string): Promise<void> {
    const subject = recordSubject(this.binding.prefix, this.runId, seq);
    const msgId = messageId(this.nonce, seq, body);
    const what = `cannot append seq ${seq} to run ${this.runId} in stream ${this.binding.stream}`;
    const size = Buffer.byteLength(body);
    if (this.link.maxPayload > 0 && size > this.link.maxPayload) {
      throw unavailable(`${what}: the record is ${size} bytes and the NATS server takes at most ${this.link.maxPayload} (its max_payload setting)`);
    }
    await this.link.ensureConnected(what);
    let stored: number;
    try {
      const ack = await this.publish(subject, body, msgId);
      // A duplicate ack means the stream already holds this very message id: this record, ours.
      stored = ack.seq;
    } catch (err) {
      if (notStored(err, this.link)) throw this.link.failure(what, err);
      stored = await this.settle(seq, subject, msgId, err, what);
    }
    this.tail = stored;
  }

  private async publish(subject: string, body: string, msgId: string): Promise<PubAck> {
    const fence = this.link.tailFence
      ? { lastSubjectSequence: this.tail, lastSubjectSequenceSubject: runFilter(this.binding.prefix, this.runId) }
      : { lastSubjectSequence: 0 };
    const sent = this.link.js.publish(subject, body, { msgID: msgId, expect: fence, timeout: this.link.timeoutMs });
    sent.catch(() => {}); // settled below, or abandoned when the connection drops first
    const drop = this.link.onDrop();
    try {
      return await Promise.race([
        sent,
        drop.dropped.then(() => {
          throw new ConnectionDropped('the connection dropped before the ack arrived');
        }),
      ]);
    } finally {
      drop.cancel();
    }
  }

  /**
   * After a refused or unacknowledged publish: reads the subject back and returns
   * the stream sequence of our message when it is there.
   */
  private async settle(seq: number, subject: string, msgId: string, cause: unknown, what: string): Promise<number> {
    const fenced = isFenced(cause, this.link);
    const outcome = fenced ? 'the fence refused it' : 'its ack never came, so it may or may not be stored';
    let found: StoredMsg | null;
    try {
      await this.link.ensureConnected(`${what}: ${outcome}`);
      found = await lastMessage(this.link, this.binding, subject);
    } catch (err) {
      throw unavailable(`${(err as Error).message}; open the run again to find out: a stored record is kept, a missing one is appended again`, err);
    }
    const foundId = found?.header?.get(MSG_ID_HEADER) ?? '';
    if (found !== null && foundId === msgId) return found.seq;
    if (found !== null && foundId.startsWith(`${this.nonce}-${seq}-`)) {
      throw unavailable(
        `${what}: seq ${seq} already holds a different record this writer stored (an earlier append of it whose ack was lost); ` +
          'open the run again to continue from what is stored',
      );
    }
    if (found === null && !fenced) {
      throw this.link.failure(`${what}: it was not stored`, cause);
    }
    if (seq === 1) {
      throw new LogbookError(
        'exists',
        `run ${this.runId} already exists in stream ${this.binding.stream}; pick another id or remove it with \`logbook session rm ${this.runId}\``,
      );
    }
    const inspect = `inspect it with \`nats stream view ${this.binding.stream} --subject '${runFilter(this.binding.prefix, this.runId)}'\``;
    throw new LogbookError(
      'locked',
      found !== null
        ? `run ${this.runId} has another writer: stream ${this.binding.stream} already holds its seq ${seq}; ${inspect}`
        : `run ${this.runId} changed under this writer in stream ${this.binding.stream} (another writer appended to it, or it was removed); ${inspect}`,
    );
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    this.onRelease();
  }
}
