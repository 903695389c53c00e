/**
 * A journaled answer is shown as the live chat showed it as it streamed: its
 * Markdown rendered on a color terminal (the resume's replay, `session watch`,
 * `session show --transcript`), and as written when piped. On a real terminal
 * (tmux); the model's text stays untrusted: its escape sequences never reach
 * the terminal.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, runCli } from '../helpers/cli.js';
import { Tmux } from '../helpers/tmux.js';
import { tempDir } from '../helpers/tmp.js';

const MARKDOWN = '# The plan\n\nSome **bold** words and `code`.\n\n- first\n- second\n\n```sh\nls   -l\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n\u001b[31mred\u001b[0m and \u001b]0;title\u0007done.';

let t: Tmux | undefined;
afterEach(() => {
  t?.kill();
  t = undefined;
});

/** A completed run `plan` whose one answer is MARKDOWN (a scripted provider: the turns from a file). */
async function planned() {
  const dir = tempDir();
  writeFileSync(join(dir, 'turns.yaml'), `turns:\n  - text: ${JSON.stringify(MARKDOWN)}\n  - text: Noted.\n`);
  writeFileSync(join(dir, 'agent.yaml'), 'provider: script\nscript: turns.yaml\n');
  const state = join(dir, 'state');
  const made = await runCli(['run', '--state-dir', state, '--name', 'plan', 'make a plan'], { cwd: dir });
  expect(made.code).toBe(0);
  const env = { PATH: process.env.PATH ?? '', HOME: dir, TERM: 'xterm-256color', XDG_STATE_HOME: join(dir, 'xdg'), XDG_CONFIG_HOME: join(dir, 'xdg-config') };
  return { dir, state, env };
}

/** The screen shows MARKDOWN rendered, as the live chat renders it. */
function expectRendered(t: Tmux): void {
  const screen = t.text();
  expect(screen).toMatch(/^The plan$/m);
  expect(screen).toContain('Some bold words and code.');
  expect(screen).toMatch(/^\u2022 first\n\u2022 second$/m);
  expect(screen).toMatch(/^sh\n {2}ls {3}-l$/m);
  expect(screen).toMatch(/^a \u2502 b\n\u2500+\u253c\u2500+\n1 \u2502 2$/m);
  expect(screen).toContain('red and done.');
  expect(screen).not.toContain('**');
  expect(screen).not.toContain('# The plan');
  const styled = t.styled();
  expect(styled).toMatch(/\u001b\[1mbold\u001b\[(22|0)?m/);
  expect(styled).not.toContain('\u001b[31m');
}

describe('a journaled answer on a color terminal', () => {
  it('is rendered as Markdown in the replay of a resumed run', async () => {
    const { dir, state, env } = await planned();
    t = Tmux.start([process.execPath, BIN, 'run', '--resume', 'plan', '--state-dir', state, 'and then?'], { env, cwd: dir, width: 100, height: 40 });
    expect(await t.exitStatus()).toBe(0);
    expect(t.text()).toContain('Noted.');
    expectRendered(t);
  });

  it('is rendered as Markdown by session watch', async () => {
    const { dir, state, env } = await planned();
    t = Tmux.start([process.execPath, BIN, 'session', 'watch', 'plan', '--state-dir', state], { env, cwd: dir, width: 100, height: 40 });
    expect(await t.exitStatus()).toBe(0);
    expectRendered(t);
  });

  it('is rendered as Markdown by session show --transcript', async () => {
    const { dir, state, env } = await planned();
    t = Tmux.start([process.execPath, BIN, 'session', 'show', 'plan', '--transcript', '--no-tui', '--state-dir', state], { env, cwd: dir, width: 100, height: 40 });
    expect(await t.exitStatus()).toBe(0);
    expectRendered(t);
  });
});

describe('a journaled answer piped', () => {
  it('is the text as written, its escape sequences removed', async () => {
    const { dir, state } = await planned();
    const sane = MARKDOWN.replace('\u001b[31m', '').replace('\u001b[0m', '').replace('\u001b]0;title\u0007', '');
    for (const argv of [
      ['session', 'show', 'plan', '--transcript'],
      ['session', 'watch', 'plan'],
    ]) {
      const r = await runCli([...argv, '--state-dir', state], { cwd: dir, env: { NO_COLOR: undefined, TERM: 'xterm-256color' } });
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(sane);
    }
  });
});
