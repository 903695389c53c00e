/**
 * Approvals on a real terminal (tmux), against a local server speaking the
 * Messages API: before a confirm tool's call the operator sees the tool, the
 * resolved command line and the input, and answers yes, no (with a reason the
 * model reads) or all (yes for the rest of the run). A resume whose
 * interrupted call has side effects asks: rerun, skip, or stop. On a terminal
 * each takes one key press, no Enter.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/index.js';
import { BIN, finished, spawnCli } from '../helpers/cli.js';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { Tmux } from '../helpers/tmux.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-approvals-tty-');
const stateDir = join(dir, 'state');
const store = new FileStore(join(stateDir, 'runs'));
const config = join(dir, 'agent.yaml');
const api = useFakeAnthropic();
let t: Tmux | undefined;

/** Appends its argument to $MARKER; sleeps the first time when $MARKER.slow exists, long enough to be killed. */
const DEPLOY_SH = `printf '%s\\n' "$1" >> "$MARKER"
if [ -e "$MARKER.slow" ] && [ ! -e "$MARKER.slept" ]; then touch "$MARKER.slept"; sleep 30; fi
echo "deployed $1"
`;

beforeAll(async () => {
  writeFileSync(join(dir, 'deploy.sh'), DEPLOY_SH);
  writeFileSync(
    config,
    `provider: anthropic
model: claude-test
tools:
  - name: deploy
    input_schema: { type: object, properties: { env: { type: string } }, required: [env] }
    command: [sh, deploy.sh, '{{env}}']
    env: { MARKER: "\${MARKER}" }
    confirm: true
    side_effects: true
`,
  );
});
beforeEach(() => api.reset());
afterEach(() => t?.kill());

const marker = (id: string): string => join(dir, `${id}.deployed`);
const deployedTo = (id: string): string[] => (existsSync(marker(id)) ? readFileSync(marker(id), 'utf8').split('\n').filter(Boolean) : []);
const env = (id: string): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  HOME: dir,
  TERM: 'xterm-256color',
  NO_COLOR: '1',
  ANTHROPIC_BASE_URL: api.origin,
  ANTHROPIC_API_KEY: 'test-key',
  LOGBOOK_PROVIDER_MAX_RETRIES: '0',
  MARKER: marker(id),
});

const deploys = (...envs: string[]) => ({
  message: {
    content: [{ type: 'text', text: 'Deploying.' }, ...envs.map((e, i) => ({ type: 'tool_use', id: `toolu_${e}_${i}`, name: 'deploy', input: { env: e } }))],
  },
});
const answer = { message: { content: [{ type: 'text', text: 'All done.' }] } };

function onTerminal(id: string, args: string[]): Tmux {
  return Tmux.start([process.execPath, BIN, 'run', '--config', config, '--state-dir', stateDir, ...args], { env: env(id), cwd: dir, width: 160, height: 40 });
}

const QUESTION = '[y]es, [n]o, [a]ll (yes for the rest of this run):';

type Sent = { messages: { role: string; content: Record<string, unknown>[] }[] };
const resultsSent = (i: number) => (api.requests[i]!.json as Sent).messages.at(-1)!.content;

describe('a confirm tool on a terminal', () => {
  it('shows the call and runs it on yes', async () => {
    api.reply(deploys('prod'), answer);
    t = onTerminal('yes', ['--name', 'yes', 'deploy']);
    const screen = await t.waitFor(QUESTION, 'the approval question');
    expect(screen).toContain('approve call toolu_prod_0 (deploy)?');
    expect(screen).toContain('  runs   sh deploy.sh prod\n');
    expect(screen).toContain('  input  {"env":"prod"}');
    expect(deployedTo('yes')).toEqual([]); // nothing runs before the answer
    t.type('y');
    expect(await t.exitStatus()).toBe(0);
    expect(t.text()).toContain('All done.');
    expect(deployedTo('yes')).toEqual(['prod']);
  });

  it('answers a key that is not one of the choices with the keys it takes, and asks again', async () => {
    api.reply(deploys('prod'), answer);
    t = onTerminal('maybe', ['--name', 'maybe', 'deploy']);
    await t.waitFor(QUESTION, 'the approval question');
    t.type('m');
    // The keys it takes, then the question again (drawn a moment after the note).
    let again = await t.waitFor((s) => s.includes('is none of the answers') && s.split(QUESTION).length === 3, 'the keys it takes, and the question again');
    expect(again).toContain(`${QUESTION} m\n"m" is none of the answers: press y (yes), n (no) or a (all)`);
    t.keys('Enter'); // no Enter is needed, and none is an answer
    again = await t.waitFor((s) => s.split(QUESTION).length === 4, 'the question a third time');
    expect(again).toContain('Enter is none of the answers: press y (yes), n (no) or a (all)');
    expect(deployedTo('maybe')).toEqual([]);
    t.type('y');
    expect(await t.exitStatus()).toBe(0);
    expect(deployedTo('maybe')).toEqual(['prod']);
  });

  it('on no, asks why, and the model reads the denial with that reason', async () => {
    api.reply(deploys('prod'), answer);
    t = onTerminal('no', ['--name', 'no', 'deploy']);
    await t.waitFor(QUESTION, 'the approval question');
    t.type('n');
    await t.waitFor('reason (optional, told to the model):', 'the reason question');
    t.type('not before the release notes');
    t.keys('Enter');
    expect(await t.exitStatus()).toBe(0);
    expect(deployedTo('no')).toEqual([]);
    expect(resultsSent(1)).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_prod_0', content: 'denied by the operator: not before the release notes', is_error: true },
    ]);
    expect(t.text()).toContain('» sh deploy.sh prod  (denied by the operator)');
  });

  it('all approves this call and every later one of the run, in later turns too', async () => {
    api.reply(deploys('staging', 'prod'), deploys('eu'), answer);
    t = onTerminal('all', ['--name', 'all', 'deploy everywhere']);
    await t.waitFor(QUESTION, 'the approval question');
    t.type('a');
    expect(await t.exitStatus()).toBe(0);
    expect(deployedTo('all')).toEqual(['staging', 'prod', 'eu']);
    expect(t.text().split(QUESTION)).toHaveLength(2); // asked once
  });

  it('a question left unanswered when the run is stopped suspends before the call', async () => {
    api.reply(deploys('prod'));
    t = onTerminal('ctrlc', ['--name', 'ctrlc', 'deploy']);
    await t.waitFor(QUESTION, 'the approval question');
    t.keys('C-c');
    expect(await t.exitStatus()).toBe(130);
    expect(t.text()).toContain('run ctrlc awaits approval of call toolu_prod_0 (deploy)');
    expect((await store.load('ctrlc')).state.terminal).toEqual({ reason: 'suspended', message: 'awaiting approval of call toolu_prod_0 (deploy)' });
    expect(deployedTo('ctrlc')).toEqual([]);
  });
});

describe('a confirm tool in a chat on a terminal', () => {
  it('is asked through the chat\'s own input, which then goes on taking follow-ups', async () => {
    api.reply(deploys('prod'), answer);
    t = onTerminal('chat', ['--chat', '--name', 'chat', 'deploy']);
    await t.waitFor(QUESTION, 'the approval question');
    t.type('x');
    await t.waitFor((s) => s.split(QUESTION).length === 3, 'the question again');
    expect(t.text()).toContain(`${QUESTION} x\n"x" is none of the answers: press y (yes), n (no) or a (all)`);
    t.type('y');
    await t.waitFor(/All done\.\n\n>$/m, 'the answer and the chat prompt');
    expect(deployedTo('chat')).toEqual(['prod']);
    t.type('/exit');
    t.keys('Enter');
    expect(await t.exitStatus()).toBe(0);
  });
});

describe('a confirm tool in a chat read a line at a time (--no-tui)', () => {
  it('takes a whole line: a key alone answers nothing until Enter', async () => {
    api.reply(deploys('prod'), answer);
    t = onTerminal('lines', ['--chat', '--no-tui', '--name', 'lines', 'deploy']);
    await t.waitFor(QUESTION, 'the approval question');
    t.type('y');
    await t.waitFor(`${QUESTION} y`, 'the key typed, at the question');
    expect(api.requests).toHaveLength(1);
    expect(deployedTo('lines')).toEqual([]);
    t.type('es');
    t.keys('Enter');
    await t.waitFor('All done.', 'the answer');
    expect(deployedTo('lines')).toEqual(['prod']);
    t.type('/exit');
    t.keys('Enter');
    expect(await t.exitStatus()).toBe(0);
  });
});

describe('an interrupted side_effects call on a terminal', () => {
  it('asks: stop leaves the run as it was, rerun runs the call again', async () => {
    // Killed while the approved deploy runs.
    writeFileSync(`${marker('asked')}.slow`, '');
    api.reply(deploys('prod'));
    const child = spawnCli(['run', '--config', config, '--state-dir', stateDir, '--name', 'asked', '--yes', 'deploy'], { cwd: dir, env: env('asked') });
    const done = finished(child);
    const deadline = Date.now() + 20_000;
    while (!existsSync(`${marker('asked')}.slept`) && Date.now() < deadline) await sleep(25);
    child.kill('SIGKILL');
    expect((await done).signal).toBe('SIGKILL');
    const journaled = (await store.load('asked')).records.length;

    const RERUN = '[r]erun it, [s]kip it (the model is told it was not re-run), or s[t]op:';
    t = onTerminal('asked', ['--resume', 'asked']);
    let screen = await t.waitFor(RERUN, 'the interrupted-call question');
    expect(screen).toContain('call toolu_prod_0 (deploy) may have been running when the run stopped, and its tool has side effects');
    expect(screen).toContain('  input  {"env":"prod"}');
    t.type('t');
    expect(await t.exitStatus()).toBe(1);
    expect(t.text()).toMatch(/^logbook: run asked stopped while call toolu_prod_0 \(deploy\) may have been running/m);
    expect((await store.load('asked')).records).toHaveLength(journaled);
    t.kill();

    api.reply(answer);
    t = onTerminal('asked', ['--resume', 'asked']);
    screen = await t.waitFor(RERUN, 'the interrupted-call question');
    t.type('r');
    expect(await t.exitStatus()).toBe(0);
    expect(t.text()).not.toContain(QUESTION); // a re-run is its approval
    expect(deployedTo('asked')).toEqual(['prod', 'prod']);
    expect((await store.load('asked')).state.terminal).toEqual({ reason: 'completed' });
  });
});
