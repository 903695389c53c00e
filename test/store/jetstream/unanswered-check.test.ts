/**
 * After an acknowledged append, a writer before 2.11 reads the run's meta back
 * to make sure the run was not removed under it. A cluster whose servers came
 * back after their peers died can take the stream's writes while its API has
 * no meta leader to answer that read. The record is stored, so the append
 * succeeds and the question is asked again by the next append; a run removed
 * meanwhile is still caught there. Against a real nats-server this file
 * starts, behind a proxy that swallows the API's message reads.
 */
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { JetStreamStore, type Journal } from '../../../src/index.js';
import { caught } from '../../helpers/errors.js';
import { addStream, journalStream } from '../../helpers/jetstream.js';
import { describeEachNatsServer, natsServerOfBlock } from '../../helpers/nats-server.js';
import { assistant, at, completed, meta, toolResult } from '../../helpers/records.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';

const nats = natsServerOfBlock();
const MESSAGE_READS = '$JS.API.STREAM.MSG.GET.';
let streams = 0;

describeEachNatsServer('jetstream: the run check after an append, while the API does not answer', (binary) => {
  nats.start({ binary });
  let proxy: TcpProxy;
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  beforeAll(async () => {
    proxy = await startTcpProxy(nats.server().port);
    nc = await connect({ servers: nats.server().url });
    jsm = await jetstreamManager(nc);
  });
  afterAll(async () => {
    await nc.close();
    await proxy.close();
  });

  /** A run written up to seq 2 through the proxy, on a fresh stream. */
  async function running(id: string): Promise<{ store: JetStreamStore; journal: Journal; stream: string; prefix: string }> {
    const n = streams++;
    const stream = `UNCHECKED_${n}`;
    const prefix = `unchecked${n}.runs`;
    await addStream(nats.server().url, journalStream(stream, prefix));
    const store = await JetStreamStore.connect({ stream, nats: { url: proxy.url }, timeoutMs: 1_000, leaderWaitMs: 2_000 });
    const journal = await store.create(id, meta(id));
    await journal.append(at(2, assistant(0, ['t1'])));
    return { store, journal, stream, prefix };
  }

  it('keeps the acknowledged record and goes on, the run folding whole', async () => {
    const { store, journal } = await running('kept');
    proxy.swallow(MESSAGE_READS);
    try {
      await journal.append(at(3, toolResult('t1')));
      expect(journal.lastSeq).toBe(3);
    } finally {
      proxy.swallow(null);
    }
    await journal.append(at(4, completed));
    await journal.close();
    const loaded = await store.load('kept');
    expect(loaded.records.map((r) => Object.keys(r)[1])).toEqual(['meta', 'assistant', 'tool_result', 'terminal']);
    await store.close();
  });

  it('still says the run is gone when it was removed before the question could be answered', async () => {
    const { store, journal, stream, prefix } = await running('removed');
    proxy.swallow(MESSAGE_READS);
    try {
      await journal.append(at(3, toolResult('t1')));
      await jsm.streams.purge(stream, { filter: `${prefix}.removed.>` });
    } finally {
      proxy.swallow(null);
    }
    const err = await caught(journal.append(at(4, completed)));
    expect(err.code).toBe('journal_gone');
    expect(err.message).toContain(`run removed was removed from stream ${stream} while it was being written`);
    await journal.close().catch(() => {});
    await store.close();
  });
});
