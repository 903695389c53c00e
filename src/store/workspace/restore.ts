/**
 * Puts a workspace's tracked files back as a snapshot holds them: the files
 * that differ between the snapshot of now and the target are created, changed
 * or removed, and nothing else is touched (an ignored or excluded file is in
 * neither snapshot, so it is never named). A path is checked before it is
 * used: relative, no `..`, no `.git`, and no directory on the way to it a link
 * (a link is never written through); a link is restored as a link. Everything
 * a restore would meet is checked before it changes anything (checkRestore),
 * so it does not stop half way over what it must not touch.
 */
import { lstatSync, mkdirSync, readdirSync, rmdirSync, symlinkSync, unlinkSync, writeFileSync, type Stats } from 'node:fs';
import { unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { LogbookError, quotedPath } from '../../core/index.js';
import { changedFiles, type ChangedFile } from './changes.js';
import { eachBlob } from './git.js';
import type { WorkspaceRepo } from './repo.js';

/** `path` (as a tree names it), checked to stay inside the workspace. */
export function safeRelativePath(path: string): string[] {
  const parts = path.split('/');
  const bad = path === '' || path.includes('\0') || path.startsWith('/') || parts.some((p) => p === '' || p === '.' || p === '..' || p.toLowerCase() === '.git');
  if (bad) throw new LogbookError('workspace', `a snapshot names a path outside the workspace: ${named(path)}`);
  return parts;
}

/** What stands at a path, without following a link: null when nothing does. */
function standing(path: string): Stats | null {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

/** What a thing standing in the way is, in a word. */
function kind(st: Stats): string {
  return st.isSymbolicLink() ? 'a link' : st.isDirectory() ? 'a directory' : st.isFile() ? 'a file' : 'a special file';
}

/** A restore refused before it changed anything: `path` holds what it must not touch. */
/** A path in a message, quoted as the plan and the diff quote it (git's C escapes), always between quotes. */
function named(path: string): string {
  const quoted = quotedPath(path.slice(0, 200));
  return quoted.startsWith('"') ? quoted : `"${quoted}"`;
}

function conflict(path: string, what: string): LogbookError {
  return new LogbookError('workspace_conflict', `${named(path)} ${what}: move it away, then try again; nothing was changed`);
}

export interface RestoreCheck {
  /** The directories standing on the way to a changed path (and in a directory it replaces), as they are before the restore: what its undo makes again. */
  dirs: string[];
}

/**
 * What a restore will meet, checked before it changes anything: every path it
 * writes or removes stays inside the workspace, nothing stands on the way to a
 * file it writes but directories and what it removes itself, a file it creates
 * is not already there untracked (ignored or excluded), and a directory where
 * it writes a file holds only files it removes (and directories they empty).
 * Throws `workspace_conflict` naming the first path in the way.
 */
export function checkRestore(dir: string, planned: readonly ChangedFile[]): RestoreCheck {
  const changes = planned.filter((c) => c.before.mode !== '160000' && c.after.mode !== '160000');
  const removed = new Set(changes.filter((c) => c.status === 'deleted' || c.status === 'type_changed').map((c) => c.path));
  const dirs = new Set<string>();
  // What stands on the way, looked at once a directory: the files of one directory share it.
  const onTheWay = new Map<string, Stats | null>();
  const standingOnTheWay = (rel: string): Stats | null => {
    let st = onTheWay.get(rel);
    if (st === undefined) onTheWay.set(rel, (st = standing(join(dir, rel))));
    return st;
  };
  for (const change of changes) {
    const parts = safeRelativePath(change.path);
    let blocked = false;
    for (let i = 1; i < parts.length && !blocked; i++) {
      const rel = parts.slice(0, i).join('/');
      const st = standingOnTheWay(rel);
      if (st === null) blocked = true; // made by the restore, with what is below it
      else if (st.isDirectory()) dirs.add(rel);
      else if (removed.has(rel)) blocked = true; // the restore removes it first
      else if (change.status !== 'deleted') throw conflict(rel, `is ${kind(st)} the snapshot does not track, where it has a directory`);
      else blocked = true; // the file to remove is not there: nothing to do
    }
    if (blocked || change.status === 'deleted') continue;
    const st = standing(join(dir, change.path));
    if (st === null) continue;
    if (st.isDirectory() && !st.isSymbolicLink()) {
      const held = heldBack(dir, change.path, removed, dirs);
      if (held !== null) throw conflict(held, `is in the directory ${named(change.path)} where the snapshot has a file, and the snapshot does not track it`);
    } else if (change.before.mode === '000000') {
      throw conflict(change.path, `is ${kind(st)} the snapshot does not track (ignored or excluded), where it has a file`);
    }
  }
  return { dirs: [...dirs].sort() };
}

/** The first thing under directory `rel` a restore would not remove (a file it does not track), or null; its directories are noted in `dirs`. */
function heldBack(root: string, rel: string, removed: ReadonlySet<string>, dirs: Set<string>): string | null {
  dirs.add(rel);
  for (const name of readdirSync(join(root, rel)).sort()) {
    const path = `${rel}/${name}`;
    const st = standing(join(root, path));
    if (st === null) continue;
    if (st.isDirectory() && !st.isSymbolicLink()) {
      const held = heldBack(root, path, removed, dirs);
      if (held !== null) return held;
    } else if (!removed.has(path)) return path;
  }
  return null;
}

/**
 * Makes the directories on the way to `parts` (each a real directory, never a
 * link; anything else in the way is an error). `known`: the directories this
 * restore already found or made on the way to a file it wrote, not looked at
 * again (as git's checkout keeps them).
 */
function directoryFor(root: string, parts: readonly string[], known?: Set<string>): string {
  let at = root;
  for (const part of parts.slice(0, -1)) {
    at = join(at, part);
    if (known?.has(at)) continue;
    known?.add(at);
    let st;
    try {
      st = lstatSync(at);
    } catch {
      mkdirSync(at);
      continue;
    }
    if (st.isSymbolicLink()) throw new LogbookError('workspace', `${at} is a link: a restore never writes through one`);
    if (!st.isDirectory()) throw new LogbookError('workspace', `${at} is ${kind(st)} where the snapshot has a directory`);
  }
  return join(root, ...parts);
}

/**
 * Whether the directories on the way to `parts` are all real directories (a
 * link or a file on the way: the file is not there to remove). `seen`: those
 * already found so in this restore.
 */
function reachable(root: string, parts: readonly string[], seen: Set<string>): boolean {
  let at = root;
  for (const part of parts.slice(0, -1)) {
    at = join(at, part);
    if (seen.has(at)) continue;
    try {
      if (!lstatSync(at).isDirectory()) return false;
    } catch {
      return false;
    }
    seen.add(at);
  }
  return true;
}

/** Removes the directories from `dir` up to `root` (not included) that are empty, nearest first. */
function removeEmptied(root: string, dir: string): void {
  for (let at = dir; at !== root && at.startsWith(root); at = dirname(at)) {
    try {
      if (readdirSync(at).length > 0) break;
      rmdirSync(at);
    } catch {
      break;
    }
  }
}

/** How many removals a restore keeps waiting at once (the file system's worker threads take them a few at a time). */
const REMOVALS_IN_FLIGHT = 64;

/**
 * Unlinks `paths`, several at a time off the event loop: removing a file whose
 * blocks are being written out waits for that write (on ext4, a file a tool
 * just rewrote in place), and such waits overlap where removals run side by
 * side. A path already gone is fine; any other failure is the result, once
 * every removal started has ended.
 */
async function unlinkAll(paths: readonly string[]): Promise<void> {
  let next = 0;
  let failed: { error: unknown } | null = null;
  const worker = async (): Promise<void> => {
    while (next < paths.length && failed === null) {
      const path = paths[next++]!;
      try {
        await unlink(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') failed = { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(REMOVALS_IN_FLIGHT, paths.length) }, worker));
  if (failed !== null) throw (failed as { error: unknown }).error;
}

/**
 * Removes the files at `removed` (never through a link on the way; a
 * directory standing there is left), then the directories they leave empty.
 */
async function removeFiles(root: string, removed: readonly (readonly string[])[]): Promise<void> {
  const seen = new Set<string>();
  const doomed: string[] = [];
  for (const parts of removed) {
    if (!reachable(root, parts, seen)) continue;
    const path = join(root, ...parts);
    const st = standing(path);
    if (st !== null && !st.isDirectory()) doomed.push(path);
  }
  await unlinkAll(doomed);
  for (const path of doomed) removeEmptied(root, dirname(path));
}

/** Removes directory `path` and the directories in it, which must be empty of anything else (rmdir refuses otherwise). */
function removeEmptyTree(path: string): void {
  for (const name of readdirSync(path)) {
    const inner = join(path, name);
    if (!lstatSync(inner).isDirectory()) throw new LogbookError('workspace', `${inner} appeared where the snapshot has a file`);
    removeEmptyTree(inner);
  }
  rmdirSync(path);
}

/**
 * Clears the way for the files a restore writes: the directories on the way
 * made (each a real directory, never a link), and what stands at each path
 * removed (a directory holding only what the restore removes, checkRestore
 * found; a file or a link, unlinked, several at a time). Returns each file's path.
 */
async function clearWay(root: string, files: readonly { parts: string[] }[], known: Set<string>): Promise<string[]> {
  const paths: string[] = [];
  const doomed: string[] = [];
  for (const { parts } of files) {
    const path = directoryFor(root, parts, known);
    paths.push(path);
    const st = standing(path);
    if (st?.isDirectory()) removeEmptyTree(path);
    else if (st !== null) doomed.push(path);
  }
  await unlinkAll(doomed);
  return paths;
}

/**
 * Writes a restored file as git checkout does, where clearWay removed what
 * stood there: the file created anew (never opened through a link a tool may
 * have put there: `wx` refuses one), its mode git's (under the umask). Not a
 * rename over the old file, which on ext4 waits for the new data to reach the
 * disk, file by file; a rewind stopped half way is undone from the snapshot it
 * took first. Something put there since the way was cleared is removed as
 * clearWay would have.
 */
function writeFile(path: string, change: ChangedFile, content: Buffer): void {
  try {
    create(path, change, content);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const st = lstatSync(path);
    if (st.isDirectory()) removeEmptyTree(path);
    else unlinkSync(path);
    create(path, change, content);
  }
}

function create(path: string, change: ChangedFile, content: Buffer): void {
  if (change.after.mode === '120000') symlinkSync(content.toString('utf8'), path);
  else writeFileSync(path, content, { mode: change.after.mode === '100755' ? 0o755 : 0o644, flag: 'wx' });
}

/** What a restore did: the files it changed, as changedFiles lists them from now to the target. */
export interface Restored {
  changes: ChangedFile[];
}

/**
 * Puts `dir` back from tree `now` (a snapshot made just before) to tree `to`,
 * after checkRestore found nothing in the way: removals first, then files
 * written, then the directories `dirs` made again where they are missing
 * (those an earlier restore emptied and removed: git keeps no directory). A
 * submodule (a gitlink) is left alone.
 */
export async function restoreTree(repo: WorkspaceRepo, dir: string, now: string, to: string, planned?: readonly ChangedFile[], dirs: readonly string[] = []): Promise<Restored> {
  const changes = (planned ?? (await changedFiles(repo, now, to))).filter((c) => c.before.mode !== '160000' && c.after.mode !== '160000');
  const paths = changes.map((c) => ({ change: c, parts: safeRelativePath(c.path) }));
  const again = dirs.map(safeRelativePath);
  await removeFiles(
    dir,
    paths.filter(({ change }) => change.status === 'deleted' || change.status === 'type_changed').map(({ parts }) => parts),
  );
  const written = paths.filter(({ change }) => change.status !== 'deleted');
  const wanted = new Map<string, { change: ChangedFile; path: string }[]>();
  // git starts and reads the first contents while the way is cleared; they wait in its pipe until taken.
  const known = new Set<string>();
  const cleared = clearWay(dir, written, known);
  const targets = cleared.then((at) => {
    written.forEach(({ change }, i) => {
      const same = wanted.get(change.after.id);
      const target = { change, path: at[i]! };
      if (same !== undefined) same.push(target);
      else wanted.set(change.after.id, [target]);
    });
  });
  // Each file is written as soon as git has read its content: git reads the next object while this one is written.
  const reading = eachBlob(repo.base(), [...new Set(written.map(({ change }) => change.after.id))], (id, content) => {
    for (const { change, path } of wanted.get(id)!) writeFile(path, change, content);
  }, { after: targets });
  reading.catch(() => {}); // awaited once the way is cleared; git is stopped when it was not
  try {
    await targets;
  } catch (err) {
    await reading.catch(() => {});
    throw err; // what stopped the clearing is the error to tell
  }
  await reading;
  for (const parts of again) {
    if (standing(join(dir, ...parts)) !== null) continue;
    try {
      directoryFor(dir, [...parts, '']);
    } catch {
      // what the restore put back has a file on its way: the restored state wins
    }
  }
  return { changes };
}
