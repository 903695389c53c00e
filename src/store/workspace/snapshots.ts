/**
 * The workspace snapshots a run's notes record, read alone: what `session show`
 * lists of them loads none of the code that diffs or restores them.
 */
import { parseSnapshot, SNAPSHOT_NOTE_PREFIX, snapshotNoteSeq, type SnapshotNote } from '../run-notes.js';
import type { Store } from '../store.js';

/**
 * The snapshot notes of run `id` in order (seq, then time), with those of the
 * run it was forked from up to where it was cut (a fork holds those records).
 * `keys`: run `id`'s note keys as listed (Store.noteKeys), when they are.
 */
export async function runSnapshots(store: Store, id: string, keys?: readonly string[]): Promise<SnapshotNote[]> {
  const own: SnapshotNote[] = [];
  for (const [key, text] of await store.notesWith(id, SNAPSHOT_NOTE_PREFIX, { strict: true, ...(keys !== undefined ? { keys } : {}) })) {
    if (snapshotNoteSeq(key) === null) continue;
    const note = parseSnapshot(text);
    if (note !== null) own.push(note);
  }
  const origin = await store.forkOrigin(id);
  const inherited = origin === null || origin.compacted ? [] : (await runSnapshots(store, origin.from).catch(() => [])).filter((s) => s.seq <= origin.at);
  // By time, not by text (a timestamp keeps no trailing zeros: `.12Z` is later than `.119Z`); in one instant, a step's snapshot of before it comes first.
  const rank = (s: SnapshotNote): number => (s.moment === 'rewound' ? 1 : 0);
  return [...inherited, ...own].sort((a, b) => a.seq - b.seq || Date.parse(a.at) - Date.parse(b.at) || rank(a) - rank(b));
}
