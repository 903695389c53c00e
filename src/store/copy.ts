/**
 * Migration between backends. Every backend stores the same record lines, so a
 * run moves unchanged: its stored lines are read from one store and written, one
 * by one, to the other, so the target's own rules (id validation, seq checks,
 * fences, fsync) all apply, and a field this build does not know survives.
 * The notes that say what the run is (its origin, its compaction, where it was
 * started: run-notes.ts carriedNoteKeys) go with it, and so do its records'
 * times and its workspace snapshots (their notes and objects: workspace/carry.ts,
 * or notes saying why they were not copied); what the source's store derived
 * from its records the target derives again.
 */
import { LogbookError, runStatus, type MetaPayload } from '../core/index.js';
import { foldingRecords } from './read-fold.js';
import { carriedNoteKeys, carriedNotePrefixes } from './run-notes.js';
import { carrySnapshots } from './workspace/carry.js';
import type { Store } from './store.js';

/** How copyRun copies. */
export interface CopyOptions {
  /** Aborting it stops the copy at the next record (`interrupted`); the partial copy is removed. */
  signal?: AbortSignal;
  /**
   * Copy a run a writer holds now: what is durable so far, a prefix of what it
   * will hold. Without it such a run is refused (`locked`), as a copy would end
   * where the writer happened to be.
   */
  force?: boolean;
  /** Where the system git is looked for to copy workspace snapshots (a PATH; default /usr/local/bin:/usr/bin:/bin). */
  searchPath?: string;
}

/** What copyRun copied. */
export interface CopiedRun {
  records: number;
  /** The seq of the last record copied. */
  lastSeq: number;
  /** Whether a writer held the run as it was read (only with `force`); absent where the source cannot tell. */
  held?: boolean;
  /** The run ends on no terminal record: its writer stopped, or (where held is absent) may still be appending. */
  open: boolean;
  /** The snapshots of its workspace the copy carries (store/workspace/carry.ts), and why they were left behind if they were; absent when it has none. */
  snapshots?: { count: number; problem?: string };
}

/**
 * Copies run `id` from one store to another. The run must fold in the source,
 * and no writer may hold it there unless `force` (held as the listing tells it,
 * never by taking its lock); an existing run in the target is never
 * overwritten (`exists`). The target holds the whole of what was read or none of it.
 */
export async function copyRun(from: Store, to: Store, id: string, options: CopyOptions = {}): Promise<CopiedRun> {
  const { lines, held } = await from.storedLines(id);
  const records = foldingRecords(lines, id, `run ${id} in the ${from.location}`);
  const lastSeq = records[records.length - 1]!.seq;
  if (held === true && options.force !== true) {
    throw new LogbookError(
      'locked',
      `run ${id} is being written: a writer holds it in the ${from.location}, and a copy now would end at seq ${lastSeq}, where it happens to be`,
    );
  }
  const first = records[0]!; // a meta record: the run folds
  const notes = 'meta' in first ? await carriedNotes(from, id, first.meta) : new Map<string, string>();
  // Their objects are in the target before any note naming them is.
  const snapshots = await carrySnapshots(from, to, id, options.searchPath);
  for (const [key, text] of snapshots.notes) notes.set(key, text);
  const times = await from.times(id).catch(() => undefined); // without them, the copy's records have no times
  const journal = await to.createFromLines(id, lines, { notes, ...(times !== undefined ? { times } : {}), ...(options.signal ? { signal: options.signal } : {}) });
  await journal.close();
  const open = runStatus(records[records.length - 1]) === 'open';
  return {
    records: lines.length,
    lastSeq,
    ...(held !== undefined ? { held } : {}),
    open,
    ...(snapshots.notes.size > 0 ? { snapshots: { count: snapshots.snapshots, ...(snapshots.problem !== undefined ? { problem: snapshots.problem } : {}) } } : {}),
  };
}

/** The carried notes beside run `id` in `from`, by key: a note that cannot be read is not there to carry. */
async function carriedNotes(from: Store, id: string, meta: MetaPayload): Promise<Map<string, string>> {
  const notes = new Map<string, string>();
  for (const key of carriedNoteKeys(meta)) {
    const text = await from.getNote(id, key).catch(() => null);
    if (text !== null) notes.set(key, text);
  }
  for (const prefix of carriedNotePrefixes()) for (const [key, text] of await from.notesWith(id, prefix).catch(() => new Map<string, string>())) notes.set(key, text);
  return notes;
}
