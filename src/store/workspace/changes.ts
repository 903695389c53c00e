/**
 * What changed between two snapshots of a workspace: the files, with their
 * line counts, and the unified diff (binary files named, not shown). A file
 * name is whatever a tool made it: a caller that shows one escapes it.
 */
import { git, objectId } from './git.js';
import type { WorkspaceRepo } from './repo.js';

/** How a file changed between two snapshots (`type_changed`: a file became a link, or the other way). */
export type ChangeStatus = 'added' | 'modified' | 'deleted' | 'type_changed';

/** One file changed between two snapshots. */
export interface FileChange {
  path: string;
  status: ChangeStatus;
  /** Lines added and removed; absent for a binary file. */
  added?: number;
  removed?: number;
  binary: boolean;
  /** Its mode and object before and after (`000000`/zeros where it was absent). */
  before: { mode: string; id: string };
  after: { mode: string; id: string };
}

const STATUS: Record<string, ChangeStatus> = { A: 'added', M: 'modified', D: 'deleted', T: 'type_changed' };

/** The files that differ from tree `a` to tree `b`, in path order. */
export async function treeChanges(repo: WorkspaceRepo, a: string, b: string): Promise<FileChange[]> {
  if (a === b) return [];
  await repo.ensure();
  const base = repo.base();
  const [raw, numstat] = await Promise.all([
    git(['diff-tree', '-r', '-z', '--raw', '--no-renames', objectId(a), objectId(b)], base),
    git(['diff-tree', '-r', '-z', '--numstat', '--no-renames', objectId(a), objectId(b)], base),
  ]);
  const counts = new Map<string, { added?: number; removed?: number; binary: boolean }>();
  for (const entry of numstat.stdout.toString('utf8').split('\0')) {
    const m = /^(-|\d+)\t(-|\d+)\t([\s\S]*)$/.exec(entry);
    if (m === null) continue;
    counts.set(m[3]!, m[1] === '-' ? { binary: true } : { added: Number(m[1]), removed: Number(m[2]), binary: false });
  }
  const parts = raw.stdout.toString('utf8').split('\0');
  const changes: FileChange[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const m = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])/.exec(parts[i]!);
    if (m === null) continue;
    const path = parts[i + 1]!;
    const status = STATUS[m[5]!];
    if (status === undefined) continue;
    changes.push({ path, status, binary: false, ...counts.get(path), before: { mode: m[1]!, id: m[3]! }, after: { mode: m[2]!, id: m[4]! } });
  }
  return changes;
}

/** The unified diff from tree `a` to tree `b` (binary files named, as git names them). */
export async function treePatch(repo: WorkspaceRepo, a: string, b: string): Promise<string> {
  if (a === b) return '';
  await repo.ensure();
  const out = await git(['diff-tree', '-r', '-p', '--no-renames', '--no-color', '--no-ext-diff', '--no-textconv', objectId(a), objectId(b)], repo.base());
  return out.stdout.toString('utf8');
}
