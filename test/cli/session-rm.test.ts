/**
 * `session rm ID...` and `session prune` through the real binary, against file
 * stores in temporary state dirs, with a writer holding a run in another process.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/index.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { FIXTURES_DIR } from '../helpers/fixtures.js';
import { killLockHolders, startLockHolder } from '../helpers/lock-holders.js';
// Named apart from import.meta: vite's transform fails on an imported binding called `meta` beside it.
import { meta as metaOf } from '../helpers/records.js';
import { hostileRun, HOSTILE, UNSAFE_CHARS, writeRun } from '../helpers/runs.js';
import { tempDir } from '../helpers/tmp.js';

const cwd = tempDir(); // no agent.yaml here
const cli = (args: string[]): Promise<CliResult> => runCli(args, { cwd, env: { TZ: 'UTC' } });

function fixtureState(names: string[]): string {
  const state = tempDir();
  mkdirSync(join(state, 'runs'));
  for (const n of names) copyFileSync(join(FIXTURES_DIR, 'runs', `${n}.jsonl`), join(state, 'runs', `${n}.jsonl`));
  return state;
}

const journals = (state: string): string[] =>
  readdirSync(join(state, 'runs'))
    .filter((f) => f.endsWith('.jsonl'))
    .map((f) => f.slice(0, -'.jsonl'.length))
    .sort();

afterAll(killLockHolders);
/** Another process holding run `id` (its lock taken), appending nothing. */
const startHolder = (state: string, id: string) => startLockHolder(join(state, 'runs'), id, { appendNothing: true });

/** Sets a run's last change `days` ago. */
function age(state: string, id: string, days: number): void {
  const t = Date.now() / 1000 - days * 86_400;
  utimesSync(join(state, 'runs', `${id}.jsonl`), t, t);
}

describe('session rm ID...', () => {
  it('removes every run it can, by id or unique start, names each it cannot and why, and exits 1', async () => {
    const state = fixtureState(['completed', 'paused-turn', 'escapes-and-raw', 'pending-batch']);
    const holder = await startHolder(state, 'pending-batch');
    const r = await cli(['session', 'rm', 'comp', 'paused-turn', 'nope', 'pending-batch', 'escapes', '--state-dir', state]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('removed run completed\nremoved run paused-turn\nremoved run escapes-and-raw\n');
    const where = `the file store in ${join(state, 'runs')}`;
    expect(r.stderr.split('\n').filter(Boolean)).toEqual([
      `logbook: cannot remove nope: no run nope in ${where}; \`logbook session ls\` lists the runs`,
      'logbook: cannot remove pending-batch: run pending-batch is locked by another writer; wait for it to finish, or stop it first',
    ]);
    expect(journals(state)).toEqual(['pending-batch']);
    holder.kill('SIGKILL');
  });

  it('refuses a start that several runs share, removing the others given', async () => {
    const state = tempDir();
    const store = new FileStore(join(state, 'runs'));
    for (const id of ['ab1', 'ab2', 'cd']) await (await store.create(id, metaOf(id))).close();
    const r = await cli(['session', 'rm', 'ab', 'cd', '--state-dir', state]);
    expect(r.code).toBe(2); // an id several runs share is a usage error, as everywhere an id is taken
    expect(r.stdout).toBe('removed run cd\n');
    expect(r.stderr).toBe('logbook: cannot remove ab: ab is the start of 2 run ids (ab1, ab2); give more of it\n');
    const all = await cli(['session', 'rm', 'ab1', 'ab2', '--state-dir', state]);
    expect(all).toMatchObject({ code: 0, stdout: 'removed run ab1\nremoved run ab2\n', stderr: '' });
  });
});

describe('session prune', () => {
  it('says what it would remove, then removes it, never touching a run a writer holds', async () => {
    const state = fixtureState(['completed', 'paused-turn', 'followup-merge', 'pending-batch', 'escapes-and-raw']);
    const holder = await startHolder(state, 'pending-batch');
    for (const [id, days] of [['completed', 40], ['paused-turn', 20], ['followup-merge', 12], ['pending-batch', 50], ['escapes-and-raw', 1]] as const) age(state, id, days);
    const bytes = (id: string) => readFileSync(join(state, 'runs', `${id}.jsonl`));
    const held = bytes('pending-batch');
    const before = journals(state).map(bytes);

    const dry = await cli(['session', 'prune', '--older-than', '10d', '--dry-run', '--state-dir', state]);
    expect(dry.code).toBe(0);
    expect(dry.stdout.split('\n').filter(Boolean)).toEqual([
      expect.stringMatching(/^would remove followup-merge \(interrupted, updated \d{4}-\d\d-\d\d \d\d:\d\d: List files\)$/),
      expect.stringMatching(/^would remove paused-turn \(suspended, updated .*\)$/),
      expect.stringMatching(/^would remove completed \(completed, updated .*: How big is the repo\?\)$/),
    ]);
    expect(dry.stderr).toMatch(/^kept pending-batch \(running, updated .*\): a writer holds it now\n$/);
    expect(journals(state).map(bytes)).toEqual(before); // a dry run changes nothing

    const onlyCompleted = await cli(['session', 'prune', '--older-than', '10d', '--status', 'completed', '--dry-run', '--state-dir', state]);
    expect(onlyCompleted.stdout).toMatch(/^would remove completed \(completed, .*\n$/);

    const real = await cli(['session', 'prune', '--older-than', '10d', '--state-dir', state]);
    expect(real.code).toBe(0);
    expect(real.stdout).toMatch(/^removed followup-merge \(.*\)\nremoved paused-turn \(.*\)\nremoved completed \(.*\)\n$/);
    expect(real.stderr).toMatch(/^kept pending-batch \(running, .*\): a writer holds it now\n$/);
    expect(journals(state)).toEqual(['escapes-and-raw', 'pending-batch']);
    // The held run is untouched, its lock file still there and still held.
    expect(bytes('pending-batch')).toEqual(held);
    expect(existsSync(join(state, 'runs', 'pending-batch.lock'))).toBe(true);
    await expect(new FileStore(join(state, 'runs')).open('pending-batch')).rejects.toMatchObject({ code: 'locked' });

    holder.kill('SIGKILL');
    await new Promise((ok) => holder.once('exit', ok));
    const after = await cli(['session', 'prune', '--older-than', '10d', '--state-dir', state]);
    expect(after.stdout).toMatch(/^removed pending-batch \(interrupted, .*\)\n$/);
    const nothing = await cli(['session', 'prune', '--older-than', '10d', '--state-dir', state]);
    expect(nothing).toMatchObject({ code: 0, stdout: '', stderr: `no run in the file store in ${join(state, 'runs')} matches\n` });
  });

  it('prints a hostile run\'s prompt sanitized', async () => {
    const state = tempDir();
    await writeRun(state, 'hostile', hostileRun(), `prompt ${HOSTILE}`);
    age(state, 'hostile', 3);
    const r = await cli(['session', 'prune', '--older-than', '1d', '--dry-run', '--state-dir', state]);
    expect(r.stdout).toMatch(/^would remove hostile \(error, updated .*: prompt A.*\)\n$/);
    expect(r.stdout).not.toMatch(UNSAFE_CHARS);
  });

  it('needs --older-than with a duration that has a unit', async () => {
    const state = tempDir();
    const missing = await cli(['session', 'prune', '--state-dir', state]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("required option '--older-than <duration>' not specified");
    const bare = await cli(['session', 'prune', '--older-than', '30', '--state-dir', state]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('"30" has no unit: write a number and a unit, s, m, h, d or w (or seconds, minutes, hours, days, weeks)');
  });

  it('takes lowercase units alone, so 1M (a month meant, or a minute?) removes nothing and says which units are taken', async () => {
    const state = fixtureState(['completed', 'paused-turn']);
    age(state, 'completed', 3);
    age(state, 'paused-turn', 4);
    for (const [value, said] of [
      ['1M', '"1M": units are lowercase (m is minutes); for months write 30d'],
      ['1H', '"1H": units are lowercase (h is hours)'],
      ['2 Days', '"2 Days": units are lowercase (write days)'],
      ['1Y', '"1Y": years are not a unit; for a year write 365d'],
      ['1 min', '"1 min": "min" is not a unit; the units are s, m, h, d or w (or seconds, minutes, hours, days, weeks)'],
      ['0s', '"0s": a duration must be more than zero'],
    ] as const) {
      const r = await cli(['session', 'prune', '--older-than', value, '--state-dir', state]);
      expect(r.code, value).toBe(2);
      expect(r.stdout, value).toBe('');
      expect(r.stderr, value).toContain(said);
      expect(journals(state), value).toEqual(['completed', 'paused-turn']);
    }
    for (const since of [['session', 'ls'], ['session', 'search', 'zebra']]) {
      const r = await cli([...since, '--since', '1M', '--state-dir', state]);
      expect(r.code, since.join(' ')).toBe(2);
      expect(r.stderr, since.join(' ')).toContain('"1M": units are lowercase (m is minutes); for months write 30d');
    }
    const words = await cli(['session', 'prune', '--older-than', '2 days', '--dry-run', '--state-dir', state]);
    expect(words.stdout).toMatch(/^would remove completed .*\nwould remove paused-turn .*\n$/);
  });
});
