/**
 * A model call whose stream stalls and is made again: what stdout receives
 * (a pipe, a file, a terminal) and what the notes say, in which order. The
 * journal holds the answer of the attempt that completed; a file given the
 * answer receives exactly that, and a pipe that was given a cut start is told
 * apart by the exit code.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStore, textOf } from '../../src/index.js';
import { BIN, runCli } from '../helpers/cli.js';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { Tmux } from '../helpers/tmux.js';
import { tempDir } from '../helpers/tmp.js';

const anthropic = useFakeAnthropic();
let t: Tmux | undefined;
afterEach(() => {
  t?.kill();
  t = undefined;
  anthropic.reset();
});

const text = (words: string) => ({ message: { content: [{ type: 'text', text: words }] } });
/** A reply that streams its first events, then falls silent. */
const stalling = (words: string) => ({ ...text(words), stallAfter: 4 });

function setup() {
  const dir = tempDir();
  const cfg = join(dir, 'idle.yaml');
  writeFileSync(cfg, `provider: anthropic\nmodel: claude-test\nbase_url: ${anthropic.url}\nidle_timeout: 0.5\n`);
  const state = join(dir, 'state');
  const env = { ANTHROPIC_API_KEY: 'sk-test', LOGBOOK_PROVIDER_MAX_RETRIES: '2' };
  const answerOf = async (id: string): Promise<string> => {
    const { state: s } = await new FileStore(join(state, 'runs')).load(id);
    return textOf(s.messages.at(-1)!);
  };
  return { dir, cfg, state, env, answerOf };
}

/** Runs the command with stdout sent to `file`, as `> file` does; resolves to its exit code and stderr. */
function runToFile(args: string[], file: string, o: { cwd: string; env: Record<string, string> }): Promise<{ code: number | null; stderr: string }> {
  const fd = openSync(file, 'w');
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: o.cwd,
    env: { PATH: process.env.PATH ?? '', HOME: o.cwd, NO_COLOR: '1', XDG_STATE_HOME: join(o.cwd, 'xdg'), ...o.env },
    stdio: ['ignore', fd, 'pipe'],
  });
  closeSync(fd);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stderr })));
}

describe('a stream that stalls and is asked again, stdout a file', () => {
  it('receives the journaled answer alone', async () => {
    const { dir, cfg, state, env, answerOf } = setup();
    anthropic.reply(stalling('a cut first attempt'), text('The whole second answer.'));
    const out = join(dir, 'out.md');
    const r = await runToFile(['run', '--config', cfg, '--state-dir', state, '--name', 'tofile', 'flaky please'], out, { cwd: dir, env });
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toBe('The whole second answer.\n');
    expect(await answerOf('tofile')).toBe('The whole second answer.');
    expect(anthropic.requests).toHaveLength(2);
  });
});

describe('a stream that stalls and is asked again, stdout a pipe', () => {
  it('an answer that starts as the cut one did goes on from where the pipe was left: nothing is written twice', async () => {
    const { dir, cfg, state, env, answerOf } = setup();
    anthropic.reply(stalling('The same start, then more.'), stalling('The same start, then more.'), text('The same start, then more.'));
    const r = await runCli(['run', '--config', cfg, '--state-dir', state, '--name', 'same', 'flaky please'], { cwd: dir, env });
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('The same start, then more.\n');
    expect(await answerOf('same')).toBe('The same start, then more.');
    expect(anthropic.requests).toHaveLength(3);
  });

  it('an answer that says something else follows a line break, is said on stderr, and the exit code is 1', async () => {
    const { dir, cfg, state, env, answerOf } = setup();
    anthropic.reply(stalling('never ends'), text('Back.'));
    const r = await runCli(['run', '--config', cfg, '--state-dir', state, '--name', 'other', 'flaky please'], { cwd: dir, env });
    expect(r.stdout).toBe('never\nBack.\n');
    expect(await answerOf('other')).toBe('Back.');
    expect(r.stderr).toContain('the answer asked for again differs from it');
    expect(r.stderr).toMatch(/\nlogbook: stdout holds the start of an answer that broke off, then the answer; the journal holds the answer alone: logbook session show other\n$/);
    expect(r.code).toBe(1);
  });

  it('a call whose every attempt stalls leaves one copy of the cut start, and the failure', async () => {
    const { dir, cfg, state, env } = setup();
    anthropic.reply(stalling('never ends'), stalling('never ends'), stalling('never ends'));
    const r = await runCli(['run', '--config', cfg, '--state-dir', state, '--name', 'dead', 'flaky please'], { cwd: dir, env });
    expect(r.stdout).toBe('never\n'); // the cut line ended, once
    expect(r.code).toBe(1);
    // The notes name the config file the run was given.
    expect(r.stderr).toContain(`anthropic: stream stalled: no event for 0.5s (idle_timeout in ${cfg}); trying again (attempt 2 of 3)`);
    expect(r.stderr).toMatch(/\nlogbook: anthropic failed after 3 attempts \(stream stalled\): no event for 0\.5s/);
  });
});

describe('a stream that stalls and is asked again, on a terminal', () => {
  it('ends the cut text, says the restart and the stall, then the answer again; after the last attempt no restart is announced', async () => {
    const { dir, cfg, state, env } = setup();
    anthropic.reply(stalling('never ends'), text('Back now.'), stalling('cut again'), stalling('cut again'), stalling('cut again'));
    const shell = { env: { PATH: process.env.PATH ?? '', HOME: dir, TERM: 'xterm-256color', NO_COLOR: '1', ...env }, cwd: dir, width: 140, height: 40 };
    t = Tmux.start([process.execPath, BIN, 'run', '--config', cfg, '--state-dir', state, '--name', 'tty', 'flaky please'], shell);
    expect(await t.exitStatus()).toBe(0);
    const screen = t.text();
    const order = ['never', '(the stream broke off; the answer again, from the start)', 'stream stalled: no event for 0.5s', 'Back now.'].map((s) => screen.indexOf(s));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    // The stall note is a line of its own, not inside the cut text.
    expect(screen).toMatch(/^never\s*$/m);

    t.kill();
    t = Tmux.start([process.execPath, BIN, 'run', '--config', cfg, '--state-dir', state, '--resume', 'tty', 'again please'], shell);
    expect(await t.exitStatus()).toBe(1);
    const after = t.text();
    // Two restarts for three attempts: the last failure is the run's end, with no answer said to follow it.
    expect(after.split('(the stream broke off; the answer again, from the start)')).toHaveLength(3);
    expect(after.slice(after.lastIndexOf('(the stream broke off'))).toMatch(/^[^\n]*\n[^\n]*trying again \(attempt 3 of 3\)\ncut\b[^\n]*\nlogbook: anthropic failed after 3 attempts/);
  });
});
