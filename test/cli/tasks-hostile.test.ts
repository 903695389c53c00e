/**
 * Tasks over NATS meeting hostile or awkward input, through the binary, on a
 * real nats-server: text the wire escapes six times over (`<`, `>`, `&`) is
 * cut to what a body may carry and the task is answered; a request whose
 * header could not be echoed in any reply is refused at the door and
 * acknowledged, never run.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterEach, expect, it } from 'vitest';
import { A2AClient } from '../../src/a2a/client.js';
import { newMessageId, stampTaskRequest } from '../../src/a2a/index.js';
import { JetStreamStore } from '../../src/index.js';
import { wireProblems } from '../helpers/a2a.js';
import { runCli } from '../helpers/cli.js';
import { describeEachNatsServer, natsServerOfBlock } from '../helpers/nats-server.js';
import { startServe, type ServeProcess } from '../helpers/serve.js';
import { STREAMS, addStreamAt, addTaskStreams, agentConfig, jsonLines, sentRequest, shTool, until } from '../helpers/tasks.js';
import { tempDir } from '../helpers/tmp.js';

const CUT = "[cut: the rest is in the run's journal]";

describeEachNatsServer('tasks meeting hostile input', (binary) => {
  const { server, start } = natsServerOfBlock();
  start({ binary });
  const dir = tempDir('logbook-tasks-hostile-');
  let streamsMade = false;
  const serving: ServeProcess[] = [];

  async function ready(): Promise<void> {
    if (streamsMade) return;
    await addTaskStreams((c) => addStreamAt(server().url, c));
    streamsMade = true;
  }

  afterEach(async () => {
    await Promise.all(serving.splice(0).map((s) => s.stop('SIGKILL')));
  });

  async function serve(config: string, args: string[] = []): Promise<ServeProcess> {
    const s = await startServe(config, { cwd: dir, args });
    serving.push(s);
    return s;
  }

  const caller = () => agentConfig(dir, 'caller', { identity: 'caller', url: server().url, turns: [{ text: 'unused' }] });
  const ask = (args: string[]) => runCli(['ask', '--config', caller(), ...args], { cwd: dir, timeoutMs: 60_000 });

  it('output of <, > and & the wire escapes to six bytes each is cut to fit, and the task is answered', async () => {
    await ready();
    const config = agentConfig(dir, 'h1', {
      identity: 'h1',
      url: server().url,
      turns: [{ text: 'A table.', tool_calls: [{ name: 'table', input: {} }] }, { text: '<'.repeat(140_000) }],
      more: `tools:\n${shTool('table', `head -c 150000 /dev/zero | tr '\\000' '<'`)}    max_output: 1000000\n`,
    });
    await serve(config);
    const r = await ask(['h1', '--json', 'Show the table']);
    expect(r.stderr).not.toMatch(/logbook: /);
    expect(r.code).toBe(0);
    const events = jsonLines(r.stdout);
    const output = events.find((e) => e.block?.type === 'tool_result')!.block.output as string;
    expect(output.endsWith(CUT)).toBe(true);
    expect(output.slice(0, 1000)).toBe('<'.repeat(1000));
    const end = events.at(-1)!;
    expect(end).toMatchObject({ stop_reason: 'end_turn' });
    expect((end.text as string).endsWith(CUT)).toBe(true);
    expect(wireProblems(r.stdout.trim().split('\n'))).toEqual([]);
  }, 90_000);

  it('an event no body can carry (a tool name of 140,000 <) ends the task with an error, and its message is acknowledged', async () => {
    await ready();
    const config = agentConfig(dir, 'h2', {
      identity: 'h2',
      url: server().url,
      turns: [{ text: 'Calling.', tool_calls: [{ name: '<'.repeat(140_000), input: {} }] }, { text: 'Never read.' }],
    });
    const s = await serve(config);
    const r = await ask(['h2', '--json', 'Call it']);
    const id = sentRequest(r.stderr)!;
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBeNull();
    const events = jsonLines(r.stdout);
    expect(events.at(-1)).toMatchObject({ stop_reason: 'error' });
    expect(events.at(-1)!.error).toMatch(/^event 4 of task \S+ cannot be sent \(the body is \d+ bytes, over the limit/);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    await s.waitFor(new RegExp(`task ${id} ended error: an event could not be sent`));
    await untilQueueEmpty();
  }, 90_000);

  it.each([
    ['parent', { parent: '<'.repeat(200_000) }],
    ['conversation', { conversation: '<'.repeat(200_000) }],
  ])('a request whose %s no reply can echo is refused at the door, acknowledged, and never run', async (field, address) => {
    await ready();
    const identity = `h3${field}`;
    const log = join(dir, `${identity}.script.log`);
    const config = agentConfig(dir, identity, { identity, url: server().url, turns: [{ text: 'Paid for.' }] });
    const s = await startServe(config, { cwd: dir, env: { LOGBOOK_SCRIPT_LOG: log } });
    serving.push(s);
    const request = stampTaskRequest({ prompt: 'Hello' }, { id: newMessageId(), sender: 'caller', recipient: identity, ...address });
    const nc = await connect({ servers: server().url });
    try {
      // As a hostile sender writes it: each < one byte (the wire's own encoder would write six).
      await jetstream(nc).publish(`choria.fisk-ai.task.${identity}`, JSON.stringify(request));
    } finally {
      await nc.close();
    }
    await s.waitFor(new RegExp(`task ${request.id} from caller refused: its header .* takes more than the 8 KiB`));
    await untilQueueEmpty();
    expect(existsSync(log)).toBe(false); // no model call was made
    const store = await JetStreamStore.connect({ stream: STREAMS.runs, nats: { url: server().url } });
    try {
      expect(await store.has(`task-${identity}-${request.id}`)).toBe(false);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('serve refuses at its start a config run refuses at once (thinking: summarized with max_tokens: 512), before it takes a task', async () => {
    await ready();
    const config = join(dir, 'h4.yaml');
    writeFileSync(
      config,
      `provider: anthropic\nmodel: claude-test\nmax_tokens: 512\nthinking: summarized\n` +
        `a2a: { identity: h4 }\nnats: { url: "${server().url}" }\nsession: { backend: jetstream, options: { stream: ${STREAMS.runs} } }\n`,
    );
    const env = { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' };
    const served = await runCli(['serve', '--config', config], { cwd: dir, env, timeoutMs: 20_000 });
    expect(served.stderr).toContain(`logbook: ${config}: anthropic: thinking "summarized" needs max_tokens above 1024, it is 512`);
    expect(served.code).toBe(1);
    expect(served.stderr).not.toMatch(/serving /);
  }, 30_000);

  it('agents ls skips and names each answer to $SRV.INFO it cannot read, and lists the agents that answered well', async () => {
    await ready();
    await serve(agentConfig(dir, 'h5', { identity: 'h5', url: server().url, turns: [{ text: 'unused' }] }));
    const nc = await connect({ servers: server().url });
    try {
      for (const answer of ['not json', 'null', JSON.stringify({ name: 'bad', id: 'b1', version: '1', endpoints: 'str' })]) {
        nc.subscribe('$SRV.INFO', { callback: (_err, msg) => void msg.respond(answer) });
      }
      await nc.flush();
      const r = await runCli(['agents', 'ls', '--config', caller()], { cwd: dir, timeoutMs: 30_000 });
      expect(r.stderr).not.toMatch(/logbook: /);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^h5 +1 /m);
      const warnings = r.stderr.split('\n').filter((l) => l.startsWith('warning: skipped an answer to $SRV.INFO: '));
      expect(warnings.map((w) => w.replace('warning: skipped an answer to $SRV.INFO: ', '')).sort()).toEqual([
        'an answer is not a JSON object (null)',
        'an answer of 8 bytes is not JSON',
        'the answer of service "bad" (instance "b1") has endpoints that are not a list',
      ]);
    } finally {
      await nc.close();
    }
  }, 60_000);

  it('served calls whose callers gave up while they waited for a slot are dropped unrun, and a full queue is refused as busy', async () => {
    await ready();
    const marks = join(dir, 'h6-marks');
    const config = agentConfig(dir, 'h6', {
      identity: 'h6',
      url: server().url,
      turns: [{ text: 'unused' }],
      more: `expose: { max_concurrent_tools: 1, tasks: false }\ntools:\n${shTool('slow', `echo x >> ${marks}; sleep 1.5; echo done`, { sideEffects: true })}`,
    });
    const s = await serve(config);
    const nc = await connect({ servers: server().url });
    try {
      const client = new A2AClient(nc, 'caller');
      // Five callers that wait 2 s each: the third in line cannot start before 3 s, long after its caller gave up.
      await Promise.allSettled(Array.from({ length: 5 }, () => client.callTool('h6', 'slow', undefined, { timeoutMs: 2_000 })));
      const settled = (pattern: RegExp): number => (s.stderr().match(pattern) ?? []).length;
      await until('every call to be run or dropped', () => settled(/tool slow from caller: (exit 0|dropped)/g) >= 5, 20_000);
      expect(settled(/tool slow from caller: dropped: it waited \d+ ms for a slot, past its caller's 2 s: not run/g)).toBeGreaterThanOrEqual(3);
      expect(readFileSync(marks, 'utf8').split('\n').filter(Boolean).length).toBe(settled(/tool slow from caller: exit 0/g));

      // One running, eight waiting: the rest are told at once that the agent is busy.
      const quick = await Promise.all(Array.from({ length: 14 }, () => client.callTool('h6', 'slow', undefined, { timeoutMs: 1_000 }).catch((e: Error) => e)));
      const busy = quick.filter((r) => !(r instanceof Error) && r.is_error === true && /^agent h6 is busy: 8 calls wait for its 1 slot/.test(r.output ?? ''));
      expect(busy.length).toBeGreaterThanOrEqual(5);
    } finally {
      await nc.close();
    }
  }, 60_000);

  it('serve --concurrency 1024 pulls within what the consumer allows: no pull is refused, and tasks are served', async () => {
    await ready();
    const config = agentConfig(dir, 'h7', { identity: 'h7', url: server().url, turns: [{ text: 'Served.' }] });
    const s = await serve(config, ['--concurrency', '1024']);
    const r = await ask(['h7', '--json', 'Hello']);
    expect(r.code).toBe(0);
    expect(jsonLines(r.stdout).at(-1)).toMatchObject({ stop_reason: 'end_turn', text: 'Served.' });
    await s.waitFor(/task \S+ ended completed/);
    expect(s.stderr()).not.toMatch(/maxwaiting|cannot take tasks/i);
  }, 60_000);

  it("a served tool's output of < the wire escapes to six bytes each is cut to fit its reply, marked truncated", async () => {
    await ready();
    const config = agentConfig(dir, 'h8', {
      identity: 'h8',
      url: server().url,
      turns: [{ text: 'unused' }],
      more: `expose: { tasks: false }\ntools:\n${shTool('table', `head -c 150000 /dev/zero | tr '\\000' '<'`)}    max_output: 1000000\n`,
    });
    await serve(config);
    const nc = await connect({ servers: server().url });
    try {
      const reply = await new A2AClient(nc, 'caller').callTool('h8', 'table', undefined, { timeoutMs: 20_000 });
      expect(reply.is_error).toBeUndefined();
      expect(reply.exec).toMatchObject({ truncated: true });
      expect(reply.output!.startsWith('<'.repeat(1000))).toBe(true);
      expect(reply.output!.endsWith('[cut: the rest of the output did not fit in a reply]')).toBe(true);
    } finally {
      await nc.close();
    }
  }, 60_000);

  /** Waits until the work queue holds no message: every one was acknowledged. */
  async function untilQueueEmpty(): Promise<void> {
    const nc = await connect({ servers: server().url });
    try {
      const jsm = await jetstreamManager(nc);
      await until('the work queue to be empty', async () => (await jsm.streams.info(STREAMS.tasks)).state.messages === 0, 20_000);
    } finally {
      await nc.close();
    }
  }
});
