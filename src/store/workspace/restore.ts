/**
 * Puts a workspace's tracked files back as a snapshot holds them: the files
 * that differ between the snapshot of now and the target are created, changed
 * or removed, and nothing else is touched (an ignored or excluded file is in
 * neither snapshot, so it is never named). A path is checked before it is
 * used: relative, no `..`, no `.git`, and no directory on the way to it a link
 * (a link is never written through); a link is restored as a link.
 */
import { lstatSync, mkdirSync, readdirSync, rmdirSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { LogbookError } from '../../core/index.js';
import { treeChanges, type FileChange } from './changes.js';
import { blobs } from './git.js';
import type { WorkspaceRepo } from './repo.js';

/** `path` (as a tree names it), checked to stay inside the workspace. */
export function safeRelativePath(path: string): string[] {
  const parts = path.split('/');
  const bad = path === '' || path.includes('\0') || path.startsWith('/') || parts.some((p) => p === '' || p === '.' || p === '..' || p.toLowerCase() === '.git');
  if (bad) throw new LogbookError('workspace', `a snapshot names a path outside the workspace: ${JSON.stringify(path.slice(0, 200))}`);
  return parts;
}

/** Makes the directories on the way to `parts` (each a real directory, never a link); false where a file stands in the way. */
function directoryFor(root: string, parts: readonly string[]): string {
  let at = root;
  for (const part of parts.slice(0, -1)) {
    at = join(at, part);
    let st;
    try {
      st = lstatSync(at);
    } catch {
      mkdirSync(at);
      continue;
    }
    if (st.isSymbolicLink()) throw new LogbookError('workspace', `${at} is a link: a restore never writes through one`);
    if (!st.isDirectory()) {
      unlinkSync(at); // a file where the snapshot has a directory: the snapshot's wins
      mkdirSync(at);
    }
  }
  return join(root, ...parts);
}

/** Removes the file at `parts` (never following a link on the way); then the directories it leaves empty. */
function removeFile(root: string, parts: readonly string[]): void {
  let at = root;
  for (const part of parts.slice(0, -1)) {
    at = join(at, part);
    try {
      if (!lstatSync(at).isDirectory()) return; // a link or a file on the way: the file is not there
    } catch {
      return;
    }
  }
  const path = join(root, ...parts);
  try {
    const st = lstatSync(path);
    if (st.isDirectory()) return;
    unlinkSync(path);
  } catch {
    return;
  }
  for (let dir = dirname(path); dir !== root && dir.startsWith(root); dir = dirname(dir)) {
    try {
      if (readdirSync(dir).length > 0) break;
      rmdirSync(dir);
    } catch {
      break;
    }
  }
}

/**
 * Writes a restored file as git checkout does: what stands there removed,
 * the file created anew (never opened through a link a tool may have put
 * there: `wx` refuses one), its mode git's (under the umask). Not a rename
 * over the old file, which on ext4 waits for the new data to reach the disk,
 * file by file; a rewind stopped half way is undone from the snapshot it took first.
 */
function writeFile(root: string, parts: readonly string[], change: FileChange, content: Buffer): void {
  const path = directoryFor(root, parts);
  let st;
  try {
    st = lstatSync(path);
  } catch {
    st = null;
  }
  if (st?.isDirectory()) throw new LogbookError('workspace', `${path} is a directory where the snapshot has a file`);
  if (st !== null) unlinkSync(path);
  if (change.after.mode === '120000') symlinkSync(content.toString('utf8'), path);
  else writeFileSync(path, content, { mode: change.after.mode === '100755' ? 0o755 : 0o644, flag: 'wx' });
}

/** What a restore did: the files it changed, as treeChanges lists them from now to the target. */
export interface Restored {
  changes: FileChange[];
}

/**
 * Puts `dir` back from tree `now` (a snapshot made just before) to tree `to`.
 * Removals first, then files written; a submodule (a gitlink) is left alone.
 */
export async function restoreTree(repo: WorkspaceRepo, dir: string, now: string, to: string, planned?: readonly FileChange[]): Promise<Restored> {
  const changes = (planned ?? (await treeChanges(repo, now, to))).filter((c) => c.before.mode !== '160000' && c.after.mode !== '160000');
  const paths = changes.map((c) => ({ change: c, parts: safeRelativePath(c.path) }));
  for (const { change, parts } of paths) if (change.status === 'deleted' || change.status === 'type_changed') removeFile(dir, parts);
  const wanted = paths.filter((p) => p.change.status !== 'deleted');
  const contents = await blobs(
    repo.base(),
    wanted.map((p) => p.change.after.id),
  );
  for (const { change, parts } of wanted) writeFile(dir, parts, change, contents.get(change.after.id)!);
  return { changes };
}
