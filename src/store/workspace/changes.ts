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
  // One call: the raw entries (`:MODE MODE ID ID S\0PATH\0`), then the line counts (`ADDED\tREMOVED\tPATH\0`).
  const out = await git(['diff-tree', '-r', '-z', '--raw', '--numstat', '--no-renames', objectId(a), objectId(b)], repo.base());
  const parts = out.stdout.toString('utf8').split('\0');
  const raw: { path: string; status: ChangeStatus; before: FileChange['before']; after: FileChange['after'] }[] = [];
  const counts = new Map<string, { added?: number; removed?: number; binary: boolean }>();
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i]!;
    const m = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])/.exec(entry);
    if (m !== null) {
      const path = parts[++i]!;
      const status = STATUS[m[5]!];
      if (status !== undefined) raw.push({ path, status, before: { mode: m[1]!, id: m[3]! }, after: { mode: m[2]!, id: m[4]! } });
      continue;
    }
    const n = /^(-|\d+)\t(-|\d+)\t([\s\S]*)$/.exec(entry);
    if (n !== null) counts.set(n[3]!, n[1] === '-' ? { binary: true } : { added: Number(n[1]), removed: Number(n[2]), binary: false });
  }
  const changes: FileChange[] = raw.map((r) => ({ path: r.path, status: r.status, binary: false, ...counts.get(r.path), before: r.before, after: r.after }));
  return changes;
}

/** The unified diff from tree `a` to tree `b` (binary files named, as git names them). */
export async function treePatch(repo: WorkspaceRepo, a: string, b: string): Promise<string> {
  if (a === b) return '';
  await repo.ensure();
  const out = await git(['diff-tree', '-r', '-p', '--no-renames', '--no-color', '--no-ext-diff', '--no-textconv', objectId(a), objectId(b)], repo.base());
  return out.stdout.toString('utf8');
}
