/**
 * A run that disappears under its writer: its subjects purged, its stream
 * deleted, or deleted and created again, or the run removed and created anew by
 * someone else. The writer's next append fails saying which, the record it
 * wrote into what was left is taken back out, and nothing reports success into
 * a run that no longer exists. Against a real nats-server this file starts.
 */
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { JetStreamStore, type Journal } from '../../../src/index.js';
import { caught } from '../../helpers/errors.js';
import { addStream, journalStream } from '../../helpers/jetstream.js';
import { describeEachNatsServer, natsServerOfBlock } from '../../helpers/nats-server.js';
import { assistant, at, completed, meta, toolResult } from '../../helpers/records.js';
import { supportsTailFence } from '../../../src/store/jetstream/connection.js';

const nats = natsServerOfBlock();
let streams = 0;
let nc: NatsConnection;
let jsm: JetStreamManager;

/** A store on a fresh stream, and a run written up to seq 2 (an assistant turn with one call). */
async function runningWriter(id: string): Promise<{ store: JetStreamStore; journal: Journal; stream: string; prefix: string }> {
  const n = streams++;
  const stream = `GONE_${n}`;
  const prefix = `gone${n}.runs`;
  await addStream(nats.server().url, journalStream(stream, prefix));
  const store = await JetStreamStore.connect({ stream, nats: { url: nats.server().url }, timeoutMs: 2_000 });
  const journal = await store.create(id, meta(id));
  await journal.append(at(2, assistant(0, ['t1'])));
  return { store, journal, stream, prefix };
}

/** Every subject the stream holds, with its message count. */
async function subjects(stream: string): Promise<Record<string, number>> {
  return (await jsm.streams.info(stream, { subjects_filter: '>' })).state.subjects ?? {};
}

describeEachNatsServer('jetstream: a run that disappears while it is written', (binary) => {
  nats.start({ binary });
  /** Before 2.11 the record subject was free, so the record landed and was taken back out; from 2.11 the run's tail fence refused it. */
  const takenBack = supportsTailFence(binary.version) ? '' : ' (the record was taken back out)';
  beforeAll(async () => {
    nc = await connect({ servers: nats.server().url });
    jsm = await jetstreamManager(nc);
  });
  afterAll(async () => {
    await nc.close();
  });

  it("its subjects purged (as `nats stream purge --subject` does): the next append fails, and the record is taken back out", async () => {
    const { store, journal, stream, prefix } = await runningWriter('purged');
    await jsm.streams.purge(stream, { filter: `${prefix}.purged.>` });
    const err = await caught(journal.append(at(3, toolResult('t1'))));
    expect(err.code).toBe('journal_gone');
    expect(err.message).toBe(
      `cannot append seq 3 to run purged in stream ${stream}: run purged was removed from stream ${stream} while it was being written ` +
        `(its meta record is gone); seq 3 and what follows are not kept${takenBack}. Restore the run from a copy, or start a new run`,
    );
    expect(journal.lastSeq).toBe(2);
    // The terminal record a runner writes next fails the same way.
    expect((await caught(journal.append(at(3, completed)))).code).toBe('journal_gone');
    expect(await subjects(stream)).toEqual({});
    await journal.close();
    expect((await caught(store.load('purged'))).code).toBe('not_found');
    await store.close();
  });

  it('purged under a writer that resumed it: the meta it opened is the one checked', async () => {
    const { store, journal, stream, prefix } = await runningWriter('resumed');
    await journal.close();
    const again = await store.open('resumed');
    await again.append(at(3, toolResult('t1')));
    await jsm.streams.purge(stream, { filter: `${prefix}.resumed.>` });
    const err = await caught(again.append(at(4, completed)));
    expect(err.code).toBe('journal_gone');
    expect(err.message).toContain('run resumed was removed from stream');
    // The purge took the run's records; the notes beside it (its resume's mark) are left as it left them.
    expect(Object.keys(await subjects(stream)).filter((s) => !s.includes('._notes.'))).toEqual([]);
    await again.close();
    await store.close();
  });

  it('removed and created again by another writer: the next append is refused and leaves the new run alone', async () => {
    const { store, journal, stream, prefix } = await runningWriter('reborn');
    await jsm.streams.purge(stream, { filter: `${prefix}.reborn.>` });
    const other = await JetStreamStore.connect({ stream, nats: { url: nats.server().url }, timeoutMs: 2_000 });
    await (await other.create('reborn', meta('reborn', { prompt: 'the new one' }))).close();
    const err = await caught(journal.append(at(3, toolResult('t1'))));
    expect(err.code).toBe('journal_gone');
    expect(err.message).toContain('run reborn was removed and created again in stream');
    expect(err.message).toContain(`; seq 3 and what follows are not kept${takenBack}. `);
    const loaded = await other.load('reborn');
    expect(loaded.records.map((r) => r.seq)).toEqual([1]);
    expect(loaded.state.prompt).toBe('the new one');
    await journal.close();
    await other.close();
    await store.close();
  });

  it('its stream deleted: the next append fails naming the stream', async () => {
    const { store, journal, stream } = await runningWriter('unstreamed');
    await jsm.streams.delete(stream);
    const err = await caught(journal.append(at(3, toolResult('t1'))));
    expect(err.code).toBe('journal_gone');
    expect(err.message).toBe(
      `cannot append seq 3 to run unstreamed in stream ${stream}: stream ${stream} no longer exists at ${nats.server().url}: ` +
        `it was deleted while run unstreamed was being written, and the run's records with it; seq 3 and what follows are not kept. ` +
        'Restore the run from a copy, or start a new run',
    );
    // A reader of the same store is told the stream is missing, with the command that creates one.
    expect((await caught(store.load('unstreamed'))).code).toBe('stream_config');
    await journal.close();
    await store.close();
  });

  it('its stream deleted and created again: the next append fails, and the new stream keeps nothing of it', async () => {
    const { store, journal, stream, prefix } = await runningWriter('replaced');
    await jsm.streams.delete(stream);
    await addStream(nats.server().url, journalStream(stream, prefix));
    const err = await caught(journal.append(at(3, toolResult('t1'))));
    expect(err.code).toBe('journal_gone');
    expect(err.message).toMatch(
      new RegExp(
        `^cannot append seq 3 to run replaced in stream ${stream}: stream ${stream} was deleted and created again while run replaced was being written ` +
          `\\(created \\S+ when the run was opened, \\S+ now\\), and the run's records went with the old stream; seq 3 and what follows are not kept${takenBack.replace(/[()]/g, '\\$&')}\\.`,
      ),
    );
    expect(await subjects(stream)).toEqual({});
    await journal.close();
    await store.close();
  });

  it('left alone, a run takes every append and reads back whole', async () => {
    const { store, journal } = await runningWriter('kept');
    await journal.append(at(3, toolResult('t1')));
    await journal.append(at(4, completed));
    await journal.close();
    expect((await store.load('kept')).records.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    await store.close();
  });
});
