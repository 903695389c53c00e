/**
 * A record whose ack was lost may be stored after all. A writer that then
 * appends a different record at the same seq (the agent loop's terminal record
 * after a failed tool-result append does exactly that) must not be told it was
 * stored: only the very same record is adopted, by the server's duplicate check
 * or by the fence read-back. Against a real nats-server this file starts.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { JetStreamStore, type Journal } from '../../../src/index.js';
import { caught } from '../../helpers/errors.js';
import { addStream, journalStream } from '../../helpers/jetstream.js';
import { describeEachNatsServer, natsServerOfBlock } from '../../helpers/nats-server.js';
import { assistant, at, meta, toolResult } from '../../helpers/records.js';
import { startTcpProxy, type TcpProxy } from '../../helpers/tcp-proxy.js';

const nats = natsServerOfBlock();
const TIMEOUT_MS = 1500;
let streams = 0;

async function newStream(overrides: Record<string, unknown> = {}): Promise<{ stream: string; prefix: string }> {
  const n = streams++;
  const stream = `REUSE_${n}`;
  const prefix = `reuse${n}.runs`;
  await addStream(nats.server().url, { ...journalStream(stream, prefix), ...overrides });
  return { stream, prefix };
}

describeEachNatsServer('jetstream: a lost ack, then a different record at the same seq', (binary) => {
  nats.start({ binary });
  let proxy: TcpProxy;
  beforeAll(async () => {
    proxy = await startTcpProxy(nats.server().port);
  });
  afterAll(async () => {
    await proxy.close();
  });

  /** Appends seq 3 with its ack lost and the read-back impossible: the append fails, yet seq 3 is stored. */
  async function lostThird(stream: string, prefix: string, id: string): Promise<{ store: JetStreamStore; journal: Journal }> {
    const store = await JetStreamStore.connect({ stream, nats: { url: proxy.url }, timeoutMs: TIMEOUT_MS });
    const journal = await store.create(id, meta(id));
    await journal.append(at(2, assistant(0, ['t1', 't2'])));
    const cut = proxy.dropAckOf(`${prefix}.${id}.3`);
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
    return { store, journal };
  }

  /** A different record at seq 3 is refused; the record stored there is adopted when appended again. */
  async function refusedThenAdopted(store: JetStreamStore, journal: Journal, id: string): Promise<void> {
    const err = await caught(journal.append(at(3, { terminal: { reason: 'error', message: 'boom' } })));
    expect(err.code).toBe('unavailable');
    expect(err.message).toMatch(/seq 3 already holds a different record this writer stored/);
    expect(journal.lastSeq).toBe(2);
    await journal.append(at(3, toolResult('t1')));
    expect(journal.lastSeq).toBe(3);
    await journal.close();
    const loaded = await store.load(id);
    expect(loaded.records.map((r) => Object.keys(r)[1])).toEqual(['meta', 'assistant', 'tool_result']);
    await store.close();
  }

  it('inside the duplicate window (the server answers with a duplicate ack): refused, not adopted', async () => {
    const { stream, prefix } = await newStream();
    const { store, journal } = await lostThird(stream, prefix, 'dup');
    await refusedThenAdopted(store, journal, 'dup');
  });

  it('after the duplicate window, through the fence read-back: refused, not adopted', async () => {
    const { stream, prefix } = await newStream({ duplicate_window: 100e6 });
    const { store, journal } = await lostThird(stream, prefix, 'late');
    await new Promise((r) => setTimeout(r, 500)); // let the server forget the message id
    await refusedThenAdopted(store, journal, 'late');
  });
});
