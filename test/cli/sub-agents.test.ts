/**
 * A run that hands another agent a task (remote_agents: the tool ask_<alias>),
 * through the binary, on a real nats-server (each one found here): the call's
 * request id is derived from the run and the call, so a run killed while its
 * sub-agent works is resumed onto the same task, reading its events from the
 * start: the one child's answer, without a second task. The answer is
 * journaled `remote`; the parent and the child name each other in `session
 * show`; the parent's live view shows the child's events, indented.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { JetStreamStore } from '../../src/index.js';
import { finished, runCli, spawnCli } from '../helpers/cli.js';
import { describeEachNatsServer, natsServerOfBlock } from '../helpers/nats-server.js';
import { startServe, type ServeProcess } from '../helpers/serve.js';
import { STREAMS, addStreamAt, addTaskStreams, agentConfig, shTool, until } from '../helpers/tasks.js';
import { tempDir } from '../helpers/tmp.js';

describeEachNatsServer('a run that hands a sub-agent a task', (binary) => {
  const { server, start } = natsServerOfBlock();
  start({ binary });
  const dir = tempDir('logbook-sub-agents-');
  let helper: ServeProcess | undefined;
  let streamsMade = false;
  const ready = async (): Promise<void> => {
    if (!streamsMade) await addTaskStreams((c) => addStreamAt(server().url, c));
    streamsMade = true;
  };

  afterAll(async () => {
    await helper?.stop('SIGKILL');
  });

  it("killed while the sub-agent works, is resumed onto the same task and gets its one answer", async () => {
    await ready();
    const helperLog = join(dir, 'helper.turns.log');
    const helperConfig = agentConfig(dir, 'helper', { identity: 'helper', url: server().url, turns: [{ text: 'The capital is Paris.', delay_ms: 2_500 }] });
    helper = await startServe(helperConfig, { cwd: dir, env: { LOGBOOK_SCRIPT_LOG: helperLog } });
    const lead = agentConfig(dir, 'lead', {
      identity: 'lead',
      url: server().url,
      turns: [{ text: 'Asking the helper.', tool_calls: [{ name: 'ask_helper', input: { prompt: 'What is the capital of France?' }, id: 'ask-1' }] }, { text: 'The helper says Paris.' }],
      more: 'remote_agents:\n  - name: helper\n    description: Knows capitals\n',
    });

    const first = spawnCli(['run', '--config', lead, '--name', 'lead-run', 'Find the capital of France'], { cwd: dir });
    const killed = finished(first, 60_000);
    await until('the helper to take the task', () => /task (\S+) from lead: run task-helper-\S+/.test(helper!.stderr()));
    first.kill('SIGKILL');
    await killed;
    const request = /task (\S+) from lead: run/.exec(helper.stderr())![1]!;

    const resumed = await runCli(['run', '--resume', 'lead-run', '--config', lead], { cwd: dir, timeoutMs: 60_000 });
    expect(resumed.stderr).toContain('  helper: The capital is Paris.'); // the child's events, indented under the call
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('The helper says Paris.\n');

    // One task, asked of the helper's model once.
    await helper.waitFor(new RegExp(`task ${request} ended completed`));
    expect(helper.stderr().match(/ from lead: /g)).toHaveLength(1);
    expect(readFileSync(helperLog, 'utf8')).toBe('{"turn":0}\n');

    const store = await JetStreamStore.connect({ stream: STREAMS.runs, nats: { url: server().url } });
    try {
      const results = (await store.load('lead-run')).records.flatMap((r) => ('tool_result' in r ? [r.tool_result] : []));
      expect(results).toEqual([{ tool_use_id: 'ask-1', result: { tool_use_id: 'ask-1', content: 'The capital is Paris.' }, remote: true }]);
    } finally {
      await store.close();
    }
    const parent = await runCli(['session', 'show', 'lead-run', '--config', lead], { cwd: dir });
    expect(parent.stdout).toContain(`children     call ask-1: agent helper, task ${request}, run task-helper-${request} (completed), answered`);
    expect(parent.stdout).toMatch(/tool calls +1 \(1 remote, on agent helper\)/);
    const child = await runCli(['session', 'show', `task-helper-${request}`, '--config', lead], { cwd: dir });
    expect(child.stdout).toMatch(new RegExp(`task +request ${request} from agent lead, served as agent helper`));
    expect(child.stdout).toMatch(/parent +run lead-run\n/);
  });

  it('whose sub-agent no server serves, is told at its timeout that the task was withdrawn, never run, and leaves nothing queued', async () => {
    await ready();
    const lead = agentConfig(dir, 'lead3', {
      identity: 'lead3',
      url: server().url,
      turns: [{ tool_calls: [{ name: 'ask_nobody', input: { prompt: 'Anyone?' }, id: 'ask-1' }] }, { text: 'No one answered.' }],
      more: 'remote_agents:\n  - name: nobody\n    timeout: 2\n',
    });
    const r = await runCli(['run', '--config', lead, '--name', 'lead3-run', 'Ask nobody'], { cwd: dir, timeoutMs: 60_000 });
    expect(r.code).toBe(0);
    const store = await JetStreamStore.connect({ stream: STREAMS.runs, nats: { url: server().url } });
    try {
      const results = (await store.load('lead3-run')).records.flatMap((r) => ('tool_result' in r ? [r.tool_result.result] : []));
      expect(results).toEqual([{ tool_use_id: 'ask-1', content: expect.stringMatching(/^no server of agent nobody took up task \S+ within 2 s; it was withdrawn, never run$/), is_error: true }]);
    } finally {
      await store.close();
    }
    const queued = await runCli(['tasks', 'ls', '--json', '--config', lead], { cwd: dir });
    expect(queued.stdout).toBe('');
  });

  it("whose task ends in an error, lists the child as not answering, with the error its model read", async () => {
    await ready();
    const helperConfig = agentConfig(dir, 'approver', {
      identity: 'approver',
      url: server().url,
      turns: [{ tool_calls: [{ name: 'deploy', input: {}, id: 'deploy-1' }] }, { text: 'Deployed.' }],
      more: `tools:\n${shTool('deploy', 'echo deployed')}    confirm: true\n`,
    });
    const approver = await startServe(helperConfig, { cwd: dir });
    try {
      const lead = agentConfig(dir, 'lead2', {
        identity: 'lead2',
        url: server().url,
        turns: [{ tool_calls: [{ name: 'ask_approver', input: { prompt: 'Deploy it' }, id: 'ask-1' }] }, { text: 'It did not deploy.' }],
        more: 'remote_agents:\n  - name: approver\n    description: Deploys\n',
      });
      const r = await runCli(['run', '--config', lead, '--name', 'lead2-run', 'Deploy'], { cwd: dir, timeoutMs: 60_000 });
      expect(r.code).toBe(0);
      // The live view says under the call how the task ended, and which run waits for an operator.
      expect(r.stderr).toMatch(/\n  agent approver ended the task suspended: .*\(awaiting_approval\); its run task-approver-\S+ waits for an operator of agent approver\n/);
      const parent = await runCli(['session', 'show', 'lead2-run', '--config', lead], { cwd: dir });
      expect(parent.stdout).toMatch(/children +call ask-1: agent approver, task \S+, run task-approver-\S+ \(suspended\), did not answer: agent approver: .*\(awaiting_approval\)\n/);
      expect(parent.stdout).not.toMatch(/children .*, answered/);
    } finally {
      await approver.stop('SIGKILL');
    }
  });
});
