/**
 * The JetStream store when the network or the server fails: lost acks are
 * adopted, a stopped server fails appends cleanly, and a restarted one resumes
 * with nothing lost or duplicated. Against a real nats-server this file starts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JetStreamStore, type Journal } from '../../../src/index.js';
import { addStream, journalStream } from '../../helpers/jetstream.js';
import { caught as failure } from '../../helpers/errors.js';
import { describeEachNatsServer, natsServerOfBlock } from '../../helpers/nats-server.js';
import { assistant, at, completed, meta, toolResult } from '../../helpers/records.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';

const nats = natsServerOfBlock();
const TIMEOUT_MS = 1500;
let streams = 0;

/** A new journal stream; returns its name. */
async function newStream(overrides: Record<string, unknown> = {}): Promise<{ stream: string; prefix: string }> {
  const stream = `FAIL_${streams++}`;
  const prefix = `fail${streams}.runs`;
  await addStream(nats.server().url, { ...journalStream(stream, prefix), ...overrides });
  return { stream, prefix };
}

function seqs(records: { seq: number }[]): number[] {
  return records.map((r) => r.seq);
}

describeEachNatsServer('jetstream store failures', (binary) => {
  nats.start({ binary });
  describe('lost acks', () => {
    let proxy: TcpProxy;
    beforeAll(async () => {
      proxy = await startTcpProxy(nats.server().port);
    });
    afterAll(async () => {
      await proxy.close();
    });

    it('adopts a record whose ack was lost, in the same append', async () => {
      const { stream, prefix } = await newStream();
      const store = await JetStreamStore.connect({ stream, nats: { url: proxy.url }, timeoutMs: TIMEOUT_MS });
      const j = await store.create('lost', meta('lost'));
      await j.append(at(2, assistant(0, ['t1'])));
      const cut = proxy.dropAckOf(`${prefix}.lost.3`);
      await j.append(at(3, toolResult('t1')));
      await cut; // the ack really was dropped
      expect(j.lastSeq).toBe(3);
      await j.append(at(4, completed));
      await j.close();
      const loaded = await store.load('lost');
      expect(seqs(loaded.records)).toEqual([1, 2, 3, 4]);
      await store.close();
    });

    it('adopts a lost meta ack on create rather than calling the run taken', async () => {
      const { stream, prefix } = await newStream();
      const store = await JetStreamStore.connect({ stream, nats: { url: proxy.url }, timeoutMs: TIMEOUT_MS });
      const cut = proxy.dropAckOf(`${prefix}.born._meta`);
      const j = await store.create('born', meta('born'));
      await cut;
      expect(j.lastSeq).toBe(1);
      await j.close();
      await store.close();
    });

    it('fails cleanly when it cannot find out, and adopts the record when the append is retried', async () => {
      const { stream, prefix } = await newStream();
      const store = await JetStreamStore.connect({ stream, nats: { url: proxy.url }, timeoutMs: TIMEOUT_MS });
      const j = await store.create('retry', meta('retry'));
      const cut = proxy.dropAckOf(`${prefix}.retry.2`);
      proxy.refuseConnections(true);
      let err: { code: string; message: string };
      try {
        err = await failure(j.append(at(2, assistant(0))));
        await cut;
      } finally {
        proxy.refuseConnections(false);
      }
      expect(err.code).toBe('unavailable');
      expect(err.message).toContain('may or may not be stored');
      expect(j.lastSeq).toBe(1);
      await j.append(at(2, assistant(0)));
      expect(j.lastSeq).toBe(2);
      await j.append(at(3, completed));
      await j.close();
      expect(seqs((await store.load('retry')).records)).toEqual([1, 2, 3]);
      await store.close();
    });

    it('adopts through the fence read-back once the duplicate window has passed', async () => {
      const { stream, prefix } = await newStream({ duplicate_window: 100e6 });
      const store = await JetStreamStore.connect({ stream, nats: { url: proxy.url }, timeoutMs: TIMEOUT_MS });
      const j = await store.create('late', meta('late'));
      const cut = proxy.dropAckOf(`${prefix}.late.2`);
      proxy.refuseConnections(true);
      try {
        expect((await failure(j.append(at(2, assistant(0))))).code).toBe('unavailable');
        await cut;
      } finally {
        proxy.refuseConnections(false);
      }
      // Let the server forget the message id, so only the fence can recognise it.
      await new Promise((r) => setTimeout(r, 500));
      await j.append(at(2, assistant(0)));
      expect(j.lastSeq).toBe(2);
      await j.close();
      expect(seqs((await store.load('late')).records)).toEqual([1, 2]);
      await store.close();
    });
  });

  describe('a server restart mid-run', () => {
    it('fails appends cleanly while it is down, and a fresh open resumes with nothing lost or duplicated', async () => {
      const { stream } = await newStream();
      const store = await JetStreamStore.connect({ stream, nats: { url: nats.server().url }, timeoutMs: TIMEOUT_MS });
      const j: Journal = await store.create('bounce', meta('bounce'));
      await j.append(at(2, assistant(0, ['t1', 't2'])));
      await j.append(at(3, toolResult('t1')));
      await nats.server().stop();
      let down: { code: string; message: string };
      try {
        down = await failure(j.append(at(4, toolResult('t2'))));
        expect((await failure(store.load('bounce'))).code).toBe('unavailable');
      } finally {
        await nats.server().restart();
      }
      expect(down.code).toBe('unavailable');
      expect(down.message).toContain(nats.server().url);
      expect(j.lastSeq).toBe(3);
      await j.close();
      await store.close();

      // A new process: its own store and connection.
      const fresh = await JetStreamStore.connect({ stream, nats: { url: nats.server().url }, timeoutMs: TIMEOUT_MS });
      const resumed = await fresh.open('bounce');
      expect(resumed.lastSeq).toBe(3);
      await resumed.append(at(4, toolResult('t2')));
      await resumed.append(at(5, completed));
      await resumed.close();
      const loaded = await fresh.load('bounce');
      expect(seqs(loaded.records)).toEqual([1, 2, 3, 4, 5]);
      expect(loaded.state.terminal).toEqual({ reason: 'completed' });
      await fresh.close();
    });

    it('lets the same store carry on once its connection is back', async () => {
      const { stream } = await newStream();
      const store = await JetStreamStore.connect({ stream, nats: { url: nats.server().url }, timeoutMs: 10_000 });
      const j = await store.create('carry', meta('carry'));
      await j.append(at(2, assistant(0)));
      await j.close();
      await nats.server().restart();
      const again = await store.open('carry');
      expect(again.lastSeq).toBe(2);
      await again.append(at(3, completed));
      await again.close();
      expect(seqs((await store.load('carry')).records)).toEqual([1, 2, 3]);
      await store.close();
    });
  });
});
