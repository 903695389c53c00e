/**
 * Approvals through the binary, without a terminal, against a local server
 * speaking the Messages API: a confirm tool's call suspends the run (exit 3,
 * the journal ends on a suspend naming the call), and `--resume --approve` or
 * `--deny --reason` continues it; the model then receives exactly the tool's
 * result, or the denial. `--yes` approves every call of one invocation.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FileStore, validateRecord, type RunState } from '../../src/index.js';
import { payloadKind } from '../../src/core/index.js';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-approvals-');
const stateDir = join(dir, 'state');
const store = new FileStore(join(stateDir, 'runs'));
const config = join(dir, 'agent.yaml');
const marker = join(dir, 'deployed');
const api = useFakeAnthropic();

beforeAll(async () => {
  writeFileSync(
    config,
    `provider: anthropic
model: claude-test
tools:
  - name: deploy
    description: Deploy to an environment
    input_schema: { type: object, properties: { env: { type: string } }, required: [env] }
    command: [sh, -c, 'printf "%s\\n" "$1" >> "$MARKER"; echo "deployed $1"', sh, '{{env}}']
    env: { MARKER: "\${MARKER}" }
    confirm: true
    side_effects: true
  - name: notify
    input_schema: { type: object, properties: { who: { type: string } } }
    command: [echo, '{{who}}']
`,
  );
});
beforeEach(() => api.reset());

const env = () => ({ ANTHROPIC_BASE_URL: api.origin, ANTHROPIC_API_KEY: 'test-key', LOGBOOK_PROVIDER_MAX_RETRIES: '0', MARKER: marker });
const run = (args: string[]) => runCli(['run', '--config', config, '--state-dir', stateDir, ...args], { cwd: dir, env: env() });

const deployTurn = {
  message: {
    content: [
      { type: 'text', text: 'Deploying.' },
      { type: 'tool_use', id: 'toolu_deploy', name: 'deploy', input: { env: 'prod' } },
      { type: 'tool_use', id: 'toolu_notify', name: 'notify', input: { who: 'team' } },
    ],
  },
};
const answerTurn = { message: { content: [{ type: 'text', text: 'All done.' }] } };

type Sent = { messages: { role: string; content: Record<string, unknown>[] }[] };
/** The tool results the model received in request `i`. */
const resultsSent = (i: number) => (api.requests[i]!.json as Sent).messages.at(-1)!.content;
const deployed = (): string[] => (existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean) : []);

async function journal(id: string): Promise<{ kinds: string[]; state: RunState }> {
  const text = readFileSync(join(stateDir, 'runs', `${id}.jsonl`), 'utf8');
  for (const line of text.split('\n').filter(Boolean)) expect(validateRecord(line), line).toEqual({ valid: true });
  const { records, state } = await store.load(id);
  return { kinds: records.map(payloadKind), state };
}

/** Starts run `id` to the suspend before the deploy call. */
async function suspendedBeforeDeploy(id: string): Promise<void> {
  api.reply(deployTurn);
  const r = await run(['--name', id, 'deploy it']);
  expect(r.code).toBe(3);
  expect(r.stdout).toBe('Deploying.\n'); // the words before the call
  expect(r.stderr).toContain(`run ${id} awaits approval of call toolu_deploy (deploy)`);
  expect(r.stderr).toContain(`approve it with: logbook run --resume ${id} --config ${config} --state-dir ${stateDir} --approve toolu_deploy`);
  expect(r.stderr).toContain(`or deny it with: logbook run --resume ${id} --config ${config} --state-dir ${stateDir} --deny toolu_deploy --reason TEXT`);
  expect(r.stderr).not.toMatch(/^logbook:/m);
  const { kinds, state } = await journal(id);
  expect(kinds).toEqual(['meta', 'assistant', 'terminal']);
  expect(state.terminal).toEqual({ reason: 'suspended', message: 'awaiting approval of call toolu_deploy (deploy)' });
  expect(api.requests).toHaveLength(1);
}

describe('a confirm tool without a terminal', () => {
  it('suspends before the call; --approve runs it, and the model receives its result', async () => {
    const before = deployed().length;
    await suspendedBeforeDeploy('approve');
    expect(deployed()).toHaveLength(before);
    const show = await runCli(['session', 'show', 'approve', '--state-dir', stateDir]);
    expect(show.stdout).toMatch(/^where +suspended before call toolu_deploy \(deploy\), which awaits an approval$/m);
    expect(show.stdout).toMatch(
      /^next +approve it with: logbook run --resume approve --state-dir \S+ --approve toolu_deploy, or deny it with: logbook run --resume approve --state-dir \S+ --deny toolu_deploy$/m,
    );

    api.reply(answerTurn);
    const r = await run(['--resume', 'approve', '--approve', 'toolu_deploy']);
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('All done.\n');
    expect(r.stderr).toMatch(/» sh -c .* sh prod \(awaits approval\)/); // the resume narration
    expect(deployed().slice(before)).toEqual(['prod']);
    expect(resultsSent(1)).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_deploy',
        content: JSON.stringify({ command: ['sh', '-c', 'printf "%s\\n" "$1" >> "$MARKER"; echo "deployed $1"', 'sh', 'prod'], exit_code: 0, output: 'deployed prod\n' }),
      },
      { type: 'tool_result', tool_use_id: 'toolu_notify', content: JSON.stringify({ command: ['echo', 'team'], exit_code: 0, output: 'team\n' }) },
    ]);
    expect((await journal('approve')).kinds).toEqual(['meta', 'assistant', 'terminal', 'tool_result', 'tool_result', 'assistant', 'terminal']);
  });

  it('--deny --reason answers it with the denial the model reads, and the calls after it run', async () => {
    await suspendedBeforeDeploy('deny');
    const before = deployed().length;
    api.reply(answerTurn);
    const r = await run(['--resume', 'deny', '--deny', 'toolu_deploy', '--reason', 'prod is frozen until Monday']);
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/» sh -c .* sh prod {2}\(denied by the operator\)/);
    expect(deployed()).toHaveLength(before);
    expect(resultsSent(1)).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_deploy', content: 'denied by the operator: prod is frozen until Monday', is_error: true },
      { type: 'tool_result', tool_use_id: 'toolu_notify', content: JSON.stringify({ command: ['echo', 'team'], exit_code: 0, output: 'team\n' }) },
    ]);
    const transcript = await runCli(['session', 'show', 'deny', '--state-dir', stateDir, '--transcript']);
    expect(transcript.stdout).toContain('» deploy {"env":"prod"} (denied by the operator)');
  });

  it('--deny all denies every call of the batch that awaits an approval, with the reason, and the others run', async () => {
    await suspendedBeforeDeploy('deny-all');
    const before = deployed().length;
    api.reply(answerTurn);
    const r = await run(['--resume', 'deny-all', '--deny', 'all', '--reason', 'not today']);
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(deployed()).toHaveLength(before);
    expect(resultsSent(1)).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_deploy', content: 'denied by the operator: not today', is_error: true },
      { type: 'tool_result', tool_use_id: 'toolu_notify', content: JSON.stringify({ command: ['echo', 'team'], exit_code: 0, output: 'team\n' }) },
    ]);
    const both = await run(['--resume', 'deny-all', '--approve', 'all', '--deny', 'all']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/^logbook: --approve all and --deny all cannot be combined/m);
  });

  it('a resume without an answer asks again: it suspends before the same call, which never ran', async () => {
    await suspendedBeforeDeploy('again');
    const r = await run(['--resume', 'again']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('run again awaits approval of call toolu_deploy (deploy)');
    expect(api.requests).toHaveLength(1);
    expect((await journal('again')).kinds).toEqual(['meta', 'assistant', 'terminal', 'terminal']);
  });

  it('--yes approves every call of one invocation', async () => {
    api.reply(deployTurn, answerTurn);
    const before = deployed().length;
    const r = await run(['--name', 'yes', '--yes', 'deploy it']);
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(deployed().slice(before)).toEqual(['prod']);
  });

  it('refuses answers that name no call awaiting one, and flags that make no sense, in one line', async () => {
    await suspendedBeforeDeploy('wrong');
    for (const [args, code, message] of [
      [['--resume', 'wrong', '--approve', 'toolu_nope'], 1, /^logbook: run wrong has no call toolu_nope awaiting an approval; the calls that do: toolu_deploy$/],
      [['--resume', 'wrong', '--deny', 'toolu_notify'], 1, /^logbook: run wrong has no call toolu_notify awaiting an approval/],
      [['--name', 'fresh', '--approve', 'toolu_deploy', 'deploy'], 2, /^logbook: --approve answers a journaled run: use it with --resume or --continue$/],
      [['--resume', 'wrong', '--reason', 'why'], 2, /^logbook: --reason goes with --deny CALL_ID$/],
      [['--resume', 'wrong', '--approve', 'toolu_deploy', '--deny', 'toolu_deploy'], 2, /^logbook: call toolu_deploy is both approved and denied$/],
    ] as const) {
      const r = await run([...args]);
      expect(r.code, args.join(' ')).toBe(code);
      expect(r.stderr.trim(), args.join(' ')).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(api.requests).toHaveLength(1);
    expect((await journal('wrong')).kinds).toEqual(['meta', 'assistant', 'terminal']);
  });
});

describe('run --help', () => {
  it('lists the approval flags and the exit code of a run awaiting an approval', async () => {
    const r = await runCli(['run', '--help']);
    for (const flag of ['--approve <call-id>', '--deny <call-id>', '--reason <text>', '--yes', '--rerun <call-id>', '--skip <call-id>']) expect(r.stdout).toContain(flag);
    expect(r.stdout).toMatch(/^ {2}3 {4}a run stopped before a call that needs an approval/m);
  });
});
