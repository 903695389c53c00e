/**
 * A terminal that hangs up (its window closed, an SSH session dropped) on the
 * real binary in tmux, whose server is killed to hang the terminal up: at every
 * prompt the CLI shows and while a tool runs, the run is suspended with its
 * terminal record and the command exits 130, as at a SIGHUP; never a crash of
 * node (an unhandled `setRawMode EIO`, then an abort restoring the terminal).
 * Each case is run both ways a program learns of a hang-up: a SIGHUP passed on
 * by the terminal's session leader as a shell passes it on, and the terminal
 * alone (its input ends, writing to it fails).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/index.js';
import { BIN, finished, spawnCli } from '../helpers/cli.js';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { Tmux } from '../helpers/tmux.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-hang-up-');
const stateDir = join(dir, 'state');
const store = new FileStore(join(stateDir, 'runs'));
const config = join(dir, 'agent.yaml');
const api = useFakeAnthropic();
let t: Tmux | undefined;

/** deploy asks first and has side effects; wait has side effects too, and sleeps until killed once it has made $MARKER.started. */
beforeAll(async () => {
  writeFileSync(
    config,
    `provider: anthropic
model: claude-test
tools:
  - name: deploy
    input_schema: { type: object, properties: { env: { type: string } }, required: [env] }
    command: [sh, -c, 'echo "deployed $1"', sh, '{{env}}']
    confirm: true
    side_effects: true
  - name: wait
    input_schema: { type: object, properties: {} }
    command: [sh, -c, 'touch "$MARKER.started"; sleep 30']
    env: { MARKER: "\${MARKER}" }
    side_effects: true
`,
  );
});
beforeEach(() => api.reset());
afterEach(() => t?.kill());

const env = (id: string): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  HOME: dir,
  TERM: 'xterm-256color',
  NO_COLOR: '1',
  ANTHROPIC_BASE_URL: api.origin,
  ANTHROPIC_API_KEY: 'test-key',
  LOGBOOK_PROVIDER_MAX_RETRIES: '0',
  MARKER: join(dir, id),
});

type HangUp = 'signal' | 'silent';
const WAYS: HangUp[] = ['signal', 'silent'];

function onTerminal(id: string, args: string[], hangUp: HangUp): Tmux {
  return Tmux.start([process.execPath, BIN, 'run', '--config', config, '--state-dir', stateDir, ...args], { env: env(id), cwd: dir, width: 160, height: 40, hangUp });
}

const APPROVAL = '[y]es, [n]o, [a]ll (yes for the rest of this run):';
const deploy = { message: { content: [{ type: 'text', text: 'Deploying.' }, { type: 'tool_use', id: 'toolu_prod', name: 'deploy', input: { env: 'prod' } }] } };
const wait = { message: { content: [{ type: 'tool_use', id: 'toolu_wait', name: 'wait', input: {} }] } };
const answer = { message: { content: [{ type: 'text', text: 'All done.' }] } };

describe.each(WAYS)('a hang-up (%s)', (way) => {
  it('at the approval prompt suspends awaiting the approval, which the resume then asks for', async () => {
    const id = `approval-${way}`;
    api.reply(deploy);
    t = onTerminal(id, ['--name', id, 'deploy'], way);
    await t.waitFor(APPROVAL, 'the approval question');
    t.hangUp();
    expect(await t.exitStatus()).toBe(130);
    expect((await store.load(id)).state.terminal).toEqual({ reason: 'suspended', message: 'awaiting approval of call toolu_prod (deploy)' });

    api.reply(answer);
    t = onTerminal(id, ['--resume', id], way);
    const screen = await t.waitFor(APPROVAL, 'the approval question again');
    expect(screen).toContain('approve call toolu_prod (deploy)?');
    expect(screen).not.toContain('may have');
    t.type('y');
    t.keys('Enter');
    expect(await t.exitStatus()).toBe(0);
    expect((await store.load(id)).state.terminal).toEqual({ reason: 'completed' });
  });

  it('while a tool runs journals the suspend and exits 130', async () => {
    const id = `tool-${way}`;
    api.reply(wait);
    // Without a spinner nothing is written while the tool runs: only the SIGHUP can tell.
    t = onTerminal(id, ['--name', id, ...(way === 'signal' ? ['--no-tui'] : []), 'wait'], way);
    const deadline = Date.now() + 15_000;
    while (!existsSync(join(dir, `${id}.started`)) && Date.now() < deadline) await sleep(25);
    t.hangUp();
    expect(await t.exitStatus()).toBe(130);
    const { state } = await store.load(id);
    expect(state.terminal?.reason).toBe('suspended');
    expect(state.pending?.answered).toEqual([]); // the call was stopped, and is not taken as answered
  });

  it('at the question about an interrupted call leaves the run as it was', async () => {
    const id = `interrupted-${way}`;
    api.reply(wait);
    const child = spawnCli(['run', '--config', config, '--state-dir', stateDir, '--name', id, 'wait'], { cwd: dir, env: env(id) });
    const done = finished(child);
    const deadline = Date.now() + 15_000;
    while (!existsSync(join(dir, `${id}.started`)) && Date.now() < deadline) await sleep(25);
    child.kill('SIGKILL');
    await done;
    const journaled = (await store.load(id)).records.length;

    t = onTerminal(id, ['--resume', id], way);
    await t.waitFor('[r]erun it, [s]kip it', 'the interrupted-call question');
    t.hangUp();
    expect(await t.exitStatus()).toBe(130);
    expect((await store.load(id)).records).toHaveLength(journaled);
  });

  it('at the chat prompt suspends the chat', async () => {
    const id = `chat-${way}`;
    api.reply(answer);
    t = onTerminal(id, ['--chat', '--name', id, 'hello'], way);
    await t.waitFor(/All done\.\n\n>$/m, 'the answer and the chat prompt');
    t.hangUp();
    expect(await t.exitStatus()).toBe(130);
    expect((await store.load(id)).state.terminal?.reason).toBe('suspended');
  });

  it('in the run picker changes nothing', async () => {
    const id = `picked-${way}`;
    api.reply(deploy);
    t = onTerminal(id, ['--name', id, 'deploy'], way);
    await t.waitFor(APPROVAL, 'the approval question');
    t.keys('C-c');
    expect(await t.exitStatus()).toBe(130);
    t.kill();
    const before = (await store.load(id)).records.length;

    t = onTerminal(id, ['--resume'], way);
    await t.waitFor('Resume which run?', 'the picker');
    t.hangUp();
    expect(await t.exitStatus()).toBe(130);
    expect((await store.load(id)).records).toHaveLength(before);
  });

  it('in the transcript viewer ends it by SIGHUP, as a terminal program ends, never by an abort', async () => {
    const id = `viewed-${way}`;
    api.reply(answer);
    t = onTerminal(id, ['--name', id, 'hello'], way);
    expect(await t.exitStatus()).toBe(0);
    t.kill();
    t = Tmux.start([process.execPath, BIN, 'session', 'show', id, '--transcript', '--state-dir', stateDir], { env: env(id), cwd: dir, width: 100, height: 24, hangUp: way });
    await t.waitFor('q quit', 'the viewer');
    t.hangUp();
    await expect(t.exitStatus()).rejects.toThrow(/^the program was killed by SIGHUP;/);
  });
});
