/**
 * A resume never silently runs again a call with side effects that a stop may
 * have left running. Through the binary, against a local server speaking the
 * Messages API: the run is killed (SIGKILL) or suspended (SIGINT) inside a
 * `side_effects` call; the resume without a terminal is refused in one line;
 * `--skip` and `--rerun` each lead to a complete conversation, and a marker file
 * proves the call ran exactly once or twice as chosen. A crash before that call
 * started, while an earlier call of the batch is the first unanswered one,
 * runs nothing twice.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/index.js';
import { payloadKind } from '../../src/core/index.js';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { finished, runCli, runCrashing, spawnCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-interrupted-');
const stateDir = join(dir, 'state');
const store = new FileStore(join(stateDir, 'runs'));
const config = join(dir, 'agent.yaml');
const api = useFakeAnthropic();

/** Each tool appends its argument to $MARKER.<tool>; deploy sleeps the first time it runs, long enough to be stopped. */
beforeAll(async () => {
  writeFileSync(
    config,
    `provider: anthropic
model: claude-test
tools:
  - name: deploy
    input_schema: { type: object, properties: { env: { type: string } }, required: [env] }
    command: [sh, -c, 'printf "%s\\n" "$1" >> "$MARKER.deploy"; if [ ! -e "$MARKER.slept" ]; then touch "$MARKER.slept"; sleep 30; fi; echo "deployed $1"', sh, '{{env}}']
    env: { MARKER: "\${MARKER}" }
    side_effects: true
  - name: notify
    input_schema: { type: object, properties: { who: { type: string } }, required: [who] }
    command: [sh, -c, 'printf "%s\\n" "$1" >> "$MARKER.notify"; echo "told $1"', sh, '{{who}}']
    env: { MARKER: "\${MARKER}" }
`,
  );
});
beforeEach(() => api.reset());

const env = (id: string, extra: Record<string, string> = {}) => ({
  ANTHROPIC_BASE_URL: api.origin,
  ANTHROPIC_API_KEY: 'test-key',
  LOGBOOK_PROVIDER_MAX_RETRIES: '0',
  MARKER: join(dir, id),
  ...extra,
});
const args = (rest: string[]) => ['run', '--config', config, '--state-dir', stateDir, ...rest];
const run = (id: string, rest: string[]) => runCli(args(rest), { cwd: dir, env: env(id) });
const ran = (id: string, tool: string): string[] => {
  const path = join(dir, `${id}.${tool}`);
  return existsSync(path) ? readFileSync(path, 'utf8').split('\n').filter(Boolean) : [];
};

const turn = (calls: [string, string, Record<string, string>][]) => ({
  message: {
    content: [{ type: 'text', text: 'Working.' }, ...calls.map(([id, name, input]) => ({ type: 'tool_use', id, name, input }))],
  },
});
const deployFirst = turn([
  ['toolu_deploy', 'deploy', { env: 'prod' }],
  ['toolu_notify', 'notify', { who: 'team' }],
]);
const notifyFirst = turn([
  ['toolu_notify', 'notify', { who: 'team' }],
  ['toolu_deploy', 'deploy', { env: 'prod' }],
]);
const answer = { message: { content: [{ type: 'text', text: 'All done.' }] } };

/** Starts run `id` and stops it with `signal` once its deploy call is running. */
async function stoppedInDeploy(id: string, signal: NodeJS.Signals) {
  api.reply(deployFirst);
  const child = spawnCli(args(['--name', id, 'deploy and tell the team']), { cwd: dir, env: env(id) });
  const done = finished(child);
  const deadline = Date.now() + 20_000;
  while (!existsSync(join(dir, `${id}.slept`)) && Date.now() < deadline) await sleep(25);
  child.kill(signal);
  return done;
}

type Sent = { messages: { role: string; content: Record<string, unknown>[] }[] };
/** The tool results the request sent (the resume reminder, a text block after them, left out). */
const resultsSent = (i: number) => (api.requests[i]!.json as Sent).messages.at(-1)!.content.filter((b) => b.type === 'tool_result');
const notifyResult = { type: 'tool_result', tool_use_id: 'toolu_notify', content: JSON.stringify({ command: ['sh', '-c', "printf \"%s\\n\" \"$1\" >> \"$MARKER.notify\"; echo \"told $1\"", 'sh', 'team'], exit_code: 0, output: 'told team\n' }) };

/** The conversation ends complete: prompt, the turn, its two results, the answer; and the run says completed. */
async function expectComplete(id: string): Promise<void> {
  const { state } = await store.load(id);
  expect(state.terminal).toEqual({ reason: 'completed' });
  expect(state.pending).toBeNull();
  expect(state.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  expect(state.messages[2]!.content.map((b) => ('tool_result' in b ? b.tool_result.tool_use_id : '?'))).toEqual(['toolu_deploy', 'toolu_notify']);
}

async function expectRefused(id: string, journaled: number): Promise<void> {
  const r = await run(id, ['--resume', id]);
  expect(r.code).toBe(1);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
  expect(r.stderr).toMatch(
    new RegExp(`^logbook: run ${id} stopped while call toolu_deploy \\(deploy\\) may have been running, and that tool has side effects, so whether it took effect is unknown; resume with --rerun toolu_deploy to run it again, or --skip toolu_deploy to tell the model it was not re-run\\n$`),
  );
  expect((await store.load(id)).records).toHaveLength(journaled);
  expect(api.requests).toHaveLength(1); // no model call either
}

describe('SIGKILL inside a side_effects call', () => {
  it('the resume is refused without a terminal; --skip completes the conversation, and the call ran once', async () => {
    const killed = await stoppedInDeploy('skip', 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    expect((await store.load('skip')).records.map(payloadKind)).toEqual(['meta', 'assistant']);
    await expectRefused('skip', 2);

    api.reply(answer);
    const r = await run('skip', ['--resume', 'skip', '--skip', 'toolu_deploy']);
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('All done.\n');
    expect(r.stderr).toMatch(/sh prod {2}\(not re-run after an interruption\)/);
    expect(resultsSent(1)).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_deploy', content: 'not re-run after an interruption; whether it took effect is unknown', is_error: true },
      notifyResult,
    ]);
    await expectComplete('skip');
    expect(ran('skip', 'deploy')).toEqual(['prod']);
    expect(ran('skip', 'notify')).toEqual(['team']);
    const transcript = await runCli(['session', 'show', 'skip', '--state-dir', stateDir, '--transcript']);
    expect(transcript.stdout).toContain('» deploy {"env":"prod"} (not re-run after an interruption)');
  }, 90_000);

  it('--rerun runs it again: the call ran twice, and the model receives its result', async () => {
    const killed = await stoppedInDeploy('rerun', 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    await expectRefused('rerun', 2);

    api.reply(answer);
    const r = await run('rerun', ['--resume', 'rerun', '--rerun', 'toolu_deploy']);
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(resultsSent(1)[0]).toMatchObject({ tool_use_id: 'toolu_deploy', content: expect.stringContaining('"output":"deployed prod\\n"') });
    await expectComplete('rerun');
    expect(ran('rerun', 'deploy')).toEqual(['prod', 'prod']);
    expect(ran('rerun', 'notify')).toEqual(['team']);
  }, 90_000);

  it('--rerun or --skip naming another call is refused, and so is the pair', async () => {
    const killed = await stoppedInDeploy('wrong', 'SIGKILL');
    expect(killed.signal).toBe('SIGKILL');
    const other = await run('wrong', ['--resume', 'wrong', '--skip', 'toolu_notify']);
    expect(other.code).toBe(1);
    expect(other.stderr).toBe('logbook: call toolu_notify is not the interrupted call of run wrong: that is toolu_deploy (deploy)\n');
    const both = await run('wrong', ['--resume', 'wrong', '--skip', 'toolu_deploy', '--rerun', 'toolu_deploy']);
    expect(both.code).toBe(2);
    expect(ran('wrong', 'deploy')).toEqual(['prod']);
  }, 90_000);
});

describe('SIGINT inside a side_effects call', () => {
  it('journals a suspend naming the call, and the resume is refused the same way', async () => {
    const stopped = await stoppedInDeploy('sigint', 'SIGINT');
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toContain(
      `suspended; resume with: logbook run --resume sigint --config ${config} --state-dir ${stateDir} --rerun toolu_deploy, or --skip toolu_deploy (call toolu_deploy (deploy) may have taken effect)\n`,
    );
    const { state, records } = await store.load('sigint');
    expect(state.terminal).toEqual({ reason: 'suspended', message: 'interrupted during call toolu_deploy (deploy)' });
    await expectRefused('sigint', records.length);
    api.reply(answer);
    const r = await run('sigint', ['--resume', 'sigint', '--skip', 'toolu_deploy']);
    expect(r.code).toBe(0);
    await expectComplete('sigint');
    expect(ran('sigint', 'deploy')).toEqual(['prod']);
  }, 90_000);
});

describe('a crash before the side_effects call started', () => {
  it('with an earlier call the first unanswered one, the resume runs each call once, asking nothing', async () => {
    api.reply(notifyFirst);
    // deploy must not sleep here: it is never the call a crash catches.
    writeFileSync(join(dir, 'early.slept'), '');
    const crashed = await runCrashing(args(['--name', 'early', 'tell the team, then deploy']), 'kill-after-seq:2', { cwd: dir, env: env('early') });
    expect(crashed.signal).toBe('SIGKILL');
    expect(ran('early', 'notify')).toEqual([]);

    api.reply(answer);
    const r = await run('early', ['--resume', 'early']);
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    const { state } = await store.load('early');
    expect(state.terminal).toEqual({ reason: 'completed' });
    expect(state.messages[2]!.content.map((b) => ('tool_result' in b ? [b.tool_result.tool_use_id, b.tool_result.is_error ?? false] : '?'))).toEqual([
      ['toolu_notify', false],
      ['toolu_deploy', false],
    ]);
    expect(ran('early', 'notify')).toEqual(['team']);
    expect(ran('early', 'deploy')).toEqual(['prod']);
  }, 90_000);

  it('once the call before it is answered, the journal cannot tell whether it started: the resume asks', async () => {
    api.reply(notifyFirst);
    writeFileSync(join(dir, 'next.slept'), '');
    const crashed = await runCrashing(args(['--name', 'next', 'tell the team, then deploy']), 'kill-after-seq:3', { cwd: dir, env: env('next') });
    expect(crashed.signal).toBe('SIGKILL');
    await expectRefused('next', 3);
    expect(ran('next', 'deploy')).toEqual([]); // it had not: killed right after the record before it
  }, 90_000);
});
