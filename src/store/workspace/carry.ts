/**
 * A run's workspace snapshots, carried with it by a copy between stores
 * (store/copy.ts): its snapshot and rewind notes, and the git objects they
 * name (each snapshot's tree, all below it, and its rules). The objects are
 * brought into the source's local git directory (fetched from its shelf when
 * they are kept there), packed from it into the target's local git directory
 * when that is another (`git pack-objects` | `git unpack-objects`), and put on
 * the target's shelf when it has one, before any note naming them is written.
 * Where that cannot be done, the notes are carried as snapshots that were not
 * copied, saying why, and the copy says so: never silently left behind.
 */
import { LogbookError } from '../../core/index.js';
import { parseSnapshot, encodeSnapshot, REWIND_NOTE_PREFIX, SNAPSHOT_NOTE_PREFIX } from '../run-notes.js';
import type { Store } from '../store.js';
import { git, objectId } from './git.js';
import { WorkspaceRepo } from './repo.js';
import { fetchTree, missingLocally, objectsOf, shareTree } from './shelf.js';

/** What carrySnapshots found: the notes to keep beside the copy, how many snapshots they hold, and why they are not copied, if they are not. */
export interface CarriedSnapshots {
  notes: Map<string, string>;
  snapshots: number;
  problem?: string;
}

/** The snapshots of run `id` in `from`, made ready in `to`: their objects copied there, and their notes to carry. */
export async function carrySnapshots(from: Store, to: Store, id: string, searchPath?: string): Promise<CarriedSnapshots> {
  const notes = await from.notesWith(id, SNAPSHOT_NOTE_PREFIX);
  if (notes.size === 0) return { notes, snapshots: 0 };
  const snaps = [...notes].map(([key, text]) => ({ key, text, note: parseSnapshot(text) }));
  const made = snaps.filter((s) => s.note?.tree !== undefined);
  try {
    if (made.length > 0) {
      const trees = [...new Set(made.map((s) => s.note!.tree!))];
      const rules = [...new Set(made.flatMap((s) => (s.note!.rules !== undefined ? [s.note!.rules] : [])))];
      await copyObjects(from, to, trees, rules, searchPath);
    }
  } catch (err) {
    const problem = `its workspace snapshots were not copied from the ${from.location} to the ${to.location}: ${err instanceof Error ? err.message : String(err)}`;
    const left = new Map<string, string>();
    for (const s of snaps) {
      if (s.note === null) continue;
      const { tree: _tree, rules: _rules, ...rest } = s.note;
      left.set(s.key, encodeSnapshot({ ...rest, problem: s.note.problem ?? problem }));
    }
    return { notes: left, snapshots: made.length, problem };
  }
  for (const [key, text] of await from.notesWith(id, REWIND_NOTE_PREFIX)) notes.set(key, text);
  return { notes, snapshots: made.length };
}

async function copyObjects(from: Store, to: Store, trees: readonly string[], rules: readonly string[], searchPath: string | undefined): Promise<void> {
  if (from.workspace === null) throw new LogbookError('workspace', `the ${from.backend} store keeps no workspace snapshots`);
  if (to.workspace === null) throw new LogbookError('workspace', `the ${to.backend} store keeps no workspace snapshots`);
  const source = new WorkspaceRepo(from.workspace.home, searchPath);
  await source.ensure();
  const shelf = from.workspace.shelf;
  if (shelf !== undefined) for (const id of [...trees, ...rules]) await fetchTree(source, shelf, id);
  const target = new WorkspaceRepo(to.workspace.home, searchPath);
  if (target.gitDir !== source.gitDir) {
    await target.ensure();
    const ids = new Set(rules);
    for (const tree of trees) for (const oid of await objectsOf(source, tree)) ids.add(oid);
    const missing = await missingLocally(target, [...ids]);
    if (missing.length > 0) {
      const pack = await git(['pack-objects', '--stdout', '-q'], { ...source.base(), input: `${missing.map(objectId).join('\n')}\n` });
      await git(['unpack-objects', '-q'], { ...target.base(), input: pack.stdout });
    }
  }
  const targetShelf = to.workspace.shelf;
  if (targetShelf !== undefined) for (const tree of trees) await shareTree(target, targetShelf, tree, rules);
}
