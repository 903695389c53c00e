/**
 * A chat ended before any turn was typed leaves no run: nothing for `-c` to
 * continue in place of the real conversation, and no blank row in `session ls`.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../helpers/cli.js';
import { Tmux } from '../helpers/tmux.js';
import { tempDir } from '../helpers/tmp.js';

let t: Tmux | undefined;
afterEach(() => {
  t?.kill();
  t = undefined;
});

function setup() {
  const dir = tempDir();
  writeFileSync(join(dir, 'turns.yaml'), 'turns:\n  - text: Paris.\n  - text: About two million.\n');
  writeFileSync(join(dir, 'agent.yaml'), 'provider: script\nscript: turns.yaml\n');
  const state = join(dir, 'state');
  const env = { PATH: process.env.PATH ?? '', HOME: dir, TERM: 'xterm-256color', NO_COLOR: '1' };
  const runs = (): string[] => (existsSync(join(state, 'runs')) ? readdirSync(join(state, 'runs')).filter((f) => f.endsWith('.jsonl')) : []);
  return { dir, state, env, runs };
}

const PROMPT = /\n\n>$/m;

describe('a chat ended before a turn was typed', () => {
  it('Ctrl-D at once: no run is kept, and -c goes on with the real conversation', async () => {
    const { dir, state, env, runs } = setup();
    expect((await runCli(['run', '--name', 'real', '--state-dir', state, 'capital of France?'], { cwd: dir })).code).toBe(0);
    t = Tmux.start([process.execPath, BIN, 'run', '--chat', '--state-dir', state], { env, cwd: dir, width: 120, height: 20 });
    await t.waitFor(PROMPT, 'the prompt');
    t.keys('C-d');
    expect(await t.exitStatus()).toBe(0);
    expect(t.text()).toContain('nothing was typed, so no run is kept');
    expect(t.text()).not.toContain('continue it later');
    expect(runs()).toEqual(['real.jsonl']);
    const ls = await runCli(['session', 'ls', '--state-dir', state], { cwd: dir });
    expect(ls.stdout.trim().split('\n')).toHaveLength(2); // the header, and the real run
    const c = await runCli(['run', '-c', '--state-dir', state, 'and its population?'], { cwd: dir });
    expect(c.stdout).toBe('About two million.\n');
    expect(c.code).toBe(0);
  });

  it('Ctrl-C at the empty prompt suspends (exit 130) and keeps no run; piped, an empty input keeps none either', async () => {
    const { dir, state, env, runs } = setup();
    t = Tmux.start([process.execPath, BIN, 'run', '--chat', '--state-dir', state], { env, cwd: dir, width: 120, height: 20 });
    await t.waitFor(PROMPT, 'the prompt');
    t.keys('C-c');
    expect(await t.exitStatus()).toBe(130);
    expect(t.text()).toContain('nothing was typed, so no run is kept');
    expect(t.text()).not.toMatch(/resume with/);
    expect(runs()).toEqual([]);
    const piped = await runCli(['run', '--chat', '--state-dir', state], { cwd: dir, input: '' });
    expect(piped.code).toBe(0);
    expect(piped.stderr).toContain('nothing was typed, so no run is kept');
    expect(runs()).toEqual([]);
  });

  it('a chat with a typed turn is kept', async () => {
    const { dir, state, runs } = setup();
    const typed = await runCli(['run', '--chat', '--name', 'typed', '--state-dir', state], { cwd: dir, input: 'capital of France?\n' });
    expect(typed.code).toBe(0);
    expect(typed.stderr).toContain('continue it later with: logbook run --resume typed');
    expect(runs()).toEqual(['typed.jsonl']);
  });
});
