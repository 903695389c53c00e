/**
 * A chat's way back, on a real terminal (tmux): Esc twice at an empty prompt
 * lists the turns typed so far; picking one and "conversation and files" goes
 * on in a fork made before it, the files its tools made since taken back, and
 * that turn's text put back at the prompt to change and send.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN } from '../helpers/cli.js';
import { Tmux } from '../helpers/tmux.js';
import { tempDir } from '../helpers/tmp.js';

let t: Tmux | undefined;
afterEach(() => {
  t?.kill();
  t = undefined;
});

const sh = (cmd: string) => ({ name: 'sh', input: { cmd } });

describe("a chat's Esc-Esc turn list", () => {
  it('goes back to before a typed turn: the conversation forked there, its files restored, its text at the prompt', async () => {
    const dir = tempDir();
    // Not the home directory, which is not tracked unless named.
    const ws = join(dir, 'ws');
    mkdirSync(ws);
    writeFileSync(
      join(dir, 'script.json'),
      JSON.stringify({
        turns: [
          { text: 'writing x', tool_calls: [sh('echo first > x.txt')] },
          { text: 'Done one.' },
          { text: 'writing y', tool_calls: [sh('echo second > y.txt; echo changed > x.txt')] },
          { text: 'Done two.' },
          { text: 'Done again.' },
        ],
      }),
    );
    writeFileSync(
      join(ws, 'agent.yaml'),
      `provider: script
script: ../script.json
tools:
  - name: sh
    description: run a command
    input_schema: { type: object, properties: { cmd: { type: string } }, required: [cmd] }
    command: [sh, -c, '{{cmd}}']
`,
    );
    const env = { PATH: process.env.PATH ?? '', HOME: dir, TERM: 'xterm-256color', NO_COLOR: '1' };
    t = Tmux.start([process.execPath, BIN, 'run', '--chat', '--name', 'chat', '--state-dir', join(dir, 'state')], { env, cwd: ws, width: 160, height: 40 });
    await t.waitFor(/\n\n>$/m, 'the prompt');
    t.type('make x');
    t.keys('Enter');
    await t.waitFor(/Done one\.\n\n>$/m, 'the first answer');
    t.type('make y');
    t.keys('Enter');
    await t.waitFor(/Done two\.\n\n>$/m, 'the second answer');
    expect(readFileSync(join(ws, 'x.txt'), 'utf8')).toBe('changed\n');
    expect(existsSync(join(ws, 'y.txt'))).toBe(true);

    t.keys('Escape');
    t.keys('Escape');
    await t.waitFor(/the turns typed here[^]*1 +make x\n +2 +make y[^]*back to before which turn \(1-2; Enter: none\)\?/, 'the turn list');
    t.type('2');
    t.keys('Enter');
    await t.waitFor(/1\) conversation and files +2\) conversation only +3\) files only\?/, 'what to take back');
    t.type('1');
    t.keys('Enter');
    // The files that will change are listed and asked about first, as `session rewind` does on a terminal.
    await t.waitFor(/2 files in \S+ will change:\n +restore x\.txt\n +remove +y\.txt\ngo ahead\? \[y\/N\]/, 'the files that will change');
    expect(existsSync(join(ws, 'y.txt'))).toBe(true);
    t.type('y');
    t.keys('Enter');
    await t.waitFor(/the chat goes on in \S+, made before that turn, its files restored[^]*\n\n> make y$/m, 'the fork, and the turn back at the prompt');
    expect(readFileSync(join(ws, 'x.txt'), 'utf8')).toBe('first\n');
    expect(existsSync(join(ws, 'y.txt'))).toBe(false);
    t.keys('C-u');
    t.keys('C-d');
    expect(await t.exitStatus()).toBe(0);
  });
});
