/**
 * A per-user cache of checked configs, so that a start whose agent.yaml did
 * not change since the last takes the checked config as that one left it,
 * without loading the YAML parser and the schema's validator or running them.
 *
 * What a check of a config gives depends on nothing but the file's bytes, its
 * absolute path (relative paths in it resolve against its directory), the
 * code that checks it and the Node it runs on (a `tools:` pattern is a
 * regular expression of that Node's): an entry is keyed by all four (its
 * key: a SHA-256 of them), and one of any other key is not taken. Only a
 * config that JSON carries exactly is kept (a value JSON cannot hold, as
 * `.inf`, is checked anew each time).
 *
 * Trust stays where it is: an entry is taken only from a directory and a file
 * owned by the user the process runs as and writable by nobody else (as
 * Node's compile cache is kept), so no other user can put a config in the
 * place of the one a run reads. Anything else (no such directory, a damaged
 * or foreign entry, another key) is a miss: the file is checked as without a
 * cache, and its entry written again.
 */
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync, type Stats } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { nodeCrypto } from '../core/index.js';

/** Where the cache is and whose it is: the CLI's (cli/environment.ts), from the environment. */
export interface ConfigCache {
  /** The directory of its entries. */
  dir: string;
  /**
   * The directory `dir` is made under, which the cache never makes: `dir`'s
   * missing directories below it are made one at a time (makeOwnDirs).
   */
  root: string;
  /** The user it belongs to: an entry, and its directory, must be that user's alone. */
  uid: number;
  /** The code that checks a config: the build's identity (dist/build.json). */
  build: string;
}

/** The layout of an entry; one of another is a miss. */
const LAYOUT = 1;

/** Entries kept at most: a write past it removes the oldest (each config file has one entry, replaced as it changes). */
const MAX_ENTRIES = 200;

/**
 * Where the cache is when caching is not turned off (LOGBOOK_CONFIG_CACHE=0):
 * `$XDG_CACHE_HOME/logbook/config` made under `$XDG_CACHE_HOME`, else
 * `~/.cache/logbook/config` made under the home directory.
 */
export function defaultConfigCacheDir(env: Readonly<Record<string, string | undefined>>, home: string): Pick<ConfigCache, 'dir' | 'root'> | undefined {
  if (env.LOGBOOK_CONFIG_CACHE === '0') return undefined;
  const xdg = env.XDG_CACHE_HOME;
  return xdg && xdg.startsWith('/') ? { dir: join(xdg, 'logbook', 'config'), root: xdg } : { dir: join(home, '.cache', 'logbook', 'config'), root: home };
}

/**
 * Makes the cache's directories that are missing below its root (`logbook`
 * and `logbook/config`, and `.cache` under a home), each alone with mkdir,
 * never a recursive one: Node 20's recursive mkdirSync spins forever under a
 * root such as /proc/self. A root that does not exist, or a directory that
 * cannot be made, fails it, and the cache is not written.
 */
function makeOwnDirs(cache: ConfigCache): void {
  const own = relative(cache.root, cache.dir);
  if (own === '' || own.startsWith('..') || isAbsolute(own)) throw new Error(`${cache.dir} is not below ${cache.root}`);
  let dir = cache.root;
  for (const name of own.split(sep)) {
    dir = join(dir, name);
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}

/** The one rule of what the cache trusts: a thing owned by `uid` that no group or other user may write. */
function ownedAlone(stat: Stats, uid: number): boolean {
  return stat.uid === uid && (stat.mode & 0o022) === 0;
}

/** The cache's directory, when it is one the cache may read and write (a real directory, the user's alone). */
function trustedDir(cache: ConfigCache): boolean {
  try {
    const stat = lstatSync(cache.dir);
    return stat.isDirectory() && ownedAlone(stat, cache.uid);
  } catch {
    return false;
  }
}

const sha256 = (): import('node:crypto').Hash => nodeCrypto().createHash('sha256');

/** The key of a config's entry: what a check of it depends on. */
function keyOf(cache: ConfigCache, bytes: Uint8Array, path: string): string {
  return sha256().update(JSON.stringify([LAYOUT, cache.build, process.version, path])).update('\0').update(bytes).digest('hex');
}

/** The file of the entry of the config at `path` (one a file: an edit replaces it). */
const entryFile = (cache: ConfigCache, path: string): string => join(cache.dir, `${sha256().update(path).digest('hex')}.json`);

/** The checked config kept under `key`, or undefined (a miss). */
function read<T>(cache: ConfigCache, file: string, key: string): T | undefined {
  if (!trustedDir(cache)) return undefined;
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile() || !ownedAlone(stat, cache.uid)) return undefined;
    const entry = JSON.parse(readFileSync(fd, 'utf8')) as { layout?: unknown; key?: unknown; config?: unknown };
    if (entry.layout !== LAYOUT || entry.key !== key || typeof entry.config !== 'object' || entry.config === null) return undefined;
    return entry.config as T;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Keeps `config` under `key`, when JSON carries it exactly; a cache that cannot be written is left as it is. */
function write(cache: ConfigCache, file: string, key: string, config: unknown): void {
  const text = JSON.stringify({ layout: LAYOUT, key, config });
  if (!isDeepStrictEqual((JSON.parse(text) as { config: unknown }).config, config)) return;
  try {
    makeOwnDirs(cache);
    if (!trustedDir(cache)) return;
    const temp = `${file}.${process.pid}-${Date.now()}.tmp`; // a name of its own: a crashed writer's leftover is never in the way
    writeFileSync(temp, text, { mode: 0o600, flag: 'wx' });
    try {
      renameSync(temp, file);
    } catch (err) {
      rmSync(temp, { force: true }); // one left at each start would fill the directory up to MAX_ENTRIES
      throw err;
    }
    prune(cache);
  } catch {
    // A cache is never needed: what it would have saved is done again next time.
  }
}

/** Removes the oldest files past MAX_ENTRIES (entries, and what a writer that crashed left). */
function prune(cache: ConfigCache): void {
  const names = readdirSync(cache.dir);
  if (names.length <= MAX_ENTRIES) return;
  const dated = names.map((n) => ({ path: join(cache.dir, n), at: statSync(join(cache.dir, n)).mtimeMs })).sort((a, b) => a.at - b.at);
  for (const { path } of dated.slice(0, names.length - MAX_ENTRIES)) unlinkSync(path);
}

/**
 * The checked config of the file at `path` (absolute) whose bytes are
 * `bytes`: the cache's entry of them when it has one, else `check()`'s,
 * which is kept for the next start (a config that does not pass is never
 * kept: its error is found again).
 */
export function cachedConfig<T>(cache: ConfigCache, bytes: Uint8Array, path: string, check: () => T): T {
  const key = keyOf(cache, bytes, path);
  const file = entryFile(cache, path);
  const kept = read<T>(cache, file, key);
  if (kept !== undefined) return kept;
  const config = check();
  write(cache, file, key, config);
  return config;
}
