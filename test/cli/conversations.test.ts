/**
 * This project's runs and one conversation as one entry, through the real
 * binary: `-c` takes the newest run started in this directory that the config
 * can continue (saying which it passed over and why), the picker lists this
 * directory's conversations first, `session ls` shows a lineage once, `show`,
 * `ls --json` and `show --json` keep a fork's origin after it has run, a search
 * shows a copied record once, and ids resolve by any unique part of them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/index.js';
import { BIN, runCli, type CliResult } from '../helpers/cli.js';
import { useFakeOpenAI } from '../helpers/fake-openai.js';
import { tempDir } from '../helpers/tmp.js';
import { Tmux } from '../helpers/tmux.js';

const root = tempDir('logbook-conversations-');
const stateDir = join(root, 'state');
const store = new FileStore(join(stateDir, 'runs'));

/** A project directory with an agent.yaml whose script answers `answers`, one per model call, in order. */
function project(name: string, answers: string[]): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'turns.yaml'), `turns:\n${answers.map((t) => `  - text: ${JSON.stringify(t)}\n`).join('')}`);
  writeFileSync(join(dir, 'agent.yaml'), 'provider: script\nscript: turns.yaml\n');
  return dir;
}

/** `logbook ARGS` run in `cwd`, against the test's state dir. */
function logbook(cwd: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCli([...args, '--state-dir', stateDir], { cwd, env });
}

const run = (cwd: string, args: string[], env?: Record<string, string>): Promise<CliResult> => logbook(cwd, ['run', ...args], env);

/** The new run a follow-up continued a completed run as. */
const continuedAs = (r: CliResult): string => /continuing completed run \S+ as new run (\S+)/.exec(r.stderr)![1]!;

interface LsRow {
  id: string;
  status: string;
  prompt: string;
  last_turn: string;
  forked_from?: { run_id: string; seq: number };
  earlier?: number;
  started_in?: { dir: string; config?: string };
}
const jsonLines = (text: string): LsRow[] =>
  text
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LsRow);

const openai = useFakeOpenAI();

describe('logbook run -c: this directory\'s runs', () => {
  const a = project('alpha', ['Alpha one.', 'Alpha two.', 'Alpha three.']);
  const b = project('beta', ['Beta one.', 'Beta two.']);
  const elsewhere = project('gamma', ['Gamma one.', 'Gamma two.', 'Gamma three.', 'Gamma four.']);

  it('picks in each directory that directory\'s own newest run, and elsewhere says there is none, unless --all', async () => {
    expect((await run(a, ['--name', 'c-alpha', 'a question in alpha'])).code).toBe(0);
    expect((await run(b, ['--name', 'c-beta', 'a question in beta'])).code).toBe(0); // the newest run of the store
    const inA = await run(a, ['-c', 'more in alpha']);
    expect(inA.code, inA.stderr).toBe(0);
    expect(inA.stderr).toMatch(/^continuing completed run c-alpha as new run \S+$/m);
    expect(inA.stdout).toBe('Alpha two.\n');
    const inB = await run(b, ['-c', 'more in beta']);
    expect(inB.code, inB.stderr).toBe(0);
    expect(inB.stderr).toMatch(/^continuing completed run c-beta as new run \S+$/m);
    expect(inB.stdout).toBe('Beta two.\n');
    // The fork carries on where it was made: -c in alpha goes on from alpha's newest run, the fork.
    const again = await run(a, ['-c', 'and again in alpha']);
    expect(again.stderr).toMatch(new RegExp(`^continuing completed run ${continuedAs(inA)} as new run`, 'm'));
    expect(again.stdout).toBe('Alpha three.\n');

    const none = await run(elsewhere, ['-c', 'anything?']);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(
      new RegExp(`^logbook: no run was started in this directory \\(${elsewhere}\\); the file store in \\S+ has \\d+ runs started elsewhere .*: logbook run -c --all continues the newest of them`, 'm'),
    );
    const all = await run(elsewhere, ['-c', '--all', 'anything?']);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stderr).toMatch(new RegExp(`^continuing completed run ${continuedAs(again)} as new run`, 'm')); // the store's newest
    expect(all.stdout).toBe('Gamma four.\n'); // its fourth model turn, played by this directory's script
    expect((await run(a, ['--all', 'x'])).stderr).toMatch(/^logbook: --all goes with --continue/m);
  });

  it('passes over a run the config would refuse, saying why, and takes the one it can continue', async () => {
    const dir = project('delta', ['Delta one.', 'Delta two.']);
    writeFileSync(join(dir, 'openai.yaml'), `provider: openai\nmodel: local-model\nbase_url: ${openai.origin}/v1\n`);
    expect((await run(dir, ['--name', 'd-script', 'with the script'])).code).toBe(0);
    openai.reset();
    openai.reply({ chat: { content: 'From OpenAI.' } });
    const other = await run(dir, ['--config', 'openai.yaml', '--name', 'd-openai', 'with openai'], { OPENAI_API_KEY: 'k' });
    expect(other.code, other.stderr).toBe(0);
    // Newer still: a run with another model, which the config without --model does not have.
    expect((await run(dir, ['--name', 'd-model', '--model', 'other-model', 'with another model'])).code).toBe(0);

    const r = await run(dir, ['-c', 'go on']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^skipped run d-model: was written with a different configuration \(model: other-model -> script\); restore it, or pass --force to resume anyway$/m);
    expect(r.stderr).toMatch(
      new RegExp(
        `^skipped run d-openai: was written with provider openai, the config now uses script; a conversation cannot move between providers \\(forcing does not apply\\) \\(it was started with ${join(dir, 'openai.yaml')}\\)$`,
        'm',
      ),
    );
    expect(r.stderr).toMatch(/^continuing completed run d-script as new run /m);
    expect(r.stdout).toBe('Delta two.\n');
    expect(openai.requests).toHaveLength(1); // nothing went to the provider it passed over

    // With --model again, the run written with it is the one to go on with.
    const same = await run(dir, ['-c', '--model', 'other-model', 'go on']);
    expect(same.stderr).not.toMatch(/skipped run d-model/);
    // Without a follow-up a completed run cannot be resumed: every run here is passed over.
    const bare = await run(dir, ['-c']);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toMatch(/^skipped run d-script: already completed; give a prompt to ask a follow-up/m);
    expect(bare.stderr).toMatch(/^logbook: no run of this directory \(.*\) can be continued with this config \(\d+ passed over, said above\)/m);
  });
});

describe('one conversation, one entry', () => {
  const dir = project('lineage', ['Paris.', 'About two million.', 'Yes, big.']);
  const ids: string[] = [];

  beforeAll(async () => {
    expect((await run(dir, ['--name', 'l-first', 'What is the capital of France?'])).code).toBe(0);
    ids.push('l-first', continuedAs(await run(dir, ['-c', 'How many live there?'])));
    ids.push(continuedAs(await run(dir, ['-c', 'Is it big?'])));
  });

  it('session ls shows a lineage of three as one row, its newest run with its last typed turn; --forks shows three', async () => {
    const ls = await logbook(dir, ['session', 'ls', '--here']);
    expect(ls.code, ls.stderr).toBe(0);
    const rows = ls.stdout.trimEnd().split('\n').slice(1);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(new RegExp(`^${ids[2]} +completed +\\S+ \\S+ +script +Is it big\\?  \\+2 earlier$`));
    const forks = await logbook(dir, ['session', 'ls', '--here', '--forks']);
    expect(forks.stdout.trimEnd().split('\n').slice(1).map((l) => l.split(/ +/)[0])).toEqual([...ids].reverse());
    expect(forks.stdout).toMatch(/ How many live there\?\n/);
    expect(forks.stdout).toMatch(/^l-first +completed .* What is the capital of Fra/m);
  });

  it('keeps a fork\'s origin after it has run: in ls --json, show and show --json', async () => {
    const listed = jsonLines((await logbook(dir, ['session', 'ls', '--here', '--json', '--forks'])).stdout);
    expect(listed.map((r) => [r.id, r.forked_from?.run_id ?? null])).toEqual([
      [ids[2], ids[1]],
      [ids[1], 'l-first'],
      ['l-first', null],
    ]);
    expect(listed[0]).toMatchObject({ status: 'completed', prompt: 'What is the capital of France?', last_turn: 'Is it big?', started_in: { dir } });
    const grouped = jsonLines((await logbook(dir, ['session', 'ls', '--here', '--json'])).stdout);
    expect(grouped).toHaveLength(1);
    expect(grouped[0]).toMatchObject({ id: ids[2], earlier: 2, forked_from: { run_id: ids[1], seq: 4 } });

    const show = await logbook(dir, ['session', 'show', ids[2]!]);
    expect(show.stdout).toMatch(new RegExp(`^forked from +run ${ids[1]}, up to seq 4$`, 'm'));
    expect(show.stdout).toMatch(new RegExp(`^started in +${dir} \\(config ${join(dir, 'agent.yaml')}\\)$`, 'm'));
    expect(show.stdout).toMatch(/^last typed turn\n {2}Is it big\?\nlast answer\n {2}Yes, big\.\n$/m);
    const json = JSON.parse((await logbook(dir, ['session', 'show', '--json', ids[2]!])).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ status: 'completed', listed_status: 'completed', forked_from: { run_id: ids[1], seq: 4 } });
  });

  it('session search shows a match in records a fork copied once, on the newest run holding it', async () => {
    const r = await logbook(dir, ['session', 'search', 'capital', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const hits = jsonLines(r.stdout) as unknown as { run_id: string; seq: number; role: string }[];
    expect(hits.filter((h) => ids.includes(h.run_id))).toEqual([expect.objectContaining({ run_id: ids[2], seq: 1, role: 'prompt' })]);
    const own = jsonLines((await logbook(dir, ['session', 'search', 'many live', '--json'])).stdout) as unknown as { run_id: string; role: string }[];
    expect(own).toEqual([expect.objectContaining({ run_id: ids[2], role: 'user' })]); // ids[1]'s record, copied into ids[2]
    const forks = await store.list({ origins: true });
    expect(forks.filter((f) => ids.includes(f.runId))).toHaveLength(3);
  });
});

describe('a conversation with branches', () => {
  const dir = project('branches', ['One.', 'Two.', 'Three.', 'In the fork.']);

  it('session ls shows each branch once, as its last run: a fork that never ran does not hide the one worked in', async () => {
    // A chat of three turns, /fork (the chat goes on in the fork), then two forks of the chat made by hand, never run.
    const talk = await runCli(['run', '--chat', '--name', 'b-main', '--state-dir', stateDir], { cwd: dir, input: 'first\nsecond\n/fork b-live\nthird\n' });
    expect(talk.code, talk.stderr).toBe(0);
    expect((await logbook(dir, ['session', 'fork', 'b-main', '--turn', '1', '--name', 'b-branch1'])).code).toBe(0);
    expect((await logbook(dir, ['session', 'fork', 'b-main', '--turn', '2', '--name', 'b-branch2'])).code).toBe(0);
    const ls = await logbook(dir, ['session', 'ls', '--here']);
    const rows = ls.stdout.trimEnd().split('\n').slice(1);
    expect(rows.map((l) => l.split(/ +/)[0]).sort()).toEqual(['b-branch1', 'b-branch2', 'b-live']);
    for (const row of rows) expect(row).toMatch(/ \+1 earlier$/); // each stands for b-main alone: siblings are not earlier
    expect(rows.find((r) => r.startsWith('b-live'))).toMatch(/ third +\+1 earlier$/);
    const forks = await logbook(dir, ['session', 'ls', '--here', '--forks']);
    expect(forks.stdout.trimEnd().split('\n').slice(1)).toHaveLength(4);
  });
});

describe('ids by any unique part', () => {
  const dir = project('ids', ['One.', 'Two.']);

  beforeAll(async () => {
    for (const id of ['20261130-091500-i8dj2k', '20261130-091501-k3x9qa']) expect((await run(dir, ['--name', id, `run ${id}`])).code).toBe(0);
  });

  it('resolves show, export and rm by a part of the id that only one run has', async () => {
    const show = await logbook(dir, ['session', 'show', 'i8dj']);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toMatch(/^run +20261130-091500-i8dj2k$/m);
    const exported = await logbook(dir, ['session', 'export', 'k3x9', '--format', 'jsonl']);
    expect(exported.stdout).toMatch(/"run_id":"20261130-091501-k3x9qa"/);
    const resumed = await run(dir, ['--resume', 'k3x9', 'and?']);
    expect(resumed.stderr).toMatch(/^continuing completed run 20261130-091501-k3x9qa as new run/m);
  });

  it('refuses a part several runs share with exit 2 everywhere, naming them; a part no run has exits 1', async () => {
    for (const args of [['session', 'show', '2026113'], ['session', 'rm', '0915'], ['session', 'watch', '0915'], ['session', 'export', '0915'], ['run', '--resume', '0915']]) {
      const r = await logbook(dir, args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/\b(is the start|is part) of \d+ run ids \(20261130-091500-i8dj2k, 20261130-091501-k3x9qa/);
    }
    for (const args of [['session', 'show', 'nosuch'], ['session', 'rm', 'nosuch'], ['session', 'watch', 'nosuch'], ['session', 'export', 'nosuch']]) {
      const r = await logbook(dir, args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toMatch(/no run nosuch in the file store in /);
    }
  });
});

describe('the picker', () => {
  let t: Tmux | undefined;
  afterEach(() => t?.kill());

  it("lists this directory's conversations first with when they changed, marks what the config cannot continue, and searches the last typed turn", async () => {
    const state = tempDir();
    const here = project('picker-here', ['Here one.', 'Here two.', 'Here three.']);
    const there = project('picker-there', ['There one.']);
    writeFileSync(join(here, 'other.yaml'), 'provider: script\nscript: turns.yaml\nmax_tokens: 99\n');
    const at = (cwd: string, args: string[]) => runCli(['run', ...args, '--state-dir', state], { cwd, input: '' });
    expect((await at(here, ['--chat', '--name', 'p-here', 'about apples'])).code).toBe(0);
    expect((await at(here, ['--resume', 'p-here', 'and about plums'])).code).toBe(0);
    expect((await at(here, ['--config', 'other.yaml', '--chat', '--name', 'p-drifted', 'about pears'])).code).toBe(0);
    expect((await at(there, ['--chat', '--name', 'p-there', 'about figs'])).code).toBe(0); // the newest
    const env = { PATH: process.env.PATH ?? '', HOME: root, TERM: 'xterm-256color', NO_COLOR: '1' };
    t = Tmux.start([process.execPath, BIN, 'run', '--state-dir', state, '--resume'], { env, cwd: here, width: 160, height: 20 });
    const screen = await t.waitFor('Resume which run?', 'the picker');
    const [drifted, own, far] = ['p-drifted', 'p-here', 'p-there'].map((id) => screen.indexOf(id));
    expect(drifted).toBeGreaterThan(0);
    expect(own).toBeGreaterThan(drifted); // this directory's, newest first
    expect(far).toBeGreaterThan(own); // then those started elsewhere, though newer
    expect(screen).toMatch(/p-drifted +suspended +\d{4}-\d\d-\d\d \d\d:\d\d +about pears \u00b7 cannot continue: config changed: max_tokens \(--force\)$/m);
    expect(screen).toMatch(/p-here +suspended +\d{4}-\d\d-\d\d \d\d:\d\d +and about plums/); // its last typed turn
    expect(screen).toMatch(new RegExp(`p-there .*about figs +\\[started in ${there}\\]`));
    expect(screen).toMatch(/3 of 3 conversations \(1 cannot be continued with this config\)/);
    t.type('figs');
    await t.waitFor((s) => s.includes('1 of 3 conversations') && !s.includes('p-here'), 'a search');
    t.keys('C-u');
    await t.waitFor('3 of 3 conversations', 'Ctrl-U clears the search');
    t.type('plums');
    await t.waitFor((s) => s.includes('1 of 3 conversations') && !s.includes('p-there'), 'the search by the last typed turn');
    t.keys('Enter');
    await t.waitFor(/resuming run p-here/, 'the chosen run resumed');
    t.type('/exit');
    t.keys('Enter');
    expect(await t.exitStatus()).toBe(0);
  });

  it('Esc leaves it with nothing changed (exit 130, as a stop, not a usage error); a completed run is marked with how to offer it', async () => {
    const state = tempDir();
    const here = project('picker-cancel', ['Done.', 'Followed.']);
    expect((await runCli(['run', '--name', 'p-done', '--state-dir', state, 'a one-shot'], { cwd: here })).code).toBe(0);
    expect((await runCli(['run', '--chat', '--name', 'p-open', '--state-dir', state, 'a chat'], { cwd: here, input: '' })).code).toBe(0);
    const env = { PATH: process.env.PATH ?? '', HOME: root, TERM: 'xterm-256color', NO_COLOR: '1' };
    t = Tmux.start([process.execPath, BIN, 'run', '--state-dir', state, '--resume'], { env, cwd: here, width: 160, height: 20 });
    const screen = await t.waitFor('Resume which run?', 'the picker');
    expect(screen).toContain('a completed run takes a follow-up: logbook run --resume "PROMPT" offers it');
    t.keys('Escape');
    expect(await t.exitStatus()).toBe(130);
    expect(t.text()).toContain('no run chosen; nothing was changed');
    expect(t.text()).not.toMatch(/^logbook:/m);
  });
});
