/**
 * What changed between two snapshots of a workspace: the files, with their
 * line counts, and the unified diff (binary files named, not shown). A file
 * name is whatever a tool made it: a caller that shows one escapes it.
 */
import { isUtf8 } from 'node:buffer';
import { LogbookError, quotedPath } from '../../core/index.js';
import { blobs, git, objectId } from './git.js';
import type { WorkspaceRepo } from './repo.js';

/** How a file changed between two snapshots (`type_changed`: a file became a link, or the other way). */
export type ChangeStatus = 'added' | 'modified' | 'deleted' | 'type_changed';

/** A file that differs between two snapshots: what a restore needs, without line counts (which take reading both sides). */
export interface ChangedFile {
  path: string;
  status: ChangeStatus;
  /** Its mode and object before and after (`000000`/zeros where it was absent). */
  before: { mode: string; id: string };
  after: { mode: string; id: string };
}

/** One file changed between two snapshots, with its line counts. */
export interface FileChange extends ChangedFile {
  /** Lines added and removed; absent for a binary file. */
  added?: number;
  removed?: number;
  binary: boolean;
}

const STATUS: Record<string, ChangeStatus> = { A: 'added', M: 'modified', D: 'deleted', T: 'type_changed' };

/** The files that differ from tree `a` to tree `b`, in path order, with their line counts. */
export async function treeChanges(repo: WorkspaceRepo, a: string, b: string): Promise<FileChange[]> {
  if (a === b) return [];
  // One call: the raw entries (`:MODE MODE ID ID S\0PATH\0`), then the line counts (`ADDED\tREMOVED\tPATH\0`).
  const { files, counts } = await diffTree(repo, a, b, true);
  return files.map((f) => ({ path: f.path, status: f.status, binary: false, ...counts.get(f.path), before: f.before, after: f.after }));
}

/**
 * The files that differ from tree `a` to tree `b`, in path order, without
 * line counts: what a rewind plans and restores from (git compares the trees
 * alone and reads no file's content).
 */
export async function changedFiles(repo: WorkspaceRepo, a: string, b: string): Promise<ChangedFile[]> {
  if (a === b) return [];
  return (await diffTree(repo, a, b, false)).files;
}

/**
 * changedFiles for each pair of trees, in one `git diff-tree --stdin`: git
 * prints each pair's `A B` line, then that pair's entries.
 */
export async function changedFilesOfPairs(repo: WorkspaceRepo, pairs: readonly (readonly [string, string])[]): Promise<ChangedFile[][]> {
  const asked = pairs.filter(([a, b]) => a !== b);
  const found = new Map<string, ChangedFile[]>();
  if (asked.length > 0) {
    await repo.ensure();
    const input = asked.map(([a, b]) => `${objectId(a)} ${objectId(b)}\n`).join('');
    const out = await git(['diff-tree', '--stdin', '-r', '-z', '--raw', '--no-renames'], { ...repo.base(), input });
    const text = out.stdout.toString('utf8');
    let files: ChangedFile[] | null = null;
    for (let at = 0; at < text.length; ) {
      if (text[at] === ':') {
        const meta = text.indexOf('\0', at);
        const end = text.indexOf('\0', meta + 1);
        if (files === null || meta < 0 || end < 0) throw new LogbookError('workspace', 'git diff-tree gave a change it named no trees for');
        const entry = rawEntry(text.slice(at, meta), text.slice(meta + 1, end));
        if (entry !== null) files.push(entry);
        at = end + 1;
        continue;
      }
      const eol = text.indexOf('\n', at);
      const header = text.slice(at, eol < 0 ? text.length : eol);
      if (found.has(header) || !asked.some(([a, b]) => header === `${a} ${b}`)) throw new LogbookError('workspace', `git diff-tree gave trees it was not asked for: ${JSON.stringify(header.slice(0, 200))}`);
      found.set(header, (files = []));
      at = eol < 0 ? text.length : eol + 1;
    }
  }
  const all: ChangedFile[][] = [];
  for (const [a, b] of pairs) {
    // A pair git skipped (it exits 0 on a tree it cannot read) is asked alone, which fails with git's reason.
    all.push(a === b ? [] : (found.get(`${a} ${b}`) ?? (await changedFiles(repo, a, b))));
  }
  return all;
}

/** One entry of `diff-tree --raw -z`: `:MODE MODE ID ID S` and its path; null for a status a restore has no use for. */
function rawEntry(meta: string, path: string): ChangedFile | null {
  const m = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])/.exec(meta);
  const status = m === null ? undefined : STATUS[m[5]!];
  return status === undefined ? null : { path, status, before: { mode: m![1]!, id: m![3]! }, after: { mode: m![2]!, id: m![4]! } };
}

async function diffTree(repo: WorkspaceRepo, a: string, b: string, withCounts: boolean): Promise<{ files: ChangedFile[]; counts: Map<string, { added?: number; removed?: number; binary: boolean }> }> {
  await repo.ensure();
  const out = await git(['diff-tree', '-r', '-z', '--raw', ...(withCounts ? ['--numstat'] : []), '--no-renames', objectId(a), objectId(b)], repo.base());
  const parts = out.stdout.toString('utf8').split('\0');
  const files: ChangedFile[] = [];
  const counts = new Map<string, { added?: number; removed?: number; binary: boolean }>();
  for (let i = 0; i < parts.length; i++) {
    const entry = parts[i]!;
    if (entry.startsWith(':')) {
      const file = rawEntry(entry, parts[++i]!);
      if (file !== null) files.push(file);
      continue;
    }
    const n = /^(-|\d+)\t(-|\d+)\t([\s\S]*)$/.exec(entry);
    if (n !== null) counts.set(n[3]!, n[1] === '-' ? { binary: true } : { added: Number(n[1]), removed: Number(n[2]), binary: false });
  }
  return { files, counts };
}

/** An object id that names no object: the side of a change where the file is absent. */
const ABSENT = /^0+$/;

/**
 * treeChanges as a diff shows them: a file is binary where git finds a NUL
 * in its first 8,000 bytes, and also where either side is not UTF-8 (its
 * lines could only be shown with replacement characters), read in one
 * `git cat-file --batch`. Links and submodules are not read.
 */
export async function shownChanges(repo: WorkspaceRepo, a: string, b: string): Promise<FileChange[]> {
  const key = `${repo.base().gitDir}\0${a}\0${b}`;
  const known = SHOWN.get(key);
  if (known !== undefined) return known;
  const changes = await treeChanges(repo, a, b);
  const isFile = (side: FileChange['before']): boolean => side.mode.startsWith('100') && !ABSENT.test(side.id);
  const texts = new Set(changes.filter((c) => !c.binary && c.before.id !== c.after.id && (isFile(c.before) || isFile(c.after))));
  const contents = await blobs(
    repo.base(),
    [...texts].flatMap((c) => [c.before, c.after].filter(isFile).map((side) => side.id)),
  );
  const shown = changes.map((c) => {
    if (!texts.has(c) || [c.before, c.after].every((side) => !isFile(side) || isUtf8(contents.get(side.id)!))) return c;
    const { added: _added, removed: _removed, ...rest } = c;
    return { ...rest, binary: true };
  });
  SHOWN.set(key, shown);
  if (SHOWN.size > SHOWN_KEPT) SHOWN.delete(SHOWN.keys().next().value!);
  return shown;
}

/**
 * The changes between two trees never change (a tree's id is its content's
 * hash): the last ones found are kept, so a page asking again while a run goes
 * on reads only the spans that are new.
 */
const SHOWN = new Map<string, FileChange[]>();
const SHOWN_KEPT = 256;

/**
 * The unified diff from tree `a` to tree `b` (binary files named, as git names
 * them). The files of `binary` that git took for text (shownChanges: not
 * UTF-8) are named as git names a binary file, their lines left out.
 */
export async function treePatch(repo: WorkspaceRepo, a: string, b: string, binary: readonly FileChange[] = []): Promise<string> {
  if (a === b) return '';
  await repo.ensure();
  const out = await git(['diff-tree', '-r', '-p', '--no-renames', '--no-color', '--no-ext-diff', '--no-textconv', objectId(a), objectId(b)], repo.base());
  const patch = out.stdout.toString('utf8');
  const named = new Set(binary.filter((f) => f.binary).map((f) => `diff --git ${quotedPath(`a/${f.path}`)} ${quotedPath(`b/${f.path}`)}`));
  if (named.size === 0) return patch;
  // A file's part starts at its `diff --git` line: a content line never does (each starts with ' ', '+', '-' or '\\').
  const parts = patch.split(/^(?=diff --git )/m);
  return parts.map((part) => (named.has(part.slice(0, part.indexOf('\n'))) ? asBinary(part) : part)).join('');
}

/** A file's part of a patch with its lines left out, as git writes a binary file's: its header lines, then `Binary files A and B differ`. */
function asBinary(part: string): string {
  const lines = part.split('\n');
  const header = lines[0]!;
  const kept: string[] = [header];
  for (const line of lines.slice(1)) {
    if (line === '' || line.startsWith('--- ') || line.startsWith('@@') || line.startsWith('Binary files ')) break;
    kept.push(line);
  }
  const [, from, to] = /^diff --git ("(?:[^"\\]|\\.)*"|\S+) ("(?:[^"\\]|\\.)*"|\S+)$/.exec(header) ?? [];
  const created = kept.some((l) => l.startsWith('new file mode '));
  const deleted = kept.some((l) => l.startsWith('deleted file mode '));
  kept.push(`Binary files ${created ? '/dev/null' : from} and ${deleted ? '/dev/null' : to} differ`);
  return `${kept.join('\n')}\n`;
}
