/**
 * A task's request published again while the task runs (any sender may, and
 * once the stream's duplicate window has passed it is a second message of the
 * work queue): through the binary, two `logbook serve` instances of one
 * identity on a real nats-server, a side-effect tool of a few seconds running
 * when the copy arrives. The copy is no takeover: the instance given it drops
 * it, the tool runs once, its result is journaled, and the caller gets the
 * task's answer.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterEach, expect, it } from 'vitest';
import { JetStreamStore } from '../../src/index.js';
import { finished, spawnCli } from '../helpers/cli.js';
import { describeEachNatsServer, natsServerOfBlock } from '../helpers/nats-server.js';
import { startServe, type ServeProcess } from '../helpers/serve.js';
import { STREAMS, addStreamAt, addTaskStreams, agentConfig, jsonLines, sentRequest, shTool, until } from '../helpers/tasks.js';
import { tempDir } from '../helpers/tmp.js';

describeEachNatsServer('a task request published again', (binary) => {
  const { server, start } = natsServerOfBlock();
  start({ binary });
  const dir = tempDir('logbook-task-replay-');
  const serving: ServeProcess[] = [];

  afterEach(async () => {
    await Promise.all(serving.splice(0).map((s) => s.stop('SIGKILL')));
  });

  it('while another instance runs it: the copy is dropped, the side-effect tool runs once, the caller gets the answer', async () => {
    await addTaskStreams((c) => addStreamAt(server().url, c));
    const marks = join(dir, 'slow-marks');
    const config = agentConfig(dir, 'r1', {
      identity: 'r1',
      url: server().url,
      turns: [{ text: 'Working.', tool_calls: [{ name: 'slow', input: {} }] }, { text: 'Done.' }],
      more: `expose: { task_ack_wait: 2 }\ntools:\n${shTool('slow', `echo x >> ${marks}; sleep 4; echo slept`, { sideEffects: true })}`,
    });
    const [a, b] = await Promise.all([startServe(config, { cwd: dir }), startServe(config, { cwd: dir })]);
    serving.push(a!, b!);
    const caller = agentConfig(dir, 'caller', { identity: 'caller', url: server().url, turns: [{ text: 'unused' }] });
    const child = spawnCli(['ask', '--config', caller, '--json', 'r1', 'Do the slow thing'], { cwd: dir });
    let err = '';
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const done = finished(child, 90_000);
    await until('the slow tool to start', () => existsSync(marks), 60_000);
    const id = sentRequest(err)!;

    // The same request again, as a second message of the work queue (no message id: past the duplicate window).
    const nc = await connect({ servers: server().url });
    try {
      const jsm = await jetstreamManager(nc);
      const queued = await jsm.streams.getMessage(STREAMS.tasks, { last_by_subj: 'choria.fisk-ai.task.r1' });
      await jetstream(nc).publish('choria.fisk-ai.task.r1', queued!.data);
    } finally {
      await nc.close();
    }

    const r = await done;
    expect(r.stderr).not.toMatch(/logbook: /);
    expect(r.code).toBe(0);
    const events = jsonLines(r.stdout);
    expect(events.filter((e) => e.block?.type === 'tool_result').map((e) => e.block.output)).toEqual(['slept\n']);
    expect(events.at(-1)).toMatchObject({ stop_reason: 'end_turn', text: 'Done.' });
    expect(readFileSync(marks, 'utf8')).toBe('x\n');
    // One instance ran it; the copy was dropped by whichever instance was given it, and both messages are settled.
    await until('the copy to be dropped', () => [a!, b!].some((s) => s.stderr().includes(`task ${id}: a copy of its request`)));
    expect([a!, b!].map((s) => s.stderr()).join('\n')).not.toMatch(/taking over/);
    const store = await JetStreamStore.connect({ stream: STREAMS.runs, nats: { url: server().url } });
    try {
      const records = (await store.load(`task-r1-${id}`)).records;
      expect(records.filter((rec) => 'tool_result' in rec)).toHaveLength(1);
      expect(records.at(-1)).toMatchObject({ terminal: { reason: 'completed' } });
    } finally {
      await store.close();
    }
    const nc2 = await connect({ servers: server().url });
    try {
      const jsm = await jetstreamManager(nc2);
      await until('the work queue to be empty', async () => (await jsm.streams.info(STREAMS.tasks)).state.messages === 0);
    } finally {
      await nc2.close();
    }
  }, 120_000);
});
