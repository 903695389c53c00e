/**
 * The JetStream store on a three-node cluster with an R3 stream, whose leader
 * is killed (SIGKILL, no hand-off) while runs are written: appends and reads
 * wait through the election and every record is stored once; a store opened
 * right after the kill resumes; the wait is reported; and what ends a wait
 * (no leader, servers down) is said for what it is. Also: a comma-separated
 * `nats.url` uses every server it lists. Against real nats-servers this file
 * starts.
 */
import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { JetStreamStore, type Journal } from '../../../src/index.js';
import { caught } from '../../helpers/errors.js';
import { journalStream } from '../../helpers/jetstream.js';
import { natsClusterOfBlock } from '../../helpers/nats-cluster.js';
import { describeEachNatsServer } from '../../helpers/nats-server.js';
import { assistant, at, completed, meta, toolResult } from '../../helpers/records.js';

const nats = natsClusterOfBlock();
const WAITING = (stream: string): string => `waiting for the leader of stream ${stream}`;

/** A loopback port nothing listens on. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Creates an R3 journal stream on the cluster; returns its name. */
async function r3Stream(name: string): Promise<string> {
  await nats.cluster().addStream({ ...journalStream(name, `${name.toLowerCase()}.runs`), num_replicas: 3 });
  return name;
}

/** A run with its meta and an assistant turn calling t1 and t2. */
async function started(store: JetStreamStore, id: string): Promise<Journal> {
  const journal = await store.create(id, meta(id));
  await journal.append(at(2, assistant(0, ['t1', 't2'])));
  return journal;
}

/** Appends the rest of the run: both tool results and the end. */
async function finish(journal: Journal): Promise<void> {
  await journal.append(at(3, toolResult('t1')));
  await journal.append(at(4, toolResult('t2')));
  await journal.append(at(5, completed));
  await journal.close();
}

describeEachNatsServer('jetstream store on a three-node cluster', (binary) => {
  nats.start(binary);
  it('a comma-separated url uses every server it lists, whichever of them is down', async () => {
    const stream = await r3Stream('URLS');
    const dead = `nats://127.0.0.1:${await deadPort()}`;
    const live = nats.cluster().nodes[0]!.url;
    for (const url of [`${dead},${live}`, `${live}, ${dead}`]) {
      const store = await JetStreamStore.connect({ stream, nats: { url }, timeoutMs: 2_000 });
      expect(store.location).toBe(`jetstream stream URLS (subjects urls.runs.>) at ${url}`);
      await (await store.create(`via-${url.indexOf(dead)}`, meta(`via-${url.indexOf(dead)}`))).close();
      await store.close();
    }
  });

  it('the stream leader killed mid-run: writers on any server finish with every record once, and a store opened right after resumes', async () => {
    const cluster = nats.cluster();
    const stream = await r3Stream('FAILOVER');
    const leader = await cluster.streamLeader(stream);
    const follower = cluster.nodes.find((n) => n.name !== leader)!;
    const waits: (string | null)[] = [];
    const connectTo = (url: string): Promise<JetStreamStore> =>
      JetStreamStore.connect({ stream, nats: { url }, timeoutMs: 2_000, onWait: (w) => waits.push(w) });
    // One writer whose connection dies with the leader, one on a server that stays up, and a run left half-done.
    const onLeader = await connectTo(cluster.node(leader).url);
    const onFollower = await connectTo(follower.url);
    const a = await started(onLeader, 'on-leader');
    const b = await started(onFollower, 'on-follower');
    const c = await started(onFollower, 'resumed');
    await c.append(at(3, toolResult('t1')));
    await c.close();

    await cluster.kill(leader);
    const resume = async (): Promise<void> => {
      // A new process: its own connection, dialled to every server, the dead one first.
      const fresh = await JetStreamStore.connect({ stream, nats: { url: cluster.urls }, timeoutMs: 2_000 });
      try {
        const journal = await fresh.open('resumed');
        expect(journal.lastSeq).toBe(3);
        await journal.append(at(4, toolResult('t2')));
        await journal.append(at(5, completed));
        await journal.close();
      } finally {
        await fresh.close();
      }
    };
    await Promise.all([finish(a), finish(b), resume()]);

    // The waits were reported (the writer on the dead server first waited for a server to reconnect to), and each ended.
    expect(waits).toContain(WAITING(stream));
    expect(waits.filter((w) => w !== null && w !== WAITING(stream) && w !== `waiting for the NATS server at ${cluster.node(leader).url}`)).toEqual([]);
    expect(waits.at(-1)).toBeNull();

    expect(await cluster.streamLeader(stream)).not.toBe(leader);
    for (const id of ['on-leader', 'on-follower', 'resumed']) {
      const loaded = await onFollower.load(id);
      expect(loaded.records.map((r) => r.seq), id).toEqual([1, 2, 3, 4, 5]);
      expect(loaded.state.terminal).toEqual({ reason: 'completed' });
      expect(loaded.state.pending).toBeNull();
      expect(loaded.state.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    }
    // The three runs and nothing else: no run half-made by a retried create.
    expect((await onFollower.list()).map((r) => r.runId).sort()).toEqual(['on-follower', 'on-leader', 'resumed']);
    await onLeader.close();
    await onFollower.close();
    await cluster.restart(leader);
  }, 60_000);

  it('says a stream has no leader when too few of its servers are up, and that the servers are down when none is', async () => {
    const cluster = nats.cluster();
    const stream = await r3Stream('QUORUM');
    const leader = await cluster.streamLeader(stream);
    const [other, last] = cluster.nodes.filter((n) => n.name !== leader);
    const store = await JetStreamStore.connect({ stream, nats: { url: last!.url }, timeoutMs: 1_000, leaderWaitMs: 2_000 });
    const journal = await started(store, 'quorum');
    await Promise.all([cluster.kill(leader), cluster.kill(other!.name)]);

    const noLeader = await caught(journal.append(at(3, toolResult('t1'))));
    expect(noLeader.code).toBe('unavailable');
    expect(noLeader.message).toMatch(
      new RegExp(`^cannot append seq 3 to run quorum in stream QUORUM: stream QUORUM has no leader: nothing answered for it at ${last!.url} for 2 s`),
    );
    expect((await caught(store.load('quorum'))).message).toMatch(/^cannot read run quorum from stream QUORUM: stream QUORUM has no leader/);

    await cluster.kill(last!.name);
    const down = await caught(journal.append(at(3, toolResult('t1'))));
    expect(down.code).toBe('unavailable');
    expect(down.message).toMatch(new RegExp(`^cannot append seq 3 to run quorum in stream QUORUM: the NATS server at ${last!.url} is unreachable`));
    expect(journal.lastSeq).toBe(2);
    await journal.close();
    await store.close();
  }, 60_000);
});
