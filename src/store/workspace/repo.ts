/**
 * Where a workspace's snapshots are kept: one git directory of logbook's own
 * under the state directory (`<runs>/.workspace/objects.git`), shared by every
 * run and workspace, so a file is stored once whatever turn, run or fork holds
 * it (git's objects are content-addressed). Each workspace has its own index
 * there (`index/<hash of its path>`): the stats git reuses so an unchanged file
 * is never read again, written only under logbook's flock beside it
 * (`index/<hash>.flock`), so a git lock found there is a killed git's, and the tree it
 * was last written as kept beside it (`index/<hash>.tree`). A snapshot is a git tree id; which snapshot belongs to
 * which seq is a note beside the journal (run-notes.ts), never in it.
 */
import { closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, readSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { LogbookError, isLogbookError, nodeCrypto } from '../../core/index.js';
import { acquireLock, type FileLock } from '../file/flock.js';
import { git, objectId, type GitCall } from './git.js';

/** What is tracked of a workspace, and how much of it at most. */
export interface WorkspaceSettings {
  /** Track at all (`workspace.track`, default true). */
  track: boolean;
  /** The directory tracked when it is not the run's (`workspace.dir`, absolute). */
  dir?: string;
  /** More to leave out, as .gitignore lines (`workspace.exclude`). */
  exclude: readonly string[];
  /** The most files a tracked workspace holds (`workspace.max_files`). */
  maxFiles: number;
  /** The most bytes of tracked content (`workspace.max_bytes`). */
  maxBytes: number;
}

/** What is tracked when the config says nothing: everything the ignore rules leave, up to 100,000 files and 1 GiB. */
export const WORKSPACE_DEFAULTS = { track: true, exclude: [] as string[], maxFiles: 100_000, maxBytes: 1024 * 1024 * 1024 } as const;

/**
 * Never copied, whatever the workspace's own ignore files say: git's own
 * directory (git skips it), installed packages, environment files and private keys.
 */
export const DEFAULT_EXCLUDES: readonly string[] = [
  'node_modules/',
  '.env*',
  '*.pem',
  '*.key',
  '*.p12',
  '*.pfx',
  'id_rsa*',
  'id_dsa*',
  'id_ecdsa*',
  'id_ed25519*',
];

/** A snapshot made: its tree, and the rules that decided what it holds. */
export interface Snapshot {
  tree: string;
  /** The excludes it was made with, as a git blob in the same repository (a later rewind or diff follows them). */
  rules: string;
}

/** The rules a snapshot follows besides the workspace's .gitignore files: an excludes file, and its text's git blob id. */
interface Rules {
  id: string;
  path: string;
  text: Buffer;
}

/** The git id of a blob of `content` (what `git hash-object` names it; the repository's ids are SHA-1). */
function blobId(content: Buffer): string {
  return nodeCrypto().createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}

/** A workspace too large to track: why, said once and noted. */
export class TooLarge {
  constructor(readonly reason: string) {}
}

const sha = (text: string): string => nodeCrypto().createHash('sha256').update(text).digest('hex').slice(0, 32);

/** The git directory and indexes of one state directory's snapshots. */
export class WorkspaceRepo {
  readonly gitDir: string;
  private ready = false;
  /** The tree each index (workspace) was last written as by this process. */
  private readonly lastTree = new Map<string, { tree: string; stamp: string }>();
  /** The rules known to be kept in the repository as blobs. */
  private readonly kept = new Set<string>();

  constructor(
    /** `<runs>/.workspace` (file store) or `<state>/workspace` (a store whose journals live elsewhere). */
    readonly home: string,
    /** Where git is looked for (a PATH). */
    private readonly searchPath?: string,
  ) {
    this.gitDir = join(home, 'objects.git');
  }

  /** What every git call on this repository is given. @internal */
  base(): GitCall {
    return { gitDir: this.gitDir, ...(this.searchPath !== undefined ? { searchPath: this.searchPath } : {}) };
  }

  /** The git directory, made (0700) if it is not there yet. */
  async ensure(): Promise<void> {
    if (this.ready) return;
    if (!existsSync(join(this.gitDir, 'objects'))) {
      this.dropIndexes();
      mkdirSync(this.gitDir, { recursive: true, mode: 0o700 });
      await git(['init', '--bare', '-q'], this.base()).catch((err: unknown) => {
        if (!existsSync(join(this.gitDir, 'objects'))) throw err; // another process made it meanwhile: fine
      });
    }
    this.ready = true;
  }

  /**
   * Drops the indexes (and the trees kept beside them) of a git directory that
   * is gone: their entries name objects a git directory made anew lacks, and
   * git, finding a file unchanged by its stats, would not write it again. Their
   * flocks stay, for whoever holds one.
   */
  private dropIndexes(): void {
    const at = join(this.home, 'index');
    let names: string[];
    try {
      names = readdirSync(at);
    } catch {
      return; // none yet
    }
    for (const name of names) if (!name.endsWith('.flock')) rmSync(join(at, name), { force: true });
  }

  /** The index of `dir` snapshotted by `rules`: each set of rules its own, as an index keeps what it once took in whatever the excludes say later. */
  private indexOf(dir: string, rules: Rules): string {
    const at = join(this.home, 'index');
    mkdirSync(at, { recursive: true, mode: 0o700 });
    return join(at, `${sha(dir)}-${rules.id.slice(0, 12)}`);
  }

  /**
   * The rules for `dir` with `settings`, as an excludes file: the defaults,
   * workspace.exclude, the workspace's own `.git/info/exclude`, and logbook's
   * own state when it is inside the workspace. The workspace's .gitignore files
   * git reads itself (they are in the snapshot).
   */
  private rulesOf(dir: string, settings: WorkspaceSettings): Rules {
    const lines = [...DEFAULT_EXCLUDES, ...settings.exclude];
    try {
      lines.push(...readFileSync(join(dir, '.git', 'info', 'exclude'), 'utf8').split('\n'));
    } catch {
      // no repository there, or no exclude file
    }
    for (const state of [dirname(this.home)]) {
      const rel = relative(dir, state);
      if (rel !== '' && !rel.startsWith('..') && !rel.startsWith(sep)) lines.push(`/${rel.split(sep).map(escapeGlob).join('/')}/`);
    }
    return this.rulesFile(Buffer.from(`${lines.join('\n')}\n`, 'utf8'));
  }

  /**
   * Rules as a snapshot note names them (the git blob of their text): the
   * excludes file of that name when it holds them (made here), else read back
   * from the repository (a snapshot made elsewhere, or before the file was named so).
   */
  private async rulesFrom(id: string): Promise<Rules> {
    const path = this.excludesPath(objectId(id));
    let text: Buffer | null = null;
    try {
      text = readFileSync(path);
    } catch {
      // not made here
    }
    if (text === null || blobId(text) !== id) {
      text = (await git(['cat-file', 'blob', id], this.base())).stdout;
      if (blobId(text) !== id) throw new LogbookError('workspace', `the snapshot rules ${id} read back as other bytes`);
      writeExcludes(path, text); // git reads the rules from that file
    }
    this.kept.add(id);
    return { id, path, text };
  }

  /** Where the excludes file of the rules with git blob id `id` is kept. */
  private excludesPath(id: string): string {
    return join(this.home, 'excludes', id);
  }

  /** The excludes file of `text` (written once, named by its git blob id), and that id. */
  private rulesFile(text: Buffer): Rules {
    const id = blobId(text);
    const path = this.excludesPath(id);
    if (!existsSync(path)) writeExcludes(path, text);
    return { id, path, text };
  }

  /** Keeps `rules` in the repository as a blob, once: what a snapshot note names. */
  private async keep(rules: Rules): Promise<void> {
    if (this.kept.has(rules.id)) return;
    if (this.holdsLoose(rules.id)) {
      this.kept.add(rules.id); // kept by an earlier process: git would write nothing
      return;
    }
    const out = await git(['hash-object', '-w', '--stdin'], { ...this.base(), input: rules.text });
    if (out.stdout.toString('utf8').trim() !== rules.id) throw new LogbookError('workspace', `git hashed the snapshot rules as other than ${rules.id}`);
    this.kept.add(rules.id);
  }

  /** Whether the repository holds object `id` as a loose object (as git writes every object here: nothing packs them). */
  private holdsLoose(id: string): boolean {
    return existsSync(join(this.gitDir, 'objects', id.slice(0, 2), id.slice(2)));
  }

  /**
   * The tree index `index` was last written as, by any process, as kept beside
   * it (`HASH.tree`, under the index's flock); undefined when none is kept, or
   * the tree is not in the repository (a git directory made anew).
   */
  private filedTree(index: string): { tree: string; stamp: string } | undefined {
    let text: string;
    try {
      text = readFileSync(`${index}.tree`, 'utf8');
    } catch {
      return undefined;
    }
    const m = /^(\S+) ([0-9a-f]{40}(?:[0-9a-f]{24})?)\n$/.exec(text);
    return m !== null && this.holdsLoose(m[2]!) ? { stamp: m[1]!, tree: m[2]! } : undefined;
  }

  /** Keeps the tree index `index` was written as, for this process and the next (it only saves a `git write-tree`). */
  private fileTree(index: string, last: { tree: string; stamp: string }): void {
    this.lastTree.set(index, last);
    try {
      writeFileSync(`${index}.tree`, `${last.stamp} ${last.tree}\n`, { mode: 0o600 });
    } catch {
      // the next process writes the tree again
    }
  }

  private call(dir: string, rules: Rules): GitCall {
    return { ...this.base(), index: this.indexOf(dir, rules), workTree: dir, config: { 'core.excludesFile': rules.path } };
  }

  /**
   * Whether `dir` is over its limits: git lists what it would track (its
   * index, then what is new), and the listing stops as soon as a limit is
   * passed. A TooLarge when it is, else null.
   */
  async overLimits(dir: string, settings: WorkspaceSettings): Promise<TooLarge | null> {
    await this.ensure();
    let files = 0;
    let bytes = 0;
    let over: TooLarge | null = null;
    let rest = '';
    await git(['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', '.'], {
      ...this.call(dir, this.rulesOf(dir, settings)),
      onStdout: (chunk) => {
        const names = (rest + chunk.toString('utf8')).split('\0');
        rest = names.pop()!;
        for (const name of names) {
          files++;
          if (files > settings.maxFiles) {
            over = tooManyFiles(settings.maxFiles);
            return false;
          }
          try {
            const st = lstatSync(join(dir, name));
            if (st.isFile()) bytes += st.size;
          } catch {
            // gone since it was listed
          }
          if (bytes > settings.maxBytes) {
            over = tooManyBytes(settings.maxBytes);
            return false;
          }
        }
        return true;
      },
    });
    return over;
  }

  /**
   * Snapshots `dir`: every file its ignore rules and the excludes do not leave
   * out goes into the index (an unchanged one by its stats alone, never read),
   * and the index becomes a tree. Symbolic links are kept as links, never
   * followed; special files are skipped (git keeps neither kind's target).
   * With `options.rules` (a snapshot's Snapshot.rules), those rules decide
   * what is tracked instead of `settings`: a later snapshot of a run's
   * workspace (a rewind's) tracks what the run tracked, whatever the config says now.
   */
  async snapshot(dir: string, settings: WorkspaceSettings, options: { rules?: string } = {}): Promise<Snapshot> {
    return (await this.snapshotAt(dir, settings, false, options.rules)) as Snapshot;
  }

  /**
   * Snapshots `dir` as `snapshot` does, within the limits of `settings`: a
   * TooLarge, and no tree, when what it tracks grew past one. An unchanged
   * workspace costs nothing more; one that changed is measured from its index
   * (the count and sizes git keeps there), and a git adding far past a limit
   * is stopped where it is (what it added is counted as it goes).
   */
  async snapshotWithin(dir: string, settings: WorkspaceSettings): Promise<Snapshot | TooLarge> {
    return this.snapshotAt(dir, settings, true);
  }

  private async snapshotAt(dir: string, settings: WorkspaceSettings, limited: boolean, rulesId?: string): Promise<Snapshot | TooLarge> {
    await this.ensure();
    const rules = rulesId !== undefined ? await this.rulesFrom(rulesId) : this.rulesOf(dir, settings);
    await this.keep(rules);
    const call = this.call(dir, rules);
    // `--verbose` names each path the index takes in or lets go: when it names none, the tree is the one written last.
    // Only while no other process wrote the index since (another run in the same workspace).
    const index = call.index!;
    return withIndex(index, async () => {
      const last = this.lastTree.get(index) ?? this.filedTree(index);
      const untouched = last !== undefined && last.stamp === indexStamp(index);
      const growth = limited ? new Growth(dir, settings, indexEntries(index)) : null;
      const added = await git(['add', '--all', '--verbose', '--', '.'], { ...call, ...(growth !== null ? { onStdout: (chunk: Buffer) => growth.take(chunk) } : {}) });
      if (growth?.over != null) return growth.over;
      if (untouched && added.stdout.length === 0) {
        const stamp = indexStamp(index);
        if (stamp !== last.stamp) this.fileTree(index, { tree: last.tree, stamp });
        else this.lastTree.set(index, last);
        return { tree: last.tree, rules: rules.id };
      }
      if (limited) {
        const over = overBy(indexTotals(index), settings);
        if (over !== null) return over;
      }
      const tree = objectId((await git(['write-tree'], call)).stdout.toString('utf8').trim());
      this.fileTree(index, { tree, stamp: indexStamp(index) });
      return { tree, rules: rules.id };
    });
  }

  /** Whether the repo holds object `id`. */
  async has(id: string): Promise<boolean> {
    await this.ensure();
    const out = await git(['cat-file', '-e', objectId(id)], { ...this.base(), okCodes: [1, 128] });
    return out.code === 0;
  }
}

/** What a limit passed says. */
const tooManyFiles = (max: number): TooLarge => new TooLarge(`it holds more than ${max} files (workspace.max_files)`);
const tooManyBytes = (max: number): TooLarge => new TooLarge(`it holds more than ${formatBytes(max)} of files (workspace.max_bytes)`);

function overBy(totals: { files: number; bytes: number } | null, settings: WorkspaceSettings): TooLarge | null {
  if (totals === null) return null;
  if (totals.files > settings.maxFiles) return tooManyFiles(settings.maxFiles);
  if (totals.bytes > settings.maxBytes) return tooManyBytes(settings.maxBytes);
  return null;
}

/**
 * What a `git add --verbose` takes in, counted as it is told (`add 'PATH'`,
 * a new file or a changed one): once the count is past what the index held
 * plus the file limit, or the added files' own sizes past the byte limit, the
 * workspace is over a limit whatever else the add does, and it is stopped.
 */
class Growth {
  over: TooLarge | null = null;
  private rest = '';
  private adds = 0;
  private bytes = 0;

  constructor(
    private readonly dir: string,
    private readonly settings: WorkspaceSettings,
    private readonly held: number,
  ) {}

  /** Takes a chunk of git's output; false once a limit is passed (git is stopped). */
  take(chunk: Buffer): boolean {
    const lines = (this.rest + chunk.toString('utf8')).split('\n');
    this.rest = lines.pop()!;
    for (const line of lines) {
      const m = /^add '(.*)'$/.exec(line);
      if (m === null) continue;
      this.adds++;
      try {
        const st = lstatSync(join(this.dir, m[1]!));
        if (st.isFile()) this.bytes += st.size;
      } catch {
        // gone since, or a name git printed otherwise: the index is measured after the add
      }
      if (this.adds > this.held + this.settings.maxFiles) this.over = tooManyFiles(this.settings.maxFiles);
      else if (this.bytes > this.settings.maxBytes) this.over = tooManyBytes(this.settings.maxBytes);
      if (this.over !== null) return false;
    }
    return true;
  }
}

/** The bytes of an object id in the index (the repository's ids are SHA-1: `git init` without an object format). */
const INDEX_ID_BYTES = 20;

/**
 * How many entries the index at `path` holds and the sum of their sizes as it
 * keeps them (index format 2 or 3: git's own); null when there is none, or it
 * is of a format this does not read (then the add's own count is all there is).
 */
function indexTotals(path: string): { files: number; bytes: number } | null {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch {
    return null;
  }
  if (buf.length < 12 || buf.toString('latin1', 0, 4) !== 'DIRC') return null;
  const version = buf.readUInt32BE(4);
  if (version !== 2 && version !== 3) return null;
  const files = buf.readUInt32BE(8);
  let bytes = 0;
  let at = 12;
  for (let i = 0; i < files; i++) {
    if (at + 62 > buf.length) return null;
    if (buf.readUInt32BE(at + 24) >>> 12 === 0o10) bytes += buf.readUInt32BE(at + 36); // a regular file's size
    const flags = buf.readUInt16BE(at + 40 + INDEX_ID_BYTES);
    const name = at + 42 + INDEX_ID_BYTES + (version === 3 && (flags & 0x4000) !== 0 ? 2 : 0);
    const nul = buf.indexOf(0, name);
    if (nul < 0) return null;
    at += Math.floor((nul - at + 8) / 8) * 8; // the entry and 1 to 8 NULs, to a multiple of 8
  }
  return { files, bytes };
}

/** How many entries the index at `path` holds, from its header alone (0 when there is none). */
function indexEntries(path: string): number {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return 0;
  }
  try {
    const head = Buffer.alloc(12);
    return readSync(fd, head, 0, 12, 0) === 12 && head.toString('latin1', 0, 4) === 'DIRC' ? head.readUInt32BE(8) : 0;
  } finally {
    closeSync(fd);
  }
}

/** What names an index file's bytes as written: any write changes its inode, size or change time. */
function indexStamp(path: string): string {
  try {
    const st = statSync(path, { bigint: true });
    return `${st.ino}-${st.size}-${st.ctimeNs}`;
  } catch {
    return '';
  }
}

/** How long a snapshot waits for another one of the same workspace (a live holder: its git is adding files). */
const INDEX_WAIT_MS = 10 * 60_000;

/**
 * Runs `fn` holding logbook's own flock on the index (`HASH.flock`): two runs
 * snapshotting one workspace wait for each other there. Every git command
 * that writes the index runs under it, so git's own lock (`HASH.lock`) found
 * while the flock is held was left by a git that was killed: it is stale and
 * removed (a live one cannot be there). The kernel drops a flock when its
 * holder dies, so a killed run never leaves one held.
 */
async function withIndex<T>(index: string, fn: () => Promise<T>): Promise<T> {
  const held = await flockIndex(index);
  try {
    removeStaleLock(`${index}.lock`);
    return await fn();
  } finally {
    held.release();
  }
}

/** Writes an excludes file whole (a later rewind reads it by its name), over whatever was there. */
function writeExcludes(path: string, text: Buffer): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, path);
}

/** Removes a git lock a killed git left (nothing there is the usual case: unlink alone, not rmSync's walk). */
function removeStaleLock(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

async function flockIndex(index: string): Promise<FileLock> {
  const start = Date.now();
  for (let attempt = 0; ; attempt++) {
    try {
      return acquireLock(`${index}.flock`, 'workspace');
    } catch (err) {
      if (!isLogbookError(err, 'locked')) throw err;
      if (Date.now() - start > INDEX_WAIT_MS) {
        throw new LogbookError('workspace', `another snapshot of this workspace has held its index ${index} for ${INDEX_WAIT_MS / 60_000} minutes`, { cause: err });
      }
      await new Promise((r) => setTimeout(r, Math.min(20 + attempt * 10, 250)));
    }
  }
}

/** A path as a gitignore line that matches it alone. */
function escapeGlob(part: string): string {
  return part.replace(/[\\*?[\]!# ]/g, (c) => `\\${c}`);
}

export function formatBytes(n: number): string {
  if (n >= 1024 ** 3 && n % 1024 ** 3 === 0) return `${n / 1024 ** 3} GiB`;
  if (n >= 1024 ** 2 && n % 1024 ** 2 === 0) return `${n / 1024 ** 2} MiB`;
  if (n >= 1024 && n % 1024 === 0) return `${n / 1024} KiB`;
  return `${n} bytes`;
}

/** Refused as a workspace unless named by workspace.dir: the user's home directory and the root. */
export function untrackedPlace(dir: string, home: string): string | null {
  if (dir === '/') return 'it is the root directory (name it with workspace.dir to track it)';
  if (dir === home) return 'it is the home directory (name it with workspace.dir to track it)';
  return null;
}
