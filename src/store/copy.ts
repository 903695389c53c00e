/**
 * Migration between backends. Every backend stores the same record lines, so a
 * run moves unchanged: its stored lines are read from one store and written, one
 * by one, to the other, so the target's own rules (id validation, seq checks,
 * fences, fsync) all apply, and a field this build does not know survives.
 */
import { decodeLines, fold } from '../core/index.js';
import type { Store } from './store.js';

export interface CopyOptions {
  /** Aborting it stops the copy at the next record (`interrupted`); the partial copy is removed. */
  signal?: AbortSignal;
}

/**
 * Copies run `id` from one store to another and returns how many records it
 * copied. The run must fold in the source; an existing run in the target is
 * never overwritten (`exists`). The target holds the whole run or none of it.
 */
export async function copyRun(from: Store, to: Store, id: string, options: CopyOptions = {}): Promise<number> {
  const lines = await from.lines(id);
  fold(decodeLines(lines, `run ${id} in the ${from.location}`));
  const journal = await to.createFromLines(id, lines, options);
  await journal.close();
  return lines.length;
}
