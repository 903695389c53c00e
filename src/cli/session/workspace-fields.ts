/**
 * What `session show` says of a run's workspace, from its snapshot notes: a
 * module of its own, so that a show loads none of the code that diffs,
 * rewinds or restores a workspace.
 */
import type { RecordOutline } from '../../core/index.js';
import { sanitizeLine } from '../../render/sanitize.js';
import type { Store } from '../../store/store.js';
import { runSnapshots } from '../../store/workspace/snapshots.js';

/** What `session show` says of a run's workspace: where it is, how many snapshots, and which turns have none and why; `noteKeys` as runSnapshots's. */
export async function workspaceFields(store: Store, id: string, outline: RecordOutline, noteKeys?: readonly string[]): Promise<[string, string][]> {
  const snapshots = await runSnapshots(store, id, noteKeys).catch(() => []);
  if (snapshots.length === 0) return [];
  const made = snapshots.filter((s) => s.tree !== undefined);
  const fields: [string, string][] = [['workspace', `${sanitizeLine(snapshots.at(-1)!.dir)}: ${made.length} snapshot${made.length === 1 ? '' : 's'} (logbook session diff ${id})`]];
  const turnOf = (seq: number): number => outline.modelCallsThrough(seq);
  for (const s of snapshots) {
    if (s.tree === undefined) fields.push(['no snapshot', `after seq ${s.seq} (turn ${turnOf(s.seq)}, ${s.moment}): ${sanitizeLine(s.problem ?? '')}`]);
  }
  return fields;
}
