/**
 * Reading runs back. A whole run is read with an ordered consumer filtered to
 * the run's subjects and sized by its pending count when made, so a read
 * takes exactly the records that existed when it started and never waits for
 * more. Single records (a run's tail, its meta, one subject) are read by
 * last-by-subject gets, which never touch the rest of the run. Every read
 * waits through a stream leader election (election.ts). A run is also read as
 * a stream, a fetch at a time, or followed as it grows.
 */
import type { ConsumerMessages, JsMsg, StoredMsg, StreamInfo } from '@nats-io/jetstream';
import { LogbookError, type RunTimes } from '../../core/index.js';
import type { Streamed } from '../backend.js';
import type { StreamBinding } from './binding.js';
import type { Link } from './connection.js';
import { NoAnswer, throughElection, within } from './election.js';
import { checkRecordSubject, noteSubject, notesKeysFilter, runFilter, seqOfRecordSubject } from './subjects.js';

/** Records fetched per pull, bounding one request's size on long runs. */
const FETCH_BATCH = 512;

/** The shortest pull the client accepts. */
const MIN_FETCH_EXPIRES_MS = 1_000;

const utf8 = new TextDecoder();

/** One message body as a stored line, checked to sit on the subject its seq names. */
export function lineOf(stream: string, subject: string, data: Uint8Array): string {
  const line = utf8.decode(data);
  checkRecordSubject(subject, line, stream);
  return line;
}

/**
 * The last message on `filter` (a subject or a wildcard), or null when there is
 * none: one request, answered within `timeoutMs`, its client errors unmapped,
 * for callers that retry it themselves.
 */
export function lastMessageOnce(link: Link, binding: Pick<StreamBinding, 'stream'>, filter: string, timeoutMs: number): Promise<StoredMsg | null> {
  return within(timeoutMs, link.jsm.streams.getMessage(binding.stream, { last_by_subj: filter }));
}

/** The last message on `filter` (a subject or a wildcard), or null when there is none. */
export function lastMessage(link: Link, binding: Pick<StreamBinding, 'stream'>, filter: string): Promise<StoredMsg | null> {
  return throughElection(link, binding.stream, `cannot read ${filter} from stream ${binding.stream}`, (ms) =>
    lastMessageOnce(link, binding, filter, ms),
  );
}

/**
 * The info of stream `stream`, read through a leader election, as a binding
 * checks it; one that does not exist is refused with `missing` (by default the
 * journal stream's `nats stream add` line).
 */
export function streamInfo(link: Link, stream: string, missing?: () => LogbookError): Promise<StreamInfo> {
  return throughElection(link, stream, `cannot read stream ${stream}`, (ms) => within(ms, link.jsm.streams.info(stream)), missing ? { missing } : {});
}

/** How many messages each of `filter`'s subjects holds now. */
export async function subjectCounts(link: Link, binding: StreamBinding, filter: string): Promise<Record<string, number>> {
  const info = await throughElection(link, binding.stream, `cannot list ${filter} in stream ${binding.stream}`, (ms) =>
    within(ms, link.jsm.streams.info(binding.stream, { subjects_filter: filter })),
  );
  return info.state.subjects ?? {};
}

/** When a message was stored (its own timestamp), in milliseconds since the epoch, to the microsecond. */
export function storedAt(m: JsMsg): number {
  return Number(m.timestampNanos / 1000n) / 1000;
}

/** When a message read by sequence or subject was stored, as storedAt gives it for the same message (to the microsecond). */
export function storedMsgAt(m: StoredMsg): number {
  const t = /^(.*?)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)$/.exec(m.timestamp);
  const whole = t === null ? NaN : Date.parse(`${t[1]}${t[3]}`);
  if (t === null || Number.isNaN(whole)) return m.time.getTime();
  const micros = Number((t[2] ?? '').padEnd(6, '0').slice(0, 6));
  return (whole * 1000 + micros) / 1000;
}

export interface RunRead {
  lines: string[];
  /** When each line was stored: its message's timestamp. */
  times: number[];
  /** When the last record was stored. */
  updated: Date;
}

/** Every stored line of run `id` in stream order, or null when the run has no subjects. */
export function readRun(link: Link, binding: StreamBinding, id: string): Promise<RunRead | null> {
  // A read cut short by an election starts again from the snapshot.
  return throughElection(link, binding.stream, `cannot read run ${id} from stream ${binding.stream}`, (ms) => readRunOnce(link, binding, id, ms));
}

/** One attempt at reading run `id`, each request answered within `timeoutMs`. */
async function readRunOnce(link: Link, binding: StreamBinding, id: string, timeoutMs: number): Promise<RunRead | null> {
  const filter = runFilter(binding.prefix, id);
  const consumer = await within(timeoutMs, link.js.consumers.get(binding.stream, { filter_subjects: filter, deliver_policy: 'all' }));
  try {
    // The snapshot is the consumer's pending count as made (its creation answers it): no
    // filtered stream info, which would list every subject of the run.
    const total = (await consumer.info(true)).num_pending;
    if (total === 0) return null;
    const lines: string[] = [];
    const times: number[] = [];
    let last: JsMsg | undefined;
    while (lines.length < total) {
      const want = Math.min(FETCH_BATCH, total - lines.length);
      const batch = await consumer.fetch({ max_messages: want, expires: Math.max(MIN_FETCH_EXPIRES_MS, timeoutMs) });
      let got = 0;
      for await (const m of batch) {
        lines.push(lineOf(binding.stream, m.subject, m.data));
        times.push(storedAt(m));
        last = m;
        if (++got === want) break;
      }
      // Records removed meanwhile, or a stream that stopped answering: read again.
      if (got < want) throw new NoAnswer(`the read came up short (${lines.length} of ${total} records)`);
    }
    return { lines, times, updated: last!.time };
  } finally {
    await within(timeoutMs, consumer.delete()).catch(() => {});
  }
}

/**
 * Run `id`'s lines as they are when this is called, a fetch (at most
 * FETCH_BATCH records) at a time as they are iterated; null when the run has no
 * subjects. The count is taken first, so the read never waits for more: the
 * consumer's pending count as made, as a whole read takes it (no filtered
 * stream info, which would list every subject of the run). A fetch cut short by
 * an election is completed by the next attempt: the ordered consumer goes on
 * from the last record it delivered.
 */
export async function runBatches(link: Link, binding: StreamBinding, id: string): Promise<AsyncGenerator<{ lines: string[]; times: number[] }> | null> {
  const filter = runFilter(binding.prefix, id);
  const what = `cannot read run ${id} from stream ${binding.stream}`;
  const consumer = await throughElection(link, binding.stream, what, (ms) =>
    within(ms, link.js.consumers.get(binding.stream, { filter_subjects: filter, deliver_policy: 'all' })),
  );
  let total: number;
  try {
    total = (await throughElection(link, binding.stream, what, (ms) => within(ms, consumer.info(true)))).num_pending;
  } catch (err) {
    await within(link.timeoutMs, consumer.delete()).catch(() => {});
    throw err;
  }
  if (total === 0) {
    await within(link.timeoutMs, consumer.delete()).catch(() => {});
    return null;
  }
  return (async function* () {
    try {
      for (let read = 0; read < total; ) {
        const want = Math.min(FETCH_BATCH, total - read);
        const batch: string[] = [];
        const times: number[] = [];
        await throughElection(link, binding.stream, what, async (ms) => {
          const fetched = await consumer.fetch({ max_messages: want - batch.length, expires: Math.max(MIN_FETCH_EXPIRES_MS, ms) });
          for await (const m of fetched) {
            batch.push(lineOf(binding.stream, m.subject, m.data));
            times.push(storedAt(m));
            if (batch.length === want) break;
          }
          if (batch.length < want) throw new NoAnswer(`the read came up short (${read + batch.length} of ${total} records)`);
        });
        read += want;
        yield { lines: batch, times };
      }
    } finally {
      await within(link.timeoutMs, consumer.delete()).catch(() => {});
    }
  })();
}

/** How often a follower checks that the run it follows is still in the stream. */
const STILL_THERE_MS = 2_000;

/**
 * Follows run `id` with an ordered consumer on its subjects: every stored line,
 * then each new one as the stream stores it, `caughtUp` whenever the consumer
 * has nothing pending (at once when the run has no records yet, which it then
 * waits for). The client recreates the consumer across reconnects, so a
 * follower outlives a server restart. A run removed from the stream meanwhile
 * fails the stream with `journal_gone`.
 */
export async function* followRun(link: Link, binding: StreamBinding, id: string, signal: AbortSignal | undefined): AsyncGenerator<Streamed> {
  const filter = runFilter(binding.prefix, id);
  const what = `cannot follow run ${id} in stream ${binding.stream}`;
  if (signal?.aborted) return;
  const { messages, pending } = await throughElection(link, binding.stream, what, async (ms) => {
    const consumer = await within(ms, link.js.consumers.get(binding.stream, { filter_subjects: filter, deliver_policy: 'all' }));
    const info = await within(ms, consumer.info());
    return { messages: (await within(ms, consumer.consume({ max_messages: FETCH_BATCH }))) as ConsumerMessages, pending: info.num_pending };
  });
  let gone: LogbookError | null = null;
  let seen = false;
  let checking = false;
  const stop = (): void => void messages.stop();
  signal?.addEventListener('abort', stop, { once: true });
  // The consumer says nothing when the run's records are purged: look now and then.
  const check = setInterval(() => {
    if (!seen || checking) return;
    checking = true;
    lastMessage(link, binding, filter)
      .then(
        (last) => {
          if (last !== null || gone !== null) return;
          gone = new LogbookError('journal_gone', `run ${id} was removed from stream ${binding.stream} while it was being followed`, { details: { runId: id } });
          stop();
        },
        () => {}, // the servers are away: the consumer waits for them, and so does this
      )
      .finally(() => (checking = false));
  }, STILL_THERE_MS);
  try {
    if (pending === 0) yield { caughtUp: true };
    for await (const m of messages) {
      seen = true;
      yield { lines: [lineOf(binding.stream, m.subject, m.data)], times: [storedAt(m)] };
      if (m.info.pending === 0) yield { caughtUp: true };
    }
    if (gone !== null) throw gone;
  } finally {
    clearInterval(check);
    signal?.removeEventListener('abort', stop);
    messages.stop();
  }
}

/**
 * When each record of run `id` was stored, from its messages' headers alone
 * (a headers-only consumer: no record bodies cross the wire), with the resume
 * marks kept as notes (resumeMarks). Empty when the run has no subjects.
 */
export async function runTimes(link: Link, binding: StreamBinding, id: string): Promise<RunTimes> {
  const records = await throughElection(link, binding.stream, `cannot read the times of run ${id} from stream ${binding.stream}`, (ms) =>
    storedTimesOnce(link, binding, id, ms),
  );
  return { records, resumed: await resumeMarks(link, binding, id) };
}

async function storedTimesOnce(link: Link, binding: StreamBinding, id: string, timeoutMs: number): Promise<Map<number, number>> {
  const times = new Map<number, number>();
  const consumer = await within(
    timeoutMs,
    link.js.consumers.get(binding.stream, { filter_subjects: runFilter(binding.prefix, id), deliver_policy: 'all', headers_only: true }),
  );
  try {
    const total = (await consumer.info(true)).num_pending;
    while (times.size < total) {
      const want = Math.min(FETCH_BATCH, total - times.size);
      const batch = await consumer.fetch({ max_messages: want, expires: Math.max(MIN_FETCH_EXPIRES_MS, timeoutMs) });
      let got = 0;
      for await (const m of batch) {
        const seq = seqOfRecordSubject(m.subject);
        if (seq !== null) times.set(seq, storedAt(m));
        if (++got === want) break;
      }
      if (got < want) throw new NoAnswer(`the read came up short (${times.size} of ${total} times)`);
    }
    return times;
  } finally {
    await within(timeoutMs, consumer.delete()).catch(() => {});
  }
}

/** The note key of a resume mark: the seq the writer took the run up after, and a nonce of its own. */
export const RESUME_MARK = /^resumed-(\d{1,15})-[0-9a-f]+$/;

/**
 * When writers took run `id` up again, by the seq they took it up after: the
 * timestamps of its resume-mark notes (HeldSubjects opens), the latest for a
 * seq taken up more than once. Best effort: a failure reads as no marks.
 */
export async function resumeMarks(link: Link, binding: StreamBinding, id: string): Promise<Map<number, number>> {
  const marks = new Map<number, number>();
  try {
    const subjects = Object.keys(await subjectCounts(link, binding, notesKeysFilter(binding.prefix, id)));
    const prefix = noteSubject(binding.prefix, id, '');
    for (const subject of subjects) {
      const m = RESUME_MARK.exec(subject.slice(prefix.length));
      if (m === null) continue;
      const msg = await lastMessage(link, binding, subject);
      if (msg === null) continue;
      const seq = Number(m[1]);
      const at = msg.time.getTime();
      if (at > (marks.get(seq) ?? -Infinity)) marks.set(seq, at);
    }
  } catch {
    /* the times are kept without their resume marks */
  }
  return marks;
}
