/**
 * Tasks between senders under NATS permissions, through the binary, on a real
 * nats-server whose users have the rights docs/operations.md gives: a sender
 * may publish only on its own cancel subject, and read only its own tasks'
 * events (a consumer filtered on its own events subject). Another sender's
 * forged cancels are refused (by the NATS server on the spec's subject, by
 * `serve` on the forger's own subject, the task not being its), it cannot
 * read the task's events, and the task's sender reads them and cancels it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { jetstream, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { encodeMessage, newMessageId, stampCancel, stampTaskRequest } from '../../src/a2a/index.js';
import { finished, runCli, spawnCli } from '../helpers/cli.js';
import { useNatsServer } from '../helpers/nats-server.js';
import { startServe } from '../helpers/serve.js';
import { addTaskStreams, agentConfig, jsonLines, sentRequest, shTool, storedEvents, until } from '../helpers/tasks.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * A sender's rights, as docs/operations.md gives them: send tasks to p1, cancel
 * on its own subject, ask p1's service what it supports, and read the events
 * of its own tasks alone (consumers filtered on its own events subject, and
 * their pulls), nothing of the streams' other messages.
 */
const sender = (name: string, publish: string[]) => {
  const allow = [
    ...publish,
    '"choria.fisk-ai.cancel.p1.' + name + '"',
    '"$SRV.INFO.p1"',
    '"$JS.API.STREAM.INFO.A2A_TASKS"',
    '"$JS.API.STREAM.INFO.A2A_EVENTS"',
    '"$JS.API.CONSUMER.INFO.A2A_TASKS.p1"',
    '"$JS.API.CONSUMER.CREATE.A2A_EVENTS.*.choria.fisk-ai.events.' + name + '.>"',
    '"$JS.API.CONSUMER.MSG.NEXT.A2A_EVENTS.*"',
    '"$JS.API.CONSUMER.INFO.A2A_EVENTS.*"',
    '"$JS.API.CONSUMER.DELETE.A2A_EVENTS.*"',
  ];
  return `{ user: ${name}, password: pw, permissions: { publish: { allow: [${allow.join(', ')}] }, subscribe: { allow: ["_INBOX.>"] } } }`;
};
/** The agent p1's users: the operator's (streams), p1's serve (as docs/operations.md gives it), and two senders. */
const CONFIG = `authorization {
  users = [
    { user: operator, password: pw },
    { user: p1, password: pw, permissions: {
        publish: { allow: ["choria.fisk-ai.events.>", "$JS.API.>", "$JS.ACK.A2A_TASKS.p1.>", "logbook.>"] },
        subscribe: { allow: ["choria.fisk-ai.cancel.p1", "choria.fisk-ai.cancel.p1.*", "choria.fisk-ai.discovery.p1", "choria.fisk-ai.tool.p1", "_INBOX.>", "$SRV.>"] },
        allow_responses: true } },
    ${sender('caller', ['"choria.fisk-ai.task.p1"'])},
    ${sender('mallory', [])}
  ]
}
`;

/** What the NATS server refuses `run` with, as the refused request's error says it. */
async function refusal(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (err) {
    return String((err as Error).message);
  }
  return 'not refused';
}

const { enabled, server } = useNatsServer({ config: CONFIG });

describe.runIf(enabled)('cancels under NATS permissions', () => {
  const dir = tempDir('logbook-task-cancel-permissions-');
  const url = (user: string) => server().url.replace('nats://', `nats://${user}:pw@`);
  const operator = () => ({ servers: server().url, user: 'operator', pass: 'pw' });

  it("a sender reads its own task's events alone, another's forged cancels are refused, and the task's sender cancels it; a request without the header has its events on the spec's subject", async () => {
    const admin = await connect({ servers: server().url, user: 'operator', pass: 'pw' });
    try {
      const jsm = await jetstreamManager(admin);
      await addTaskStreams(async (c) => void (await jsm.streams.add(c)));
    } finally {
      await admin.close();
    }
    const marks = join(dir, 'started');
    const config = agentConfig(dir, 'p1', {
      identity: 'p1',
      url: url('p1'),
      turns: [{ text: 'Working.', tool_calls: [{ name: 'slow', input: {} }] }, { text: 'Done.' }],
      // Slow the first time (the task to cancel), quick after.
      more: `tools:\n${shTool('slow', `if [ -e ${marks} ]; then echo quick; else touch ${marks}; sleep 30; echo slept; fi`)}`,
    });
    const serving = await startServe(config, { cwd: dir });
    try {
      const caller = agentConfig(dir, 'caller', { identity: 'caller', url: url('caller'), turns: [{ text: 'unused' }] });
      const mallory = agentConfig(dir, 'mallory', { identity: 'mallory', url: url('mallory'), turns: [{ text: 'unused' }] });
      const child = spawnCli(['ask', '--config', caller, '--json', 'p1', 'Take your time'], { cwd: dir });
      let err = '';
      child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
      const asked = finished(child, 60_000);
      await until('the tool to start', () => existsSync(marks));
      const id = sentRequest(err)!;

      // On its own subject, as `tasks cancel` sends it: serve refuses it, the task not being mallory's.
      const forged = await runCli(['tasks', 'cancel', 'p1', id, '--config', mallory, '--wait', '0'], { cwd: dir, timeoutMs: 30_000 });
      expect([forged.code, forged.stderr]).toEqual([0, `cancel of task ${id} sent to agent p1\n`]);
      await serving.waitFor(new RegExp(`task ${id}: cancel from mallory refused: task ${id} was sent by caller, and only its sender may cancel it`));
      // The task's events are on the caller's subject; mallory can read none of them.
      const nc = await connect({ servers: server().url, user: 'mallory', pass: 'pw' });
      const jsm: JetStreamManager = await jetstreamManager(nc, { checkAPI: false });
      const theirs = `choria.fisk-ai.events.caller.${id}`;
      const denied = /permissions violation/i;
      // A consumer filtered on them, as a reader makes one (the filter in the API subject)...
      expect(await refusal(() => jsm.consumers.add('A2A_EVENTS', { name: 'peek', filter_subject: theirs, ack_policy: 'none' }))).toMatch(denied);
      // ...or with the filter in the body alone, or on every subject...
      expect(await refusal(() => jsm.consumers.add('A2A_EVENTS', { filter_subject: theirs, ack_policy: 'none' }))).toMatch(denied);
      expect(await refusal(() => jsm.consumers.add('A2A_EVENTS', { name: 'peek', ack_policy: 'none' }))).toMatch(denied);
      // ...or one whose API subject names mallory's own events and whose body names the caller's (the server checks they agree)...
      const mismatch = await nc.request(
        `$JS.API.CONSUMER.CREATE.A2A_EVENTS.peek.choria.fisk-ai.events.mallory.>`,
        JSON.stringify({ stream_name: 'A2A_EVENTS', config: { name: 'peek', filter_subject: theirs, ack_policy: 'none' } }),
      );
      expect(JSON.parse(new TextDecoder().decode(mismatch.data)).error?.description).toMatch(/filter/i);
      // ...or a message got from the stream.
      expect(await refusal(() => jsm.streams.getMessage('A2A_EVENTS', { last_by_subj: theirs }))).toMatch(denied);
      expect((await storedEvents(operator(), id, 'caller')).length).toBeGreaterThan(0);

      // On the spec's subject, naming the task's sender: the NATS server refuses the publish.
      const violations: string[] = [];
      void (async () => {
        for await (const s of nc.status()) if (s.type === 'error') violations.push(String((s as { error?: unknown }).error ?? ''));
      })();
      nc.publish('choria.fisk-ai.cancel.p1', encodeMessage(stampCancel({ reason: 'forged' }, { request: id }, 'caller', 'p1')));
      await until('the publish to be refused', () => violations.some((d) => /Permissions Violation for Publish to "choria.fisk-ai.cancel.p1"/i.test(d)), 10_000);
      await nc.close();
      expect(serving.stderr()).not.toMatch(/canceled by/);

      const canceled = await runCli(['tasks', 'cancel', 'p1', id, '--config', caller, '--reason', 'changed my mind'], { cwd: dir, timeoutMs: 30_000 });
      expect(canceled.stderr).toMatch(new RegExp(`task ${id} canceled: `));
      expect(canceled.code).toBe(0);
      const end = jsonLines((await asked).stdout).at(-1)!;
      expect(end).toMatchObject({ stop_reason: 'canceled', code: 'canceled' });
      expect(end.error).toMatch(/caller/);
      expect(end.error).not.toMatch(/mallory|forged/);

      // A request that does not ask for its events on its sender's subject (no header, as an older caller sends it) has them on the spec's.
      const admin = await connect({ servers: server().url, user: 'operator', pass: 'pw' });
      const plain = stampTaskRequest({ prompt: 'Quickly' }, { id: newMessageId(), sender: 'operator', recipient: 'p1' });
      try {
        await jetstream(admin).publish('choria.fisk-ai.task.p1', encodeMessage(plain), { msgID: plain.id });
      } finally {
        await admin.close();
      }
      await serving.waitFor(new RegExp(`task ${plain.id} ended completed`));
      const spec = (await storedEvents(operator(), plain.id)).map((b) => JSON.parse(b) as { protocol: string; stop_reason?: string });
      expect(spec.at(-1)).toMatchObject({ protocol: 'io.choria.fisk-ai.v1.result', stop_reason: 'end_turn' });
      expect(await storedEvents(operator(), plain.id, 'operator')).toEqual([]);
    } finally {
      await serving.stop('SIGKILL');
    }
  }, 90_000);
});
