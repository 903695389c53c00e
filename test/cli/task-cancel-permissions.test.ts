/**
 * Cancels under NATS permissions, through the binary, on a real nats-server
 * whose users have the rights docs/operations.md gives: a sender may publish
 * only on its own cancel subject. Another sender's forged cancels are refused
 * (by the NATS server on the spec's subject, by `serve` on the forger's own
 * subject, the task not being its), and the task's sender cancels it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import { encodeMessage, stampCancel } from '../../src/a2a/index.js';
import { finished, runCli, spawnCli } from '../helpers/cli.js';
import { useNatsServer } from '../helpers/nats-server.js';
import { startServe } from '../helpers/serve.js';
import { addTaskStreams, agentConfig, jsonLines, sentRequest, shTool, until } from '../helpers/tasks.js';
import { tempDir } from '../helpers/tmp.js';

/** The agent p1's users: the operator's (serving, streams), and two senders, each allowed its own cancel subject alone. */
const sender = (name: string, publish: string[]) =>
  `{ user: ${name}, password: pw, permissions: { publish: { allow: [${[...publish, '"$JS.API.>"'].join(', ')}] }, subscribe: { allow: ["_INBOX.>"] } } }`;
const CONFIG = `authorization {
  users = [
    { user: operator, password: pw },
    ${sender('caller', ['"choria.fisk-ai.task.p1"', '"choria.fisk-ai.cancel.p1.caller"'])},
    ${sender('mallory', ['"choria.fisk-ai.cancel.p1.mallory"'])}
  ]
}
`;

const { enabled, server } = useNatsServer({ config: CONFIG });

describe.runIf(enabled)('cancels under NATS permissions', () => {
  const dir = tempDir('logbook-task-cancel-permissions-');
  const url = (user: string) => server().url.replace('nats://', `nats://${user}:pw@`);

  it("another sender's forged cancels are refused, and the task's sender cancels it", async () => {
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
      url: url('operator'),
      turns: [{ text: 'Working.', tool_calls: [{ name: 'slow', input: {} }] }, { text: 'Done.' }],
      more: `tools:\n${shTool('slow', `touch ${marks}; sleep 30; echo slept`)}`,
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
      expect(forged.code).toBe(0);
      await serving.waitFor(new RegExp(`task ${id}: cancel from mallory refused: task ${id} was sent by caller, and only its sender may cancel it`));
      // On the spec's subject, naming the task's sender: the NATS server refuses the publish.
      const nc = await connect({ servers: server().url, user: 'mallory', pass: 'pw' });
      const denied: string[] = [];
      void (async () => {
        for await (const s of nc.status()) if (s.type === 'error') denied.push(String((s as { error?: unknown }).error ?? ''));
      })();
      nc.publish('choria.fisk-ai.cancel.p1', encodeMessage(stampCancel({ reason: 'forged' }, { request: id }, 'caller', 'p1')));
      await until('the publish to be refused', () => denied.some((d) => /Permissions Violation for Publish to "choria.fisk-ai.cancel.p1"/i.test(d)), 10_000);
      await nc.close();
      expect(serving.stderr()).not.toMatch(/canceled by/);

      const canceled = await runCli(['tasks', 'cancel', 'p1', id, '--config', caller, '--reason', 'changed my mind'], { cwd: dir, timeoutMs: 30_000 });
      expect(canceled.stderr).toMatch(new RegExp(`task ${id} canceled: `));
      expect(canceled.code).toBe(0);
      const end = jsonLines((await asked).stdout).at(-1)!;
      expect(end).toMatchObject({ stop_reason: 'canceled', code: 'canceled' });
      expect(end.error).toMatch(/caller/);
      expect(end.error).not.toMatch(/mallory|forged/);
    } finally {
      await serving.stop('SIGKILL');
    }
  }, 90_000);
});
