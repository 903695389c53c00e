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

export interface CopyOptions {
  /** Aborting it stops the copy at the next record (`interrupted`); the partial copy is removed. */
  signal?: AbortSignal;
}

/**
 * Copies run `id` from one store to another and returns how many records it
 * copied. The run must load (fold) in the source; an existing run in the target
 * is never overwritten (`exists`). When an append fails part way, or the copy is
 * aborted, the partial copy is removed, so the target holds the whole run or
 * none of it.
 */
export async function copyRun(from: Store, to: Store, id: string, options: CopyOptions = {}): Promise<number> {
  const { records } = await from.load(id);
  const first = records[0];
  if (first === undefined || !('meta' in first)) {
    throw new LogbookError('no_meta', `run ${id} in ${from.location} does not start with a meta record`);
  }
  const stopIfAborted = (): void => {
    if (options.signal?.aborted) throw new LogbookError('interrupted', `copying run ${id} was interrupted`);
  };
  stopIfAborted();
  const journal = await to.create(id, first.meta);
  try {
    for (const record of records.slice(1)) {
      stopIfAborted();
      await journal.append(record.seq, payloadOf(record));
    }
  } catch (err) {
    await journal.close().catch(() => {});
    await to.delete(id).catch(() => {});
    throw err;
  }
  await journal.close();
  return records.length;
}
