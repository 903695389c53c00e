/**
 * Reading runs back. A whole run is read with an ordered consumer filtered to
 * the run's subjects and sized from a filtered stream-info snapshot, so a read
 * takes exactly the records that existed when it started and never waits for
 * more. Single records (a run's tail, its meta, one subject) are read by
 * last-by-subject gets, which never touch the rest of the run.
 */
import type { StoredMsg } from '@nats-io/jetstream';
import { LogbookError } from '../../core/index.js';
import type { StreamBinding } from './binding.js';
import type { Link } from './connection.js';
import { checkRecordSubject, runFilter } from './subjects.js';

/** Records fetched per pull, bounding one request's size on long runs. */
const FETCH_BATCH = 512;

const utf8 = new TextDecoder();

/** One message body as a stored line, checked to sit on the subject its seq names. */
export function lineOf(stream: string, subject: string, data: Uint8Array): string {
  const line = utf8.decode(data);
  checkRecordSubject(subject, line, stream);
  return line;
}

/** The last message on `filter` (a subject or a wildcard), or null when there is none. */
export async function lastMessage(link: Link, binding: StreamBinding, filter: string): Promise<StoredMsg | null> {
  const what = `cannot read ${filter} from stream ${binding.stream}`;
  try {
    await link.ensureConnected(what);
    return await link.jsm.streams.getMessage(binding.stream, { last_by_subj: filter });
  } catch (err) {
    throw link.failure(what, err);
  }
}

/** How many messages each of `filter`'s subjects holds now. */
export async function subjectCounts(link: Link, binding: StreamBinding, filter: string): Promise<Record<string, number>> {
  const what = `cannot list ${filter} in stream ${binding.stream}`;
  try {
    await link.ensureConnected(what);
    const info = await link.jsm.streams.info(binding.stream, { subjects_filter: filter });
    return info.state.subjects ?? {};
  } catch (err) {
    throw link.failure(what, err);
  }
}

export interface RunRead {
  lines: string[];
  /** When the last record was stored. */
  updated: Date;
}

/** Every stored line of run `id` in stream order, or null when the run has no subjects. */
export async function readRun(link: Link, binding: StreamBinding, id: string): Promise<RunRead | null> {
  const filter = runFilter(binding.prefix, id);
  const counts = await subjectCounts(link, binding, filter);
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  if (total === 0) return null;
  const what = `cannot read run ${id} from stream ${binding.stream}`;
  const lines: string[] = [];
  let updated = new Date(0);
  try {
    const consumer = await link.js.consumers.get(binding.stream, { filter_subjects: filter, deliver_policy: 'all' });
    try {
      while (lines.length < total) {
        const want = Math.min(FETCH_BATCH, total - lines.length);
        const batch = await consumer.fetch({ max_messages: want, expires: link.timeoutMs });
        let got = 0;
        for await (const m of batch) {
          lines.push(lineOf(binding.stream, m.subject, m.data));
          updated = m.time;
          if (++got === want) break;
        }
        if (got < want) {
          throw new LogbookError('unavailable', `${what}: it changed while being read (${lines.length} of ${total} records); read it again`);
        }
      }
    } finally {
      await consumer.delete().catch(() => {});
    }
  } catch (err) {
    throw link.failure(what, err);
  }
  return { lines, updated };
}
