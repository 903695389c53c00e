/**
 * The fence on a run's last sequence, which nats-server 2.11 and newer apply to
 * a wildcard subject: every append expects the last message under
 * `<prefix>.<run>.>` to be this writer's last record. A stale writer is refused
 * by the server before anything is stored, even where its record's subject is
 * free; a record whose ack was lost is adopted, and the fence then expects it.
 * Against a real nats-server of 2.11 or newer this file starts (the checks
 * that hold on every server run in jetstream-store, failures and vanished-run).
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { JetStreamStore } from '../../../src/index.js';
import { caught } from '../../helpers/errors.js';
import { addStream, journalStream } from '../../helpers/jetstream.js';
import { describeEachNatsServer, natsServerOfBlock } from '../../helpers/nats-server.js';
import { assistant, at, completed, meta, toolResult } from '../../helpers/records.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';

const nats = natsServerOfBlock();
let streams = 0;

async function newStream(overrides: Record<string, unknown> = {}): Promise<{ stream: string; prefix: string }> {
  const n = streams++;
  const stream = `TAIL_${n}`;
  const prefix = `tail${n}.runs`;
  await addStream(nats.server().url, { ...journalStream(stream, prefix), ...overrides });
  return { stream, prefix };
}

/** The stream's last sequence: it moves with every message stored, even one removed again. */
async function lastSeq(stream: string): Promise<number> {
  const nc = await connect({ servers: nats.server().url });
  try {
    return (await (await jetstreamManager(nc)).streams.info(stream)).state.last_seq;
  } finally {
    await nc.close();
  }
}

describeEachNatsServer(
  "jetstream: the fence on a run's last sequence",
  (binary) => {
    nats.start({ binary });
    let proxy: TcpProxy;
    beforeAll(async () => {
      proxy = await startTcpProxy(nats.server().port);
    });
    afterAll(async () => {
      await proxy.close();
    });

    it('is what appends use on this server', async () => {
      const { stream } = await newStream();
      const store = await JetStreamStore.connect({ stream, nats: { url: nats.server().url } });
      expect(store.serverVersion).toBe(binary.version);
      expect(store.tailFence).toBe(true);
      await store.close();
    });

    it('refuses a stale writer before anything is stored, where its record subject is free: the run was removed and created again', async () => {
      const { stream } = await newStream();
      const url = nats.server().url;
      const a = await JetStreamStore.connect({ stream, nats: { url }, timeoutMs: 2_000 });
      const b = await JetStreamStore.connect({ stream, nats: { url }, timeoutMs: 2_000 });
      const stale = await a.create('reborn', meta('reborn'));
      await stale.append(at(2, assistant(0, ['t1'])));
      expect(await b.delete('reborn')).toBe(true);
      await (await b.create('reborn', meta('reborn', { prompt: 'the new one' }))).close();
      const before = await lastSeq(stream);

      // Seq 3 is free in the new run; only the fence on the run's tail can tell this writer is stale.
      const err = await caught(stale.append(at(3, toolResult('t1'))));
      expect(err.code).toBe('journal_gone');
      expect(err.message).toBe(
        `cannot append seq 3 to run reborn in stream ${stream}: run reborn was removed and created again in stream ${stream} while this writer held it ` +
          '(its meta record is another message now); seq 3 and what follows are not kept. Restore the run from a copy, or start a new run',
      );
      // Nothing was stored, not even for a moment: a record taken back out would have moved the stream's last sequence.
      expect(await lastSeq(stream)).toBe(before);
      expect(stale.lastSeq).toBe(2);
      const reborn = await b.load('reborn');
      expect(reborn.records.map((r) => r.seq)).toEqual([1]);
      expect(reborn.state.prompt).toBe('the new one');
      await stale.close();
      await a.close();
      await b.close();
    });

    it('refuses a second writer that opened the run before the first moved its tail, before anything is stored', async () => {
      const { stream } = await newStream();
      const url = nats.server().url;
      const a = await JetStreamStore.connect({ stream, nats: { url }, timeoutMs: 2_000 });
      const b = await JetStreamStore.connect({ stream, nats: { url }, timeoutMs: 2_000 });
      const first = await a.create('shared', meta('shared'));
      await first.append(at(2, assistant(0, ['t1', 't2'])));
      const second = await b.open('shared');
      await first.append(at(3, toolResult('t1')));
      const before = await lastSeq(stream);
      const err = await caught(second.append(at(3, toolResult('t1', 'from the second writer'))));
      expect(err.code).toBe('locked');
      expect(err.message).toBe(
        `run shared has another writer: stream ${stream} already holds its seq 3; inspect it with \`nats stream view ${stream} --subject '${(a as JetStreamStore).binding.prefix}.shared.>'\``,
      );
      expect(await lastSeq(stream)).toBe(before);
      await first.append(at(4, toolResult('t2')));
      await first.close();
      await second.close();
      expect((await a.load('shared')).records.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
      await a.close();
      await b.close();
    });

    it('adopts a record whose ack was lost once the server forgot its id, and the fence then expects it: the run goes on, each record stored once', async () => {
      const { stream, prefix } = await newStream({ duplicate_window: 100e6 });
      const store = await JetStreamStore.connect({ stream, nats: { url: proxy.url }, timeoutMs: 1_500 });
      const journal = await store.create('lost', meta('lost'));
      await journal.append(at(2, assistant(0, ['t1'])));
      const cut = proxy.dropAckOf(`${prefix}.lost.3`);
      proxy.refuseConnections(true);
      try {
        const err = await caught(journal.append(at(3, toolResult('t1'))));
        await cut;
        expect(err.code).toBe('unavailable');
        expect(err.message).toContain('may or may not be stored');
      } finally {
        proxy.refuseConnections(false);
      }
      expect(journal.lastSeq).toBe(2);
      await new Promise((r) => setTimeout(r, 500)); // past the duplicate window: only the fence and the read-back can recognise it
      const stored = await lastSeq(stream);
      await journal.append(at(3, toolResult('t1')));
      expect(journal.lastSeq).toBe(3);
      expect(await lastSeq(stream)).toBe(stored); // adopted, not stored again
      // The next append expects the adopted record as the run's tail; any other tail would refuse it.
      await journal.append(at(4, completed));
      await journal.close();
      expect((await store.load('lost')).records.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
      expect(await lastSeq(stream)).toBe(stored + 1);
      await store.close();
    });
  },
  { since: '2.11' },
);
