/**
 * Tasks that outlive the server running them, through the binary, on a real
 * three-node nats-server cluster (each version found here) with every stream
 * R3: two `logbook serve` instances of one identity, the one running a task
 * killed with SIGKILL in the middle of a model call, and separately in the
 * middle of a tool batch; the other takes the task over from its journal and
 * finishes it, asking the model for no journaled turn again and running no
 * answered call again, and the caller's stream is gap-free, each event once,
 * and exactly the projection of the run's journal. And the leader of the
 * events stream killed while a task runs: the task goes on, its stream whole.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { encodeMessage, stampTaskReply, taskEvents, type RequestMessage } from '../../src/a2a/index.js';
import { JetStreamStore } from '../../src/index.js';
import { wireProblems } from '../helpers/a2a.js';
import { finished, spawnCli, type CliResult } from '../helpers/cli.js';
import { natsClusterOfBlock } from '../helpers/nats-cluster.js';
import { describeEachNatsServer } from '../helpers/nats-server.js';
import { startServe, type ServeProcess } from '../helpers/serve.js';
import { STREAMS, addTaskStreams, agentConfig, jsonLines, sentRequest, shTool, until } from '../helpers/tasks.js';
import { tempDir } from '../helpers/tmp.js';

describeEachNatsServer('tasks on a cluster whose servers die', (binary) => {
  const { cluster, start } = natsClusterOfBlock();
  start(binary);
  const dir = tempDir('logbook-task-failover-');
  let made = false;
  const serving: ServeProcess[] = [];

  afterEach(async () => {
    await Promise.all(serving.splice(0).map((s) => s.stop('SIGKILL')));
  });

  async function ready(): Promise<void> {
    if (!made) await addTaskStreams((c) => cluster().addStream(c), 3);
    made = true;
  }

  /** Two instances of `config`'s identity, each with a script log of its own. */
  async function twoInstances(config: string, name: string): Promise<{ a: ServeProcess; b: ServeProcess; logs: string[] }> {
    const logs = [join(dir, `${name}.a.log`), join(dir, `${name}.b.log`)];
    const [a, b] = await Promise.all(logs.map((log) => startServe(config, { cwd: dir, env: { LOGBOOK_SCRIPT_LOG: log } })));
    serving.push(a!, b!);
    return { a: a!, b: b!, logs };
  }

  /** `logbook ask --json` in the background: its request once said, and its end. */
  function askInBackground(identity: string, prompt: string): { id: () => string | null; done: Promise<CliResult> } {
    const caller = agentConfig(dir, 'caller', { identity: 'caller', url: cluster().urls, turns: [{ text: 'unused' }] });
    const child = spawnCli(['ask', '--config', caller, '--json', identity, prompt], { cwd: dir });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    return { id: () => sentRequest(err), done: finished(child, 120_000) };
  }

  const turnsAsked = (logs: string[]): number[] =>
    logs.flatMap((log) => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).map((l) => (JSON.parse(l) as { turn: number }).turn) : []));

  /** The instance that took task `id`, once one says so. */
  async function runner(instances: ServeProcess[], id: () => string | null): Promise<ServeProcess> {
    let found: ServeProcess | undefined;
    await until('an instance to take the task', () => {
      const request = id();
      found = request === null ? undefined : instances.find((s) => s.stderr().includes(`task ${request} from caller: run`));
      return found !== undefined;
    }, 60_000);
    return found!;
  }

  /**
   * What the caller read holds each sequence once, from 1, and is exactly the
   * projection of the run's journal as it ended (ids and times aside).
   */
  async function expectWholeStream(stdout: string, identity: string): Promise<Record<string, any>[]> {
    const events = jsonLines(stdout);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(wireProblems(stdout.trim().split('\n'))).toEqual([]);
    const request = events[0]!.request as string;
    const store = await JetStreamStore.connect({ stream: STREAMS.runs, nats: { url: cluster().urls } });
    try {
      const records = (await store.load(`task-${identity}-${request}`)).records;
      const header = { request, conversation: request, sequence: 0, sender: { name: 'caller' } } as unknown as RequestMessage;
      const strip = (body: string): string => body.replace(/"id":"[^"]+",/, '').replace(/"time":"[^"]+",/, '');
      const projected = taskEvents(records, { ownFrom: 2 }).map((e) => strip(encodeMessage(stampTaskReply(e.kind, e.body as never, header, e.sequence, identity))));
      expect(stdout.trim().split('\n').map(strip)).toEqual(projected);
    } finally {
      await store.close();
    }
    return events;
  }

  it('an instance killed in the middle of a model call: the other finishes the task, no journaled turn asked again', async () => {
    await ready();
    const config = agentConfig(dir, 'f1', {
      identity: 'f1',
      url: cluster().urls,
      turns: [{ text: 'First, echo.', tool_calls: [{ name: 'echo', input: { text: 'one' } }] }, { text: 'Thought it over: done.', delay_ms: 3_000 }],
      more: `expose: { task_ack_wait: 2 }\ntools:\n${shTool('echo', 'printf %s "$1"', { args: ['text'] })}`,
    });
    const { a, b, logs } = await twoInstances(config, 'f1');
    const ask = askInBackground('f1', 'Echo, then think');
    const running = await runner([a, b], ask.id);
    const log = logs[running === a ? 0 : 1]!;
    await until('the second model call to start', () => turnsAsked([log]).includes(1));
    await running.stop('SIGKILL');
    const other = running === a ? b : a;
    const r = await ask.done;
    expect(r.stderr).not.toMatch(/logbook: /);
    expect(r.code).toBe(0);
    const events = await expectWholeStream(r.stdout, 'f1');
    expect(events.at(-1)).toMatchObject({ stop_reason: 'end_turn', text: 'Thought it over: done.' });
    expect(other.stderr()).toMatch(new RegExp(`task ${ask.id()} from caller: taking over run task-f1-${ask.id()} \\(delivery 2\\)`));
    // The journaled turn was asked once; only the one cut short was asked again.
    expect(turnsAsked(logs).sort()).toEqual([0, 1, 1]);
  }, 120_000);

  it('an instance killed in the middle of a tool batch: the other runs only the calls without a result', async () => {
    await ready();
    const marks = join(dir, 'f2-marks');
    const config = agentConfig(dir, 'f2', {
      identity: 'f2',
      url: cluster().urls,
      turns: [{ text: 'Two steps.', tool_calls: [{ name: 'count', input: {} }, { name: 'slow', input: {} }] }, { text: 'Both done.' }],
      more:
        `expose: { task_ack_wait: 2 }\ntools:\n` +
        shTool('count', `mkdir -p ${marks}; echo x >> ${marks}/count; echo counted`) +
        shTool('slow', `mkdir -p ${marks}; echo x >> ${marks}/slow; sleep 4; echo slept`),
    });
    const { a, b, logs } = await twoInstances(config, 'f2');
    const ask = askInBackground('f2', 'Count, then wait');
    const running = await runner([a, b], ask.id);
    await until('the slow call to start', () => existsSync(join(marks, 'slow')));
    await running.stop('SIGKILL');
    const r = await ask.done;
    expect(r.code).toBe(0);
    const events = await expectWholeStream(r.stdout, 'f2');
    expect(events.filter((e) => e.block?.type === 'tool_result').map((e) => e.block.output)).toEqual(['counted\n', 'slept\n']);
    expect(readFileSync(join(marks, 'count'), 'utf8')).toBe('x\n'); // answered: not run again
    expect(readFileSync(join(marks, 'slow'), 'utf8')).toBe('x\nx\n'); // cut short, no side effects: run again
    expect(turnsAsked(logs).sort()).toEqual([0, 1]);
  }, 120_000);

  it("the events stream's leader killed while a task runs: the task goes on, its stream whole", async () => {
    await ready();
    const config = agentConfig(dir, 'f3', {
      identity: 'f3',
      url: cluster().urls,
      turns: [
        { text: 'Step one.', tool_calls: [{ name: 'pause', input: {} }] },
        { text: 'Step two.', tool_calls: [{ name: 'pause', input: {} }] },
        { text: 'All steps done.' },
      ],
      more: `expose: { task_ack_wait: 2 }\ntools:\n${shTool('pause', 'sleep 1; echo paused')}`,
    });
    const s = await startServe(config, { cwd: dir });
    serving.push(s);
    const ask = askInBackground('f3', 'Take two steps');
    await runner([s], ask.id);
    const leader = await cluster().streamLeader(STREAMS.events);
    await cluster().kill(leader);
    try {
      const r = await ask.done;
      expect(r.code).toBe(0);
      const events = await expectWholeStream(r.stdout, 'f3');
      expect(events.at(-1)).toMatchObject({ stop_reason: 'end_turn', text: 'All steps done.' });
      await s.waitFor(new RegExp(`task ${ask.id()} ended completed`));
    } finally {
      await cluster().restart(leader);
    }
  }, 120_000);
});
