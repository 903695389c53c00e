/**
 * The JetStream store against a real nats-server this file starts, once per
 * server version found here (appends fence on a run's tail from 2.11 on).
 */
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JetStreamStore, JournalStore, encodeRecord, openStore, type Store } from '../../../src/index.js';
import { addStream, freshJetStreamBackend, freshJetStreamStore, journalStream } from '../../helpers/jetstream.js';
import { caught as failure } from '../../helpers/errors.js';
import { describeEachNatsServer, startNatsServer, useNatsServer } from '../../helpers/nats-server.js';
import { assistant, at, completed, meta, storeRun, toolResult } from '../../helpers/records.js';
import { storeContract } from '../contract.js';

/** The raw message bodies of one run, by subject. */
async function bodies(url: string, store: JetStreamStore, id: string): Promise<Map<string, string>> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    const { stream, prefix } = store.binding;
    const info = await jsm.streams.info(stream, { subjects_filter: `${prefix}.${id}.>` });
    const out = new Map<string, string>();
    for (const [subject, count] of Object.entries(info.state.subjects ?? {})) {
      expect(count, subject).toBe(1);
      out.set(subject, (await jsm.streams.getMessage(stream, { last_by_subj: subject }))!.string());
    }
    return out;
  } finally {
    await nc.close();
  }
}

describeEachNatsServer('jetstream store', (binary) => {
  const nats = useNatsServer({ binary });
  const url = (): string => nats.server().url;

  storeContract('jetstream', () => freshJetStreamBackend(url()));

  describe('binding', () => {
    it('is registered as `jetstream` and built from options and the nats settings', async () => {
      await addStream(url(), journalStream('REGISTRY', 'reg.runs'));
      const store = await openStore('jetstream', { stream: 'REGISTRY' }, { nats: { url: url() } });
      expect(store).toBeInstanceOf(JournalStore);
      expect(store.backend).toBe('jetstream');
      expect(store.location).toBe(`jetstream stream REGISTRY (subjects reg.runs.>) at ${url()}`);
      await store.close();
    });

    it('refuses bad options and missing nats settings', async () => {
      expect((await failure(openStore('jetstream', {}, { nats: { url: url() } }))).code).toBe('backend_options');
      expect((await failure(openStore('jetstream', { stream: 'X', subject: 'y' }, { nats: { url: url() } }))).code).toBe('backend_options');
      expect((await failure(openStore('jetstream', { stream: 'A.B' }, { nats: { url: url() } }))).code).toBe('backend_options');
      const noNats = await failure(openStore('jetstream', { stream: 'X' }, {}));
      expect(noNats.code).toBe('config');
      expect(noNats.message).toContain('`nats:`');
    });

    it('names a missing stream with a ready-to-run `nats stream add` line', async () => {
      const err = await failure(JetStreamStore.connect({ stream: 'NOSUCH', nats: { url: url() } }));
      expect(err.code).toBe('stream_config');
      expect(err.message).toContain(
        "nats stream add NOSUCH --subjects 'logbook.nosuch.>' --max-msgs-per-subject=1 --discard=new --discard-per-subject",
      );
    });

    it('says so when the server does not serve JetStream', async () => {
      const plain = await startNatsServer({ jetstream: false, binary });
      try {
        const err = await failure(JetStreamStore.connect({ stream: 'X', nats: { url: plain.url }, timeoutMs: 1000 }));
        expect(err.code).toBe('unavailable');
        expect(err.message).toBe(`JetStream is not enabled at ${plain.url}: run nats-server with -js (and -sd DIR for its store)`);
      } finally {
        await plain.dispose();
      }
    });

    it('fails cleanly when no server answers', async () => {
      const err = await failure(JetStreamStore.connect({ stream: 'X', nats: { url: 'nats://127.0.0.1:1' }, timeoutMs: 1000 }));
      expect(err.code).toBe('unavailable');
      expect(err.message).toContain('cannot connect to NATS at nats://127.0.0.1:1');
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['several messages per subject', { max_msgs_per_subject: 3 }, '--max-msgs-per-subject=1'],
      ['discard old', { discard: 'old', discard_new_per_subject: false }, '--discard=new'],
      ['no discard new per subject', { discard_new_per_subject: false }, '--discard-per-subject'],
      ['a max age', { max_age: 3600 * 1e9 }, '--max-age=0'],
      ['a max message size below the floor', { max_msg_size: 4096 }, '--max-msg-size=-1'],
      ['a max bytes', { max_bytes: 5100 }, '--max-bytes=-1'],
      ['a max messages', { max_msgs: 100 }, '--max-msgs=-1'],
      ['memory storage', { storage: 'memory' }, '--storage=file'],
      ['no wildcard subject', { subjects: ['bad.literal'] }, `--subjects 'bad.literal'`],
      ['two wildcard subjects', { subjects: ['bad1.>', 'bad2.>'] }, '2 wildcard subjects'],
      ['a malformed wildcard subject', { subjects: ['bad3.*'] }, `--subjects 'bad3.>'`],
    ])('refuses a real stream with %s, naming the fix', async (_name, change, fix) => {
      const stream = `MIS_${Math.random().toString(36).slice(2, 8)}`;
      await addStream(url(), { ...journalStream(stream, `${stream.toLowerCase()}.runs`), ...change });
      const err = await failure(JetStreamStore.connect({ stream, nats: { url: url() } }));
      expect(err.code).toBe('stream_config');
      expect(err.message).toContain(`stream ${stream}`);
      expect(err.message).toContain(fix);
    });

    it('detects whether the server can fence on a run tail', async () => {
      const store = await freshJetStreamStore(url());
      expect(store.serverVersion).toBe(binary.version);
      const [major, minor] = store.serverVersion.split('.').map(Number) as [number, number];
      expect(store.tailFence).toBe(major > 2 || (major === 2 && minor >= 11));
      await store.close();
    });
  });

  describe('records', () => {
    let store: JetStreamStore;
    beforeAll(async () => {
      store = await freshJetStreamStore(url());
    });
    afterAll(async () => {
      await store.close();
    });

    it('stores each record as the exact encoded line on its own subject', async () => {
      await storeRun(store, 'bytes', [assistant(0, ['t1']), toolResult('t1', 'output with <html> & "quotes" and \u2028'), completed]);
      const loaded = await store.load('bytes');
      const { prefix } = store.binding;
      const want = new Map(loaded.records.map((r) => [r.seq === 1 ? `${prefix}.bytes._meta` : `${prefix}.bytes.${r.seq}`, encodeRecord(r)]));
      expect(await bodies(url(), store, 'bytes')).toEqual(want);
      expect(loaded.state.terminal).toEqual({ reason: 'completed' });
      expect(loaded.lastSeq).toBe(4);
    });

    it('resumes with lastSeq from the tail and keeps appending', async () => {
      const j = await store.create('resume', meta('resume'));
      await j.append(at(2, assistant(0, ['a', 'b'])));
      await j.append(at(3, toolResult('a')));
      await j.close();
      const again = await store.open('resume');
      expect(again.lastSeq).toBe(3);
      await again.append(at(3, toolResult('a', 'a different body')));
      expect(again.lastSeq).toBe(3);
      expect((await failure(again.append(at(5, toolResult('b'))))).code).toBe('seq_gap');
      await again.append(at(4, toolResult('b')));
      await again.close();
      const loaded = await store.load('resume');
      expect(loaded.records.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
      expect(JSON.stringify(loaded.state)).not.toContain('a different body');
      expect(loaded.state.pending).toBeNull();
    });

    it('reads a run longer than one fetch batch whole and in order', async () => {
      const j = await store.create('long', meta('long'));
      const last = 1 + 2 * 350; // 700 records after the meta: more than one pull
      for (let seq = 2; seq < last; seq += 2) {
        await j.append(at(seq, assistant(seq, [`t${seq}`])));
        await j.append(at(seq + 1, toolResult(`t${seq}`)));
      }
      await j.close();
      const loaded = await store.load('long');
      expect(loaded.records.map((r) => r.seq)).toEqual(Array.from({ length: last }, (_, i) => i + 1));
      expect(loaded.state.counters.tool_calls).toBe(350);
      const again = await store.open('long');
      expect(again.lastSeq).toBe(last);
      await again.close();
    });

  });

  describe('two writers', () => {
    let a: Store;
    let b: Store;
    beforeAll(async () => {
      a = await freshJetStreamStore(url());
      b = await JetStreamStore.connect({ stream: (a as JetStreamStore).binding.stream, nats: { url: url() }, timeoutMs: 2000 });
    });
    afterAll(async () => {
      await a.close();
      await b.close();
    });

    it('fences a second writer out at its first conflicting append', async () => {
      const first = await a.create('shared', meta('shared'));
      await first.append(at(2, assistant(0, ['t1'])));
      const second = await b.open('shared'); // nothing to lock: both may open
      expect(second.lastSeq).toBe(2);
      await first.append(at(3, toolResult('t1')));
      const err = await failure(second.append(at(3, toolResult('t1', 'from the second writer'))));
      expect(err.code).toBe('locked');
      expect(err.message).toContain(`stream ${(a as JetStreamStore).binding.stream}`);
      expect(err.message).toContain('nats stream view');
      expect(second.lastSeq).toBe(2);
      await first.append(at(4, completed));
      const loaded = await a.load('shared');
      expect(loaded.records.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
      expect(JSON.stringify(loaded.records)).not.toContain('from the second writer');
      await first.close();
      await second.close();
    });

    it('lets a stale writer that lost its place go no further', async () => {
      const first = await a.create('stale', meta('stale'));
      const second = await b.open('stale');
      await first.append(at(2, assistant(0)));
      await first.append(at(3, completed));
      expect((await failure(second.append(at(2, assistant(0, [], 'late'))))).code).toBe('locked');
      expect((await failure(second.append(at(2, assistant(0, [], 'later'))))).code).toBe('locked');
      expect((await a.load('stale')).records.map((r) => r.seq)).toEqual([1, 2, 3]);
      await first.close();
      await second.close();
    });

    it('fails a writer left holding a run that another store removed, and leaves the run removed', async () => {
      const { stream } = (a as JetStreamStore).binding;
      const first = await a.create('gone', meta('gone'));
      await first.append(at(2, assistant(0, ['t1'])));
      expect(await b.delete('gone')).toBe(true);
      const late = await failure(first.append(at(3, toolResult('t1'))));
      expect(late.code).toBe('journal_gone');
      // Before 2.11 the record subject was free, so the record landed and was taken back out; from 2.11 the fence refused it.
      expect(late.message).toBe(
        `cannot append seq 3 to run gone in stream ${stream}: run gone was removed from stream ${stream} while it was being written ` +
          `(its meta record is gone); seq 3 and what follows are not kept${(a as JetStreamStore).tailFence ? '' : ' (the record was taken back out)'}. ` +
          'Restore the run from a copy, or start a new run',
      );
      expect(first.lastSeq).toBe(2);
      expect((await failure(b.load('gone'))).code).toBe('not_found');
      await first.close();
      await (await b.create('gone', meta('gone'))).close();
      expect((await b.load('gone')).lastSeq).toBe(1);
    });

    it('turns a concurrent create into `exists`', async () => {
      const [x, y] = await Promise.allSettled([a.create('race', meta('race')), b.create('race', meta('race'))]);
      const outcomes = [x, y].map((r) => (r.status === 'fulfilled' ? 'created' : (r.reason as { code: string }).code)).sort();
      expect(outcomes).toEqual(['created', 'exists']);
      for (const r of [x, y]) if (r.status === 'fulfilled') await r.value.close();
    });

    it('tells whether a writer holds a run, from another connection, and stops saying so once it is gone', async () => {
      expect(await b.held('held')).toBe(false); // no run, no writer
      const j = await a.create('held', meta('held'));
      expect(await b.held('held')).toBe(true);
      await j.close();
      expect(await b.held('held')).toBe(false);
      // a writer whose connection is gone (its process died) no longer answers
      const dying = await JetStreamStore.connect({ stream: (a as JetStreamStore).binding.stream, nats: { url: url() }, timeoutMs: 2000 });
      await dying.open('held');
      expect(await b.held('held')).toBe(true);
      await dying.close();
      // the server drops the dead connection's interest as it notices the close: asked until it has (an answer taken for held meanwhile)
      let held = await b.held('held');
      for (let i = 0; held && i < 5; i++) held = await b.held('held');
      expect(held).toBe(false);
    });

    it('lets exactly one of the writers that opened a run at once go on (Journal.claim), and passes over a claimant that died', async () => {
      const j = await a.create('claimed', meta('claimed'));
      await j.append(at(2, assistant(0)));
      await j.close();
      const [x, y] = [await a.open('claimed'), await b.open('claimed')];
      const claims = await Promise.all([x.claim(), y.claim()]);
      expect(claims.filter(Boolean)).toHaveLength(1);
      const [winner, loser] = claims[0] ? [x, y] : [y, x];
      await loser.close();
      // a later writer, while the winner lives, does not go on
      const late = await (winner === x ? b : a).open('claimed');
      expect(await late.claim()).toBe(false);
      await late.close();
      // the winner died before appending anything: the next writer goes on past its claim
      await winner.close();
      const next = await b.open('claimed');
      expect(await next.claim()).toBe(true);
      await next.append(at(3, completed));
      await next.close();
      expect((await a.load('claimed')).records.map((r) => r.seq)).toEqual([1, 2, 3]);
    });

    it('lists runs written by any store, and a delete is seen by both', async () => {
      const j = await b.create('listed', meta('listed', { prompt: 'from b' }));
      await j.append(at(2, assistant(0)));
      await j.close();
      const seen = (await a.list()).find((r) => r.runId === 'listed');
      expect(seen).toMatchObject({ runId: 'listed', status: 'open', prompt: 'from b', model: 'test-model' });
      expect(await a.delete('listed')).toBe(true);
      expect(await b.delete('listed')).toBe(false);
      expect((await failure(b.open('listed'))).code).toBe('not_found');
      expect((await b.list()).map((r) => r.runId)).not.toContain('listed');
    });
  });
});
