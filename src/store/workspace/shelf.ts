/**
 * Moving snapshots between this machine's git directory and a shelf other
 * machines read (Backend.workspaceObjects: a JetStream object store). An object
 * is shelved under its git id as git hashes it (`TYPE SIZE\0CONTENT`), so
 * whoever fetches it checks it is what its name says before keeping it.
 */
import { createHash } from 'node:crypto';
import { LogbookError } from '../../core/index.js';
import type { ObjectShelf } from '../backend.js';
import { git, objectId } from './git.js';
import type { WorkspaceRepo } from './repo.js';

/** Shelved objects already known, per shelf: a snapshot shelves only what is new. */
const known = new WeakMap<ObjectShelf, Set<string>>();

function knownOn(shelf: ObjectShelf): Set<string> {
  let set = known.get(shelf);
  if (set === undefined) known.set(shelf, (set = new Set()));
  return set;
}

/** The ids of tree `tree` and of every tree and file below it (submodules aside). */
export async function objectsOf(repo: WorkspaceRepo, tree: string): Promise<string[]> {
  const out = await git(['ls-tree', '-r', '-t', '-z', '--full-tree', objectId(tree)], repo.base());
  const ids = [tree];
  for (const entry of out.stdout.toString('utf8').split('\0')) {
    const m = /^\d{6} (blob|tree) ([0-9a-f]+)\t/.exec(entry);
    if (m !== null) ids.push(m[2]!);
  }
  return [...new Set(ids)];
}

/** Objects as git stores them (`TYPE SIZE\0CONTENT`), read in one `git cat-file --batch`. */
async function rawObjects(repo: WorkspaceRepo, ids: readonly string[]): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  if (ids.length === 0) return out;
  const { stdout } = await git(['cat-file', '--batch'], { ...repo.base(), input: `${ids.map(objectId).join('\n')}\n` });
  let at = 0;
  for (const id of ids) {
    const eol = stdout.indexOf(0x0a, at);
    const m = /^([0-9a-f]+) (\w+) (\d+)$/.exec(stdout.subarray(at, eol).toString('utf8'));
    if (m === null) throw new LogbookError('workspace', `the snapshot store lacks object ${id}`);
    const size = Number(m[3]);
    out.set(id, Buffer.concat([Buffer.from(`${m[2]} ${size}\0`), stdout.subarray(eol + 1, eol + 1 + size)]));
    at = eol + 1 + size + 1;
  }
  return out;
}

/** Puts on `shelf` every object of snapshot `tree` (and the objects `also` names: its rules) it does not hold yet. */
export async function shareTree(repo: WorkspaceRepo, shelf: ObjectShelf, tree: string, also: readonly string[] = []): Promise<void> {
  const seen = knownOn(shelf);
  const ids = [...new Set([...(await objectsOf(repo, tree)), ...also])].filter((id) => !seen.has(id));
  if (ids.length === 0) return;
  const held = await shelf.holds(ids);
  const missing = ids.filter((id) => !held.has(id));
  for (let i = 0; i < missing.length; i += 256) {
    const batch = missing.slice(i, i + 256);
    const raw = await rawObjects(repo, batch);
    for (const id of batch) await shelf.put(id, raw.get(id)!);
  }
  for (const id of ids) seen.add(id);
}

/** An object as shelved, checked against its name: its type and content. */
function checkedObject(id: string, bytes: Uint8Array): { type: string; content: Buffer } {
  const buf = Buffer.from(bytes);
  const nul = buf.indexOf(0);
  const m = nul < 0 ? null : /^(blob|tree) (\d+)$/.exec(buf.subarray(0, nul).toString('utf8'));
  const hash = createHash(id.length === 64 ? 'sha256' : 'sha1').update(buf).digest('hex');
  if (m === null || hash !== id || Number(m[2]) !== buf.length - nul - 1) throw new LogbookError('workspace', `the shelved object ${id} is not what its name says`);
  return { type: m[1]!, content: buf.subarray(nul + 1) };
}

/** The ids a raw tree names (its files and trees; submodules aside). */
function treeEntries(content: Buffer, idBytes: number): string[] {
  const ids: string[] = [];
  let at = 0;
  while (at < content.length) {
    const nul = content.indexOf(0, at);
    const mode = content.subarray(at, content.indexOf(0x20, at)).toString('utf8');
    const id = content.subarray(nul + 1, nul + 1 + idBytes).toString('hex');
    if (mode !== '160000') ids.push(id);
    at = nul + 1 + idBytes;
  }
  return ids;
}

/** Which of `ids` the local git directory lacks. */
export async function missingLocally(repo: WorkspaceRepo, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const { stdout } = await git(['cat-file', '--batch-check'], { ...repo.base(), input: `${ids.map(objectId).join('\n')}\n` });
  return stdout
    .toString('utf8')
    .split('\n')
    .filter((l) => l.endsWith(' missing'))
    .map((l) => l.slice(0, -' missing'.length));
}

/**
 * Brings snapshot `tree` (or a blob: a snapshot's rules) from `shelf` into the
 * local git directory, what is below a tree before the tree itself, so a tree
 * found locally is whole.
 */
export async function fetchTree(repo: WorkspaceRepo, shelf: ObjectShelf, tree: string): Promise<void> {
  await repo.ensure();
  const fetched: { id: string; type: string; content: Buffer }[] = [];
  let wanted = await missingLocally(repo, [tree]);
  while (wanted.length > 0) {
    const next: string[] = [];
    for (const id of wanted) {
      const bytes = await shelf.get(id);
      if (bytes === null) throw new LogbookError('workspace', `${shelf.location} lacks object ${id} of snapshot ${tree}`);
      const object = checkedObject(id, bytes);
      fetched.push({ id, ...object });
      if (object.type === 'tree') next.push(...treeEntries(object.content, id.length / 2));
    }
    wanted = await missingLocally(repo, [...new Set(next)]);
  }
  for (const { id, type, content } of fetched.reverse()) {
    const out = await git(['hash-object', '-t', type, '-w', '--stdin'], { ...repo.base(), input: content });
    if (out.stdout.toString('utf8').trim() !== id) throw new LogbookError('workspace', `object ${id} changed on its way from ${shelf.location}`);
  }
}
