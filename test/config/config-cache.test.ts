import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultConfigCacheDir, type ConfigCache } from '../../src/config/config-cache.js';
import { loadConfigCached } from '../../src/config/config.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const CONFIG = 'provider: script\nscript: turns.yaml\nsystem: as written\n';

/** A config file and a cache of this user's, in a fresh directory. */
function setUp(text = CONFIG): { file: string; cache: ConfigCache } {
  const dir = tempDir('logbook-config-cache-');
  const file = join(dir, 'agent.yaml');
  writeFileSync(file, text);
  return { file, cache: { dir: join(dir, 'cache', 'logbook', 'config'), root: dir, uid: process.getuid!(), build: 'test-build' } };
}

/** The cache's one entry file. */
function entryOf(cache: ConfigCache): string {
  const names = readdirSync(cache.dir).filter((n) => n.endsWith('.json'));
  expect(names).toHaveLength(1);
  return join(cache.dir, names[0]!);
}

/** The entry file of the config at `path` (named by the SHA-256 of the path). */
const entryFileOf = (cache: ConfigCache, path: string): string => join(cache.dir, `${createHash('sha256').update(path).digest('hex')}.json`);

/** Changes the system prompt the cache's entry holds, leaving its key: what a load then gives says whether the entry was taken. */
function markEntry(cache: ConfigCache, file = entryOf(cache)): void {
  const entry = JSON.parse(readFileSync(file, 'utf8')) as { config: { system: string } };
  entry.config.system = 'from the cache';
  writeFileSync(file, JSON.stringify(entry));
}

describe.skipIf(process.getuid === undefined)('the config cache', () => {
  it('serves a config from the cache while its bytes are the same, and never once one byte changed', () => {
    const { file, cache } = setUp();
    expect(loadConfigCached(file, cache).system).toBe('as written');
    expect(existsSync(cache.dir)).toBe(true);
    markEntry(cache);
    expect(loadConfigCached(file, cache).system).toBe('from the cache');
    writeFileSync(file, CONFIG.replace('as written', 'as writteN'));
    expect(loadConfigCached(file, cache).system).toBe('as writteN');
  });

  it('keeps its directory and entries the user’s alone', () => {
    const { file, cache } = setUp();
    loadConfigCached(file, cache);
    expect(readdirSync(join(cache.dir, '..')).length).toBe(1);
    expect(statSync(cache.dir).mode & 0o777).toBe(0o700);
    expect(statSync(entryOf(cache)).mode & 0o777).toBe(0o600);
  });

  it('ignores an entry others may write, one in a directory others may write, and one of another user', () => {
    const { file, cache } = setUp();
    loadConfigCached(file, cache);
    markEntry(cache);
    expect(loadConfigCached(file, cache).system).toBe('from the cache');
    const entry = entryOf(cache);
    for (const mode of [0o620, 0o602]) {
      chmodSync(entry, mode);
      expect(loadConfigCached(file, cache).system).toBe('as written');
      markEntry(cache); // the load wrote it anew, the user's alone
    }
    chmodSync(entry, 0o600);
    for (const mode of [0o770, 0o707]) {
      chmodSync(cache.dir, mode);
      expect(loadConfigCached(file, cache).system).toBe('as written');
      expect(JSON.parse(readFileSync(entry, 'utf8')).config.system).toBe('from the cache'); // not written there either
    }
    chmodSync(cache.dir, 0o700);
    expect(loadConfigCached(file, cache).system).toBe('from the cache');
    // The same files, in the cache of another user: neither its entry nor its directory is that user's.
    expect(loadConfigCached(file, { ...cache, uid: cache.uid + 1 }).system).toBe('as written');
  });

  it('does not serve an entry to another build, or for the same bytes at another path', () => {
    const { file, cache } = setUp();
    loadConfigCached(file, cache);
    markEntry(cache);
    expect(loadConfigCached(file, { ...cache, build: 'another-build' }).system).toBe('as written');
    const again = setUp();
    loadConfigCached(again.file, again.cache);
    markEntry(again.cache);
    const other = join(again.file, '..', 'other.yaml');
    writeFileSync(other, CONFIG);
    expect(loadConfigCached(other, again.cache).system).toBe('as written');
    expect(loadConfigCached(again.file, again.cache).system).toBe('from the cache');
  });

  it('keeps no config JSON cannot carry exactly, and no config that does not pass', () => {
    const inf = setUp(`${CONFIG}session: { backend: file, options: { limit: .inf } }\n`);
    expect(loadConfigCached(inf.file, inf.cache).session.options).toEqual({ limit: Infinity });
    expect(existsSync(inf.cache.dir)).toBe(false);
    const bad = setUp('provider: script\n');
    expect(() => loadConfigCached(bad.file, bad.cache)).toThrow(/missing key "script"/);
    expect(existsSync(bad.cache.dir)).toBe(false);
  });

  it('keeps at most 200 entries, one a config file, the newest', () => {
    const { file, cache } = setUp();
    const files = Array.from({ length: 201 }, (_, i) => {
      const path = join(file, '..', `agent-${i}.yaml`);
      writeFileSync(path, CONFIG);
      loadConfigCached(path, cache);
      return path;
    });
    loadConfigCached(files[200]!, cache); // again: its entry is replaced, not added
    expect(readdirSync(cache.dir)).toHaveLength(200);
    markEntry(cache, entryFileOf(cache, files[200]!));
    expect(loadConfigCached(files[200]!, cache).system).toBe('from the cache');
  });

  it('leaves no temporary file behind when its entry cannot be replaced', () => {
    const { file, cache } = setUp();
    loadConfigCached(file, cache);
    const entry = entryOf(cache);
    rmSync(entry);
    mkdirSync(entry); // something not a file in the entry's place: the rename onto it fails
    expect(loadConfigCached(file, cache).system).toBe('as written');
    expect(loadConfigCached(file, cache).system).toBe('as written');
    expect(readdirSync(cache.dir)).toEqual([basename(entry)]);
  });

  it('lives in the XDG cache home, made under it (else under the home directory), and is off with LOGBOOK_CONFIG_CACHE=0', () => {
    expect(defaultConfigCacheDir({ XDG_CACHE_HOME: '/x/cache' }, '/home/u')).toEqual({ dir: '/x/cache/logbook/config', root: '/x/cache' });
    expect(defaultConfigCacheDir({ XDG_CACHE_HOME: 'relative' }, '/home/u')).toEqual({ dir: '/home/u/.cache/logbook/config', root: '/home/u' });
    expect(defaultConfigCacheDir({}, '/home/u')).toEqual({ dir: '/home/u/.cache/logbook/config', root: '/home/u' });
    expect(defaultConfigCacheDir({ LOGBOOK_CONFIG_CACHE: '0' }, '/home/u')).toBeUndefined();
  });

  it('makes only its own directories below its root: under a root that does not exist there is no cache, and nothing is made', () => {
    const { file, cache } = setUp();
    const root = join(cache.root, 'no-such-cache-home');
    const under = { ...cache, root, dir: join(root, 'logbook', 'config') };
    expect(loadConfigCached(file, under).system).toBe('as written');
    expect(existsSync(root)).toBe(false);
    // Its own directories, each made alone, the user's alone.
    mkdirSync(root);
    loadConfigCached(file, under);
    for (const dir of [join(root, 'logbook'), under.dir]) expect(statSync(dir).mode & 0o777, dir).toBe(0o700);
    markEntry(under);
    expect(loadConfigCached(file, under).system).toBe('from the cache');
  });

  it.skipIf(!existsSync('/proc/self/status'))('never holds up a run: with XDG_CACHE_HOME=/proc/self (where a recursive mkdir spins forever) the run finishes, without a cache', async () => {
    const dir = tempDir('logbook-config-cache-proc-');
    writeFileSync(join(dir, 'turns.yaml'), 'turns:\n  - text: Done.\n');
    writeFileSync(join(dir, 'agent.yaml'), 'provider: script\nscript: turns.yaml\n');
    // Bounded: a run that hangs is killed and fails the test rather than stalling it.
    const r = await runCli(['run', '--config', join(dir, 'agent.yaml'), '--state-dir', dir, 'hello'], { env: { XDG_CACHE_HOME: '/proc/self' }, timeoutMs: 20_000 });
    expect(r, r.stderr).toMatchObject({ code: 0, signal: null, stdout: 'Done.\n' });
  }, 30_000);
});
