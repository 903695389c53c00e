/**
 * The file store follows no link planted in its runs directory, through the
 * real binary: a journal that is a link is refused in one line naming it (a
 * resume neither cuts nor appends to the file it points to), a lock that is a
 * link creates nothing where it points (`session rm`, a new run), and a runs
 * directory that others may write to is warned of once per command.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-links-');
const config = join(dir, 'agent.yaml');
/** Outside the runs directory: what a planted link points to. */
const outside = join(dir, 'outside');

beforeAll(() => {
  mkdirSync(outside);
  writeFileSync(join(dir, 'script.yaml'), 'turns:\n  - text: Deploying.\n    tool_calls: [{ name: deploy }]\n  - text: Done.\n');
  writeFileSync(config, 'provider: script\nscript: script.yaml\ntools:\n  - name: deploy\n    command: [echo, deployed]\n    confirm: true\n');
});

const cli = (state: string, args: string[]) => runCli([...args, '--state-dir', state], { cwd: dir });
const run = (state: string, args: string[]) => cli(state, ['run', '--config', config, ...args]);

/** A state directory holding run `id`, stopped before its call awaiting an approval. */
async function awaitingRun(id: string): Promise<string> {
  const state = tempDir('logbook-links-state-');
  const r = await run(state, ['--name', id, 'deploy']);
  expect(r.code, r.stderr).toBe(3);
  return state;
}

describe('a journal that is a link', () => {
  it('is refused by a resume in one line naming it, and the file it points to is left as it was', async () => {
    const state = await awaitingRun('linked');
    const journal = join(state, 'runs', 'linked.jsonl');
    const target = join(outside, 'linked.jsonl');
    renameSync(journal, target);
    symlinkSync(target, journal);
    const before = readFileSync(target);
    const mtime = statSync(target).mtimeMs;

    const r = await run(state, ['--resume', 'linked', '--approve', 'all']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      `logbook: ${journal} is a symbolic link, which the file store does not open (one planted in its runs directory could lead a write anywhere): put the file itself there, or remove it`,
    ]);
    expect(readFileSync(target)).toEqual(before);
    expect(statSync(target).mtimeMs).toBe(mtime);
  });

  it('is listed as a run that cannot be read, and shown as one', async () => {
    const state = await awaitingRun('listed');
    const journal = join(state, 'runs', 'listed.jsonl');
    renameSync(journal, join(outside, 'listed.jsonl'));
    symlinkSync(join(outside, 'listed.jsonl'), journal);
    const ls = await cli(state, ['session', 'ls', '--json']);
    expect(ls.code).toBe(0);
    expect(JSON.parse(ls.stdout.trim())).toMatchObject({ id: 'listed', status: 'unreadable' });
    const show = await cli(state, ['session', 'show', 'listed']);
    expect(show.code).toBe(1);
    expect(show.stderr).toContain(`${journal} is a symbolic link`);
  });
});

describe('a lock that is a link', () => {
  it('makes session rm refuse, creating nothing where it points', async () => {
    const state = await awaitingRun('locked');
    const lock = join(state, 'runs', 'locked.lock');
    const planted = join(outside, 'made-by-rm');
    rmSync(lock);
    symlinkSync(planted, lock);
    const r = await cli(state, ['session', 'rm', 'locked']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${lock} is a symbolic link`);
    expect(existsSync(planted)).toBe(false);
    expect(existsSync(join(state, 'runs', 'locked.jsonl'))).toBe(true);
  });

  it('makes a new run of that id refuse, creating nothing where it points', async () => {
    const state = tempDir('logbook-links-state-');
    mkdirSync(join(state, 'runs'), { mode: 0o700 });
    const planted = join(outside, 'made-by-run');
    symlinkSync(planted, join(state, 'runs', 'fresh.lock'));
    const r = await run(state, ['--name', 'fresh', 'deploy']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('fresh.lock is a symbolic link');
    expect(existsSync(planted)).toBe(false);
  });
});

describe('a runs directory others may write to', () => {
  it('is warned of once per command, with the command that fixes it', async () => {
    const state = await awaitingRun('shared');
    chmodSync(join(state, 'runs'), 0o777);
    const r = await cli(state, ['session', 'ls']);
    expect(r.code).toBe(0);
    expect(r.stderr.split('\n').filter(Boolean)).toEqual([
      `logbook: warning: the runs directory ${join(state, 'runs')} can be written by anyone (mode 0777), who could then remove or replace its runs; make it yours alone: chmod go-w ${join(state, 'runs')}`,
    ]);
    chmodSync(join(state, 'runs'), 0o770);
    expect((await cli(state, ['session', 'ls'])).stderr).toMatch(/can be written by its group \(mode 0770\)/);
    chmodSync(join(state, 'runs'), 0o700);
    expect((await cli(state, ['session', 'ls'])).stderr).toBe('');
  });
});
