/**
 * `session ls` and `session show` through the real binary (built dist/): runs
 * made by `logbook run` with the script provider, conformance fixtures, and a
 * real writer killed mid-run.
 */
import { copyFileSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import stringWidth from 'string-width';
import { BIN, runCli, spawnCli, finished, type CliResult } from '../helpers/cli.js';
import { FIXTURES_DIR } from '../helpers/fixtures.js';
import { hostileRun, HOSTILE, UNSAFE_CHARS, writeRun } from '../helpers/runs.js';
import { tempDir } from '../helpers/tmp.js';
import { Tmux } from '../helpers/tmux.js';

const dir = tempDir('logbook-ls-');
writeFileSync(
  join(dir, 'turns.yaml'),
  `turns:
  - text: Listing.
    tool_calls: [{ name: echo, input: { text: listed } }]
    usage: { input: 100, output: 10 }
  - text: Done.
    usage: { input: 120, output: 5 }
`,
);
writeFileSync(
  join(dir, 'slow.yaml'),
  `turns:
  - text: Thinking for a long while.
    delay_ms: 60000
`,
);
const tools = `tools:
  - name: echo
    input_schema: { type: object, properties: { text: { type: string } } }
    command: [echo, "{{text}}"]
`;
writeFileSync(join(dir, 'agent.yaml'), `provider: script\nscript: turns.yaml\nmodel: scripted-model\n${tools}`);
writeFileSync(join(dir, 'slow-agent.yaml'), `provider: script\nscript: slow.yaml\n${tools}`);

const cli = (args: string[], options: { input?: string } = {}): Promise<CliResult> => runCli(args, { cwd: dir, env: { TZ: 'UTC' }, ...options });

/** A state dir holding copies of conformance fixtures. */
function fixtureState(names: string[]): string {
  const state = tempDir();
  mkdirSync(join(state, 'runs'));
  for (const n of names) copyFileSync(join(FIXTURES_DIR, 'runs', `${n}.jsonl`), join(state, 'runs', `${n}.jsonl`));
  return state;
}

interface Listed {
  id: string;
  status: string;
  created: string;
  updated: string;
  model: string;
  prompt: string;
  interactive: boolean;
  counters: Record<string, number> | null;
  problem?: string;
}

async function listJson(state: string, ...more: string[]): Promise<Listed[]> {
  const r = await cli(['session', 'ls', '--json', '--state-dir', state, ...more]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Listed);
}

const RFC3339_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('session ls through the binary', () => {
  it('lists a plain run (no flag asked for a journal), and --json gives its fields and the counters of its fold', async () => {
    const state = tempDir();
    const run = await cli(['run', '--state-dir', state, 'Count the files']);
    expect(run.code, run.stderr).toBe(0);
    const ls = await cli(['session', 'ls', '--state-dir', state]);
    const rows = ls.stdout.trimEnd().split('\n');
    expect(rows).toHaveLength(2);
    expect(rows[1]).toMatch(/^\d{8}-\d{6}-[a-z0-9]+\s+completed\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+scripted-model\s+Count the files$/); // piped: MODEL too, nothing cut
    const [listed, ...others] = await listJson(state);
    expect(others).toEqual([]);
    expect(listed).toMatchObject({
      id: rows[1]!.split(' ')[0],
      status: 'completed',
      model: 'scripted-model',
      prompt: 'Count the files',
      interactive: false,
      counters: { llm_calls: 2, tool_calls: 1, remote_tool_calls: 0, in_tokens: 220, out_tokens: 15, cache_read_tokens: 0, cache_create_tokens: 0 },
    });
    expect(listed!.created).toMatch(RFC3339_UTC);
    expect(listed!.updated).toMatch(RFC3339_UTC);
    const show = await cli(['session', 'show', listed!.id, '--json', '--state-dir', state]);
    expect(JSON.parse(show.stdout).counters).toEqual(listed!.counters);
  });

  it('lists a chat opened without a prompt by the first line typed into it', async () => {
    const state = tempDir();
    const chat = await cli(['run', '--chat', '--state-dir', state], { input: 'what is here?\n' });
    expect(chat.code, chat.stderr).toBe(0);
    const ls = await cli(['session', 'ls', '--state-dir', state]);
    expect(ls.stdout.split('\n')[1]).toMatch(/\ssuspended\s.*\swhat is here\?$/);
    expect(await listJson(state)).toMatchObject([{ prompt: 'what is here?', interactive: true, status: 'suspended' }]);
  });

  it('--status, --since and --limit choose the runs, newest first, and refuse what they cannot read', async () => {
    const names = ['completed', 'pending-batch', 'paused-turn', 'followup-merge', 'corrupt-interior'];
    const state = fixtureState(names);
    const base = Date.parse('2026-11-01T00:00:00Z') / 1000;
    names.forEach((n, i) => utimesSync(join(state, 'runs', `${n}.jsonl`), base - i * 86_400, base - i * 86_400)); // one a day back
    const ids = async (...flags: string[]) => (await listJson(state, ...flags)).map((r) => r.id);
    expect(await ids()).toEqual(names);
    // The status filter goes by the listed status: corrupt-interior's ends are whole, but it is unreadable.
    expect(await ids('--status', 'interrupted,suspended')).toEqual(['pending-batch', 'paused-turn', 'followup-merge']);
    expect(await ids('--status', 'unreadable')).toEqual(['corrupt-interior']);
    expect(await ids('--status', 'suspended', '--status', 'completed')).toEqual(['completed', 'paused-turn']);
    expect(await ids('--since', '2026-10-30')).toEqual(['completed', 'pending-batch', 'paused-turn']);
    expect(await ids('--since', '2026-10-30T12:00:00Z', '--limit', '1')).toEqual(['completed']);
    expect((await listJson(state, '--limit', '4')).map((r) => r.status)).toEqual(['completed', 'interrupted', 'suspended', 'interrupted']);
    const rows = (await cli(['session', 'ls', '--state-dir', state])).stdout.split('\n');
    expect(rows.find((l) => l.startsWith('corrupt-interior '))).toMatch(/^corrupt-interior\s+unreadable\s/);
    const all = await listJson(state);
    expect(all[4]).toMatchObject({ id: 'corrupt-interior', status: 'unreadable', counters: null, problem: expect.stringMatching(/line 2 is corrupt/) });
    const table = await cli(['session', 'ls', '--status', 'suspended', '--state-dir', state]);
    expect(table.stdout.trimEnd().split('\n').slice(1).map((l) => l.split(' ')[0])).toEqual(['paused-turn']);
    const none = await cli(['session', 'ls', '--since', '1h', '--state-dir', state]);
    expect(none).toMatchObject({ code: 0, stdout: '', stderr: `no runs in the file store in ${join(state, 'runs')} match\n` });
    for (const [flag, value, said] of [
      ['--status', 'asleep', /"asleep" is not a status; one of: running, interrupted, open, completed/],
      ['--since', 'yesterday', /"yesterday" is neither a duration \(a number and a unit/],
      ['--limit', '0', /1 or more/],
    ] as const) {
      const r = await cli(['session', 'ls', flag, value, '--state-dir', state]);
      expect(r.code, flag).toBe(2);
      expect(r.stderr, flag).toMatch(said);
    }
  });

  it('tells a run a live writer holds (running) from one whose writer was killed (interrupted)', async () => {
    const state = tempDir();
    const writer = spawnCli(['run', '--config', join(dir, 'slow-agent.yaml'), '--state-dir', state, '--name', 'slow', 'Take your time'], { cwd: dir });
    const exited = finished(writer);
    try {
      // The run is journaled before the model is asked; the script then thinks for a minute.
      let seen: Listed | undefined;
      for (let i = 0; i < 100 && seen?.status !== 'running'; i++) {
        seen = (await listJson(state)).find((r) => r.id === 'slow');
        if (seen?.status !== 'running') await new Promise((ok) => setTimeout(ok, 100));
      }
      expect(seen).toMatchObject({ status: 'running' });
      const show = await cli(['session', 'show', 'slow', '--state-dir', state]);
      expect(show.stdout).toMatch(/^status +running\nwhere +running: a logbook process holds it now\n/m);
    } finally {
      writer.kill('SIGKILL');
    }
    expect((await exited).signal).toBe('SIGKILL');
    expect(await listJson(state)).toMatchObject([{ id: 'slow', status: 'interrupted' }]);
    const ls = await cli(['session', 'ls', '--state-dir', state]);
    expect(ls.stdout).toMatch(/\nslow\s+interrupted\s.*Take your time\n$/);
    const show = await cli(['session', 'show', 'slow', '--state-dir', state]);
    expect(show.stdout).toMatch(/^status +interrupted$/m);
    expect(show.stdout).toMatch(/^where +interrupted \(its writer stopped without ending it\), before the model's next turn$/m);
    // The next step names the config the run was started with, as the run's own hint would.
    expect(show.stdout).toMatch(new RegExp(`^next +a resume asks the model for it: logbook run --resume slow --config \\S+/slow-agent\\.yaml --state-dir ${state}$`, 'm'));
  });

  it('fits a 50-column terminal without wrapping a row, every id whole', async () => {
    const s = tempDir();
    const ids = ['20261130-091500-k3x9qa', '20261130-091501-p2m8zt', '20261130-091502-x7c4wd'];
    const ends = [{ reason: 'completed' }, { reason: 'max_iterations' }, { reason: 'suspended' }] as const;
    for (const [i, id] of ids.entries()) await writeRun(s, id, [{ terminal: ends[i]! }], 'Why is the build slow, and what would make it faster?');
    const t = Tmux.start([process.execPath, BIN, 'session', 'ls', '--state-dir', s], {
      env: { PATH: process.env.PATH ?? '', HOME: s, TERM: 'xterm-256color', NO_COLOR: '1', TZ: 'UTC' },
      width: 50,
      height: 10,
    });
    try {
      expect(await t.exitStatus()).toBe(0);
      // tmux's own "Pane is dead" line can scroll the first row (the header) away.
      const rows = t.screen().filter((row) => row !== '' && !row.startsWith('Pane is dead'));
      for (const row of rows) expect(row, rows.join('\n')).toMatch(/^(ID +STATUS +PROMPT|2026\d{4}-\d{6}-[a-z0-9]{6}  .*)$/); // no row wrapped onto a second
      expect(rows.filter((row) => !row.startsWith('ID')).map((row) => row.split(' ')[0]).sort()).toEqual(ids);
      for (const row of rows) expect(stringWidth(row)).toBeLessThanOrEqual(50);
    } finally {
      t.kill();
    }
  });

  it('--json is safe on a terminal and gives back every journal string exactly', async () => {
    const state = tempDir();
    await writeRun(state, 'hostile', hostileRun(), `prompt ${HOSTILE}`);
    const r = await cli(['session', 'ls', '--json', '--state-dir', state]);
    expect(r.stdout).not.toMatch(UNSAFE_CHARS);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: 'hostile', prompt: `prompt ${HOSTILE}`, status: 'error' });
  });
});

describe('session show says where a run stands', () => {
  const state = fixtureState(['completed', 'paused-turn']);

  it('a completed run: what a follow-up does, and never an iteration to come', async () => {
    const r = await cli(['session', 'show', 'completed', '--state-dir', state]);
    expect(r.stdout).toMatch(/^status +completed\nwhere +completed: the model gave its final answer\n/m);
    expect(r.stdout).toMatch(
      new RegExp(`^next +a resume does not run it again; a prompt given with it continues the conversation as a new run: logbook run --resume completed --state-dir ${state} PROMPT$`, 'm'),
    );
    expect(r.stdout).not.toMatch(/iteration/);
  });

  it('a suspended chat waits for input; a failed run names its error', async () => {
    const s = tempDir();
    const chat = await cli(['run', '--chat', '--name', 'chat', '--state-dir', s, 'hello'], { input: '' });
    expect(chat.code, chat.stderr).toBe(0);
    const shown = await cli(['session', 'show', 'chat', '--state-dir', s]);
    expect(shown.stdout).toMatch(/^where +suspended, waiting for input$/m);
    expect(shown.stdout).toMatch(/^next +a resume opens the chat again \(a prompt given with it is the next turn\): logbook run --resume chat /m);
    await writeRun(s, 'failed', [{ terminal: { reason: 'error', message: 'provider said 529 overloaded' } }], 'try');
    const failed = await cli(['session', 'show', 'fail', '--state-dir', s]);
    expect(failed.stdout).toMatch(/^status +error\nwhere +failed: provider said 529 overloaded; stopped before the model's next turn\nnext +a resume asks the model for it: /m);
  });

  it('a run suspended while the model paused its turn', async () => {
    const r = await cli(['session', 'show', 'paused-turn', '--state-dir', state]);
    expect(r.stdout).toMatch(/^where +suspended, before the model's next turn$/m);
  });
});

describe('--help of every session command', () => {
  it('lists the environment variables and exit codes it honours', async () => {
    for (const command of ['ls', 'show', 'rm', 'prune', 'export', 'cp']) {
      const r = await cli(['session', command, '--help']);
      expect(r.code, command).toBe(0);
      for (const name of ['LOGBOOK_CONFIG', 'LOGBOOK_DEBUG=1', 'XDG_STATE_HOME', 'XDG_CONFIG_HOME']) expect(r.stdout, `${command} ${name}`).toMatch(new RegExp(`^  ${name} `, 'm'));
      expect(r.stdout, command).toMatch(/Exit codes:\n  0 +done\n  1 +an error.*\n  2 +a usage error/);
    }
    for (const command of ['ls', 'show']) expect((await cli(['session', command, '--help'])).stdout).toMatch(/^  NO_COLOR /m);
    expect((await cli(['session', 'ls', '--help'])).stdout).toMatch(/--limit\s+applies before that/);
  });
});
