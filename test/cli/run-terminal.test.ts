/**
 * `logbook run` on a real terminal (tmux): while the model thinks or a tool runs
 * it shows a spinner with the elapsed time and the token count, and clears it.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/index.js';
import { BIN, runCli } from '../helpers/cli.js';
import { Tmux } from '../helpers/tmux.js';
import { tempDir } from '../helpers/tmp.js';

let t: Tmux | undefined;
afterEach(() => t?.kill());

describe('logbook run on a terminal', () => {
  it('shows progress while the model thinks and while a tool runs, then the answer', async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'turns.yaml'),
      `turns:
  - text: Waiting a moment.
    tool_calls: [{ name: wait, input: {} }]
    usage: { input: 1200, output: 34 }
    delay_ms: 1500
  - text: Done waiting.
`,
    );
    writeFileSync(
      join(dir, 'agent.yaml'),
      `provider: script
script: turns.yaml
tools:
  - name: wait
    command: [sleep, "2"]
`,
    );
    const env = { PATH: process.env.PATH ?? '', HOME: dir, TERM: 'xterm-256color', NO_COLOR: '1' };
    t = Tmux.start([process.execPath, BIN, 'run', '--state-dir', join(dir, 'state'), 'wait please'], { env, cwd: dir, width: 100, height: 20 });
    await t.waitFor(/waiting for the model \d+\.\ds$/m, 'the spinner while the model is asked, with no tokens counted yet');
    await t.waitFor(/running wait \d+\.\ds · 1,234 tokens/, 'the tool spinner with the tokens spent');
    expect(await t.exitStatus()).toBe(0);
    const screen = t.text();
    expect(screen).toContain('Done waiting.');
    expect(screen).not.toMatch(/tokens$/m); // cleared, not left behind
  });
});

describe('logbook run --chat on a terminal', () => {
  it('asks at a > prompt, answers each line, and ends on /exit', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'turns.yaml'), 'turns:\n  - text: Hi there.\n  - text: Blue, mostly.\n');
    writeFileSync(join(dir, 'agent.yaml'), 'provider: script\nscript: turns.yaml\n');
    const env = { PATH: process.env.PATH ?? '', HOME: dir, TERM: 'xterm-256color', NO_COLOR: '1' };
    t = Tmux.start([process.execPath, BIN, 'run', '--chat', '--checkpoint', '--state-dir', join(dir, 'state'), 'hello'], {
      env,
      cwd: dir,
      width: 100,
      height: 20,
    });
    await t.waitFor(/Hi there\.\n\n>$/m, 'the first answer and the prompt');
    t.type('what colour is the sky?');
    t.keys('Enter');
    await t.waitFor(/Blue, mostly\.\n\n>$/m, 'the second answer and the prompt again');
    t.type('/exit');
    t.keys('Enter');
    expect(await t.exitStatus()).toBe(0);
  });

  it('suspends on Ctrl-C at the idle prompt with exit 130, as a Ctrl-C does anywhere else, and resumes', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'turns.yaml'), 'turns:\n  - text: Hi there.\n  - text: Blue, mostly.\n');
    writeFileSync(join(dir, 'agent.yaml'), 'provider: script\nscript: turns.yaml\n');
    const state = join(dir, 'state');
    const env = { PATH: process.env.PATH ?? '', HOME: dir, TERM: 'xterm-256color', NO_COLOR: '1' };
    t = Tmux.start([process.execPath, BIN, 'run', '--chat', '--name', 'idle', '--state-dir', state, 'hello'], { env, cwd: dir, width: 100, height: 20 });
    await t.waitFor(/Hi there\.\n\n>$/m, 'the first answer and the prompt');
    t.keys('C-c');
    expect(await t.exitStatus()).toBe(130);
    expect(t.text()).toMatch(/SIGINT: suspending/);
    expect(t.text()).toMatch(/suspended; resume with: logbook run --resume idle --state-dir /);
    const { records } = await new FileStore(join(state, 'runs')).load('idle');
    expect(records.at(-1)).toMatchObject({ terminal: { reason: 'suspended' } });
    const resumed = await runCli(['run', '--resume', 'idle', '--state-dir', state], { cwd: dir, input: 'what colour is the sky?\n' });
    expect(resumed.stdout).toBe('Blue, mostly.\n');
    expect(resumed.code).toBe(0);
  });
});
