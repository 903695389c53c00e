/**
 * Migration between backends. Every backend stores the same encoded record
 * bodies, so a run moves unchanged: records are read from one store and
 * appended, one by one through Journal.append, to the other, so the target
 * backend's own rules (id validation, seq checks, fences, fsync) all apply.
 */
import { LogbookError, type JournalRecord, type Payload } from '../core/index.js';
import type { Store } from './store.js';

function payloadOf(record: JournalRecord): Payload {
  const { seq: _seq, ...payload } = record;
  return payload as Payload;
}

/**
 * Copies run `id` from one store to another. The run must load (fold) in the
 * source; an existing run in the target is never overwritten (`exists`). When an
 * append fails part way, the partial copy is removed, so the target holds the
 * whole run or none of it.
 */
export async function copyRun(from: Store, to: Store, id: string): Promise<void> {
  const { records } = await from.load(id);
  const first = records[0];
  if (first === undefined || !('meta' in first)) {
    throw new LogbookError('no_meta', `run ${id} in ${from.location} does not start with a meta record`);
  }
  const journal = await to.create(id, first.meta);
  try {
    for (const record of records.slice(1)) await journal.append(record.seq, payloadOf(record));
  } catch (err) {
    await journal.close().catch(() => {});
    await to.delete(id).catch(() => {});
    throw err;
  }
  await journal.close();
}
