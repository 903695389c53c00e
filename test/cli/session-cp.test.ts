/**
 * `logbook session cp` through the real binary (built dist/) between file
 * stores: byte-for-byte copies, refusals that leave the target as it was, and
 * how each side picks its store. The JetStream side is in jetstream.test.ts.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { FIXTURES_DIR } from '../helpers/fixtures.js';
import { killLockHolders, startLockHolder } from '../helpers/lock-holders.js';
import { tempDir } from '../helpers/tmp.js';

const FIXTURE = 'escapes-and-raw'; // raw numbers, escapes and separators: anything but bytes would show

/** A state dir holding a copy of a conformance fixture: D/runs/<name>.jsonl. */
function stateWith(name: string): string {
  const state = tempDir();
  mkdirSync(join(state, 'runs'));
  copyFileSync(join(FIXTURES_DIR, 'runs', `${name}.jsonl`), join(state, 'runs', `${name}.jsonl`));
  return state;
}

const journal = (state: string, id: string): string => join(state, 'runs', `${id}.jsonl`);
const cwd = tempDir(); // no agent.yaml here
const cp = (args: string[], dir = cwd): Promise<CliResult> => runCli(['session', 'cp', ...args], { cwd: dir });

/** One line on stderr, no stack trace. */
function oneLine(r: CliResult): string {
  expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return r.stderr.trim();
}

afterAll(killLockHolders);

describe('session cp between file stores', () => {
  it('copies a run byte for byte and says what it did on stderr', async () => {
    const from = stateWith(FIXTURE);
    const to = tempDir();
    const r = await cp([FIXTURE, '--from-state-dir', from, '--to-state-dir', to]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const records = readFileSync(journal(from, FIXTURE), 'utf8').split('\n').filter(Boolean).length;
    expect(oneLine(r)).toBe(`copied run ${FIXTURE} (${records} records) from the file store in ${join(from, 'runs')} to the file store in ${join(to, 'runs')}`);
    expect(readFileSync(journal(to, FIXTURE))).toEqual(readFileSync(journal(from, FIXTURE)));
    // The copy is a run like any other.
    const shown = await runCli(['session', 'show', FIXTURE, '--json', '--state-dir', to], { cwd });
    const original = await runCli(['session', 'show', FIXTURE, '--json', '--state-dir', from], { cwd });
    expect(JSON.parse(shown.stdout).messages).toEqual(JSON.parse(original.stdout).messages);
  });

  it('refuses to overwrite a run in the target, naming the command that removes it, and leaves it as it was', async () => {
    const from = stateWith(FIXTURE);
    const to = tempDir();
    mkdirSync(join(to, 'runs'));
    copyFileSync(join(FIXTURES_DIR, 'runs', 'completed.jsonl'), journal(to, FIXTURE)); // another run under that id
    const before = readFileSync(journal(to, FIXTURE));
    const r = await cp([FIXTURE, '--from-state-dir', from, '--to-state-dir', to]);
    expect(r.code).toBe(1);
    expect(oneLine(r)).toBe(
      `logbook: run ${FIXTURE} already exists in the file store in ${join(to, 'runs')}; session cp never overwrites a run: ` +
        `remove it there first with \`logbook session rm ${FIXTURE} --state-dir ${to}\`, or copy to another store`,
    );
    expect(readFileSync(journal(to, FIXTURE))).toEqual(before);
  });

  it('refuses to copy a run onto the store it is in', async () => {
    const from = stateWith(FIXTURE);
    const before = readFileSync(journal(from, FIXTURE));
    const r = await cp([FIXTURE, '--from-state-dir', from, '--to-state-dir', `${from}/./`]);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toBe(
      `logbook: both sides are the file store in ${join(from, 'runs')}: a run cannot be copied onto itself; name another target with --to-config or --to-state-dir`,
    );
    // Neither flag given: both sides are the default store.
    const home = tempDir();
    const defaults = await runCli(['session', 'cp', 'x'], { cwd, env: { HOME: home, XDG_STATE_HOME: undefined } });
    expect(defaults.code).toBe(2);
    expect(oneLine(defaults)).toMatch(/^logbook: both sides are the file store in .*\/\.local\/state\/logbook\/runs: a run cannot be copied onto itself/);
    expect(readFileSync(journal(from, FIXTURE))).toEqual(before);
  });

  it('takes --state-dir as the source side and a unique start of an id, as the other session commands do', async () => {
    const from = stateWith(FIXTURE);
    const to = tempDir();
    const r = await cp([FIXTURE.slice(0, 5), '--state-dir', from, '--to-state-dir', to]);
    expect(r.stderr).toMatch(new RegExp(`^copied run ${FIXTURE} \\(`));
    expect(r.code).toBe(0);
    expect(readFileSync(journal(to, FIXTURE))).toEqual(readFileSync(journal(from, FIXTURE)));
  });

  it('names the store a missing run was looked for in, and refuses an invalid id', async () => {
    const from = tempDir();
    const to = tempDir();
    const missing = await cp(['nope', '--from-state-dir', from, '--to-state-dir', to]);
    expect(missing.code).toBe(1);
    expect(oneLine(missing)).toBe(`logbook: no run nope in the file store in ${join(from, 'runs')}; \`logbook session ls\` lists the runs`);
    expect(existsSync(journal(to, 'nope'))).toBe(false);
    const invalid = await cp(['../x', '--from-state-dir', from, '--to-state-dir', to]);
    expect(invalid.code).toBe(1);
    expect(oneLine(invalid)).toMatch(/^logbook: invalid run id "\.\.\/x"/);
  });

  it('a side with no flags is the store ./agent.yaml names; a state dir alone is that file store', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'agent.yaml'), 'provider: script\nscript: turns.yaml\nsession:\n  backend: file\n  options:\n    directory: journals\n');
    const from = stateWith(FIXTURE);
    const into = await cp([FIXTURE, '--from-state-dir', from], dir);
    expect(into.code).toBe(0);
    expect(oneLine(into)).toMatch(new RegExp(`to the file store in ${join(dir, 'journals')}$`));
    expect(readFileSync(join(dir, 'journals', `${FIXTURE}.jsonl`))).toEqual(readFileSync(journal(from, FIXTURE)));

    // --to-config names the same store explicitly; the hint then carries it.
    const again = await cp([FIXTURE, '--from-state-dir', from, '--to-config', 'agent.yaml'], dir);
    expect(again.code).toBe(1);
    expect(oneLine(again)).toMatch(/remove it there first with `logbook session rm escapes-and-raw --config agent.yaml`/);

    // Back out to a state dir: where `session rm --state-dir` would mean ./agent.yaml's store, the hint names the directory.
    const back = tempDir();
    expect((await cp([FIXTURE, '--to-state-dir', back], dir)).code).toBe(0);
    expect(readFileSync(journal(back, FIXTURE))).toEqual(readFileSync(journal(from, FIXTURE)));
    const twice = await cp([FIXTURE, '--to-state-dir', back], dir);
    expect(oneLine(twice)).toMatch(new RegExp(`remove it from the file store in ${join(back, 'runs')} first, or copy to another store$`));
  });

  it('refuses a run a writer still holds, saying so; --force copies what is durable now and says up to which seq', async () => {
    const from = stateWith(FIXTURE);
    const to = tempDir();
    const holder = await startLockHolder(join(from, 'runs'), FIXTURE, { appendNothing: true }); // another process, still appending
    const records = readFileSync(journal(from, FIXTURE), 'utf8').split('\n').filter(Boolean);
    const lastSeq = (JSON.parse(records.at(-1)!) as { seq: number }).seq;
    const refused = await cp([FIXTURE, '--from-state-dir', from, '--to-state-dir', to]);
    expect(refused.code).toBe(1);
    expect(oneLine(refused)).toBe(
      `logbook: run ${FIXTURE} is being written: a writer holds it in the file store in ${join(from, 'runs')}, and a copy now would end at seq ${lastSeq}, ` +
        'where it happens to be; wait for it to end, or copy what is durable now with --force',
    );
    expect(existsSync(journal(to, FIXTURE))).toBe(false);

    const forced = await cp([FIXTURE, '--from-state-dir', from, '--to-state-dir', to, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(oneLine(forced)).toBe(
      `copied run ${FIXTURE} (${records.length} records, up to seq ${lastSeq}: a writer holds it and may append more, which this copy does not have) ` +
        `from the file store in ${join(from, 'runs')} to the file store in ${join(to, 'runs')}`,
    );
    expect(readFileSync(journal(to, FIXTURE))).toEqual(readFileSync(journal(from, FIXTURE)));

    // Once the writer has let go, a copy is plain again.
    holder.kill('SIGKILL');
    await new Promise((done) => holder.once('exit', done));
    const after = await cp([FIXTURE, '--from-state-dir', from, '--to-state-dir', tempDir()]);
    expect(after.code).toBe(0);
    expect(oneLine(after)).toMatch(new RegExp(`^copied run ${FIXTURE} \\(${records.length} records\\) from `));
  });

  it('lists --force in --help', async () => {
    const r = await runCli(['session', 'cp', '--help'], { cwd });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/--force +copy a run a writer still holds: what is durable now/);
    expect(r.stdout).toMatch(/A run a writer still holds \(listed running\) is\s+refused/);
  });
});
