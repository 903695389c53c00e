/**
 * Reading runs back. A whole run is read with an ordered consumer filtered to
 * the run's subjects and sized from a filtered stream-info snapshot, so a read
 * takes exactly the records that existed when it started and never waits for
 * more. Single records (a run's tail, its meta, one subject) are read by
 * last-by-subject gets, which never touch the rest of the run. Every read
 * waits through a stream leader election (election.ts).
 */
import type { StoredMsg } from '@nats-io/jetstream';
import type { StreamBinding } from './binding.js';
import type { Link } from './connection.js';
import { NoAnswer, throughElection, within } from './election.js';
import { checkRecordSubject, runFilter } from './subjects.js';

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
export function lastMessageOnce(link: Link, binding: StreamBinding, filter: string, timeoutMs: number): Promise<StoredMsg | null> {
  return within(timeoutMs, link.jsm.streams.getMessage(binding.stream, { last_by_subj: filter }));
}

/** The last message on `filter` (a subject or a wildcard), or null when there is none. */
export function lastMessage(link: Link, binding: StreamBinding, filter: string): Promise<StoredMsg | null> {
  return throughElection(link, binding.stream, `cannot read ${filter} from stream ${binding.stream}`, (ms) =>
    lastMessageOnce(link, binding, filter, ms),
  );
}

/** How many messages each of `filter`'s subjects holds now. */
export async function subjectCounts(link: Link, binding: StreamBinding, filter: string): Promise<Record<string, number>> {
  const info = await throughElection(link, binding.stream, `cannot list ${filter} in stream ${binding.stream}`, (ms) =>
    within(ms, link.jsm.streams.info(binding.stream, { subjects_filter: filter })),
  );
  return info.state.subjects ?? {};
}

export interface RunRead {
  lines: string[];
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
  const info = await within(timeoutMs, link.jsm.streams.info(binding.stream, { subjects_filter: filter }));
  const total = Object.values(info.state.subjects ?? {}).reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const lines: string[] = [];
  let updated = new Date(0);
  const consumer = await within(timeoutMs, link.js.consumers.get(binding.stream, { filter_subjects: filter, deliver_policy: 'all' }));
  try {
    while (lines.length < total) {
      const want = Math.min(FETCH_BATCH, total - lines.length);
      const batch = await consumer.fetch({ max_messages: want, expires: Math.max(MIN_FETCH_EXPIRES_MS, timeoutMs) });
      let got = 0;
      for await (const m of batch) {
        lines.push(lineOf(binding.stream, m.subject, m.data));
        updated = m.time;
        if (++got === want) break;
      }
      // Records removed meanwhile, or a stream that stopped answering: read again.
      if (got < want) throw new NoAnswer(`the read came up short (${lines.length} of ${total} records)`);
    }
  } finally {
    await within(timeoutMs, consumer.delete()).catch(() => {});
  }
  return { lines, updated };
}
