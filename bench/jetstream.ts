/**
 * JetStream append against a raw publish of the same body with the same headers
 * (message id of the same shape, the same expected-last-subject-sequence fence)
 * into the same stream, alternating message by message; then loading the run.
 */
import { createHash, randomBytes } from 'node:crypto';
import { jetstream, jetstreamManager, type JetStreamPublishOptions } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { JetStreamStore, type JournalRecord, type Payload } from 'logbook';
import { bodyPayloads, line, meta } from './lib/content.js';
import type { BenchOptions } from './lib/env.js';
import { natsServers, serverName, startNats, type NatsBinary } from './lib/nats.js';
import { skipped, type Section } from './lib/report.js';
import { count, interleave, median, ms, num, percentile, ratio } from './lib/stats.js';

const TARGET = 1.25;
const LOAD_TARGET = 1.3;
const STREAM = 'BENCH';
const PREFIX = 'bench.runs';

/** The JetStream rows on every nats-server found here (their appends fence differently before 2.11 and from it on). */
export async function benchJetStream(opts: BenchOptions): Promise<Section> {
  const servers = natsServers();
  if (servers.length === 0) {
    const section = skipped('JetStream append, p50', `≤ ${TARGET}×`, 'nats-server is not installed (`apt-get install -y nats-server`)');
    const load = skipped('JetStream load', 'records per second', 'nats-server is not installed');
    return { rows: [...section.rows, ...load.rows], notes: section.notes };
  }
  const sections: Section[] = [];
  for (const server of servers) sections.push(await benchOn(server, opts));
  return { rows: sections.flatMap((s) => s.rows), notes: sections.flatMap((s) => s.notes) };
}

async function benchOn(server: NatsBinary, opts: BenchOptions): Promise<Section> {
  const records = opts.quick ? 2_000 : 10_000;
  const blocks = 10;
  const nats = await startNats(server);
  const name = serverName(nats.version);
  const admin = await connect({ servers: nats.url });
  let store: JetStreamStore | undefined;
  try {
    const jsm = await jetstreamManager(admin);
    await jsm.streams.add({ name: STREAM, subjects: [`${PREFIX}.>`], max_msgs_per_subject: 1, discard: 'new' as never, discard_new_per_subject: true });
    const js = jetstream(admin);
    store = await JetStreamStore.connect({ stream: STREAM, nats: { url: nats.url } });
    const id = 'bench-js';
    const journal = await store.create(id, meta(id));
    const payloads: Payload[] = [...bodyPayloads(records)];
    const bodies = payloads.map((p, i) => line(i + 2, p).slice(0, -1));
    const nonce = randomBytes(9).toString('base64url');
    const digest = (body: string): string => createHash('sha256').update(body).digest('base64url').slice(0, 22);
    const raw = bodies.map((body, i) => ({
      subject: `${PREFIX}.raw.${i + 2}`,
      body,
      options: (store!.tailFence
        ? { msgID: `${nonce}-${i + 2}-${digest(body)}`, expect: { lastSubjectSequence: 0, lastSubjectSequenceSubject: `${PREFIX}.raw.>` } }
        : { msgID: `${nonce}-${i + 2}-${digest(body)}`, expect: { lastSubjectSequence: 0 } }) as Partial<JetStreamPublishOptions>,
    }));
    let rawTail = 0;
    const ours: number[] = [];
    const theirs: number[] = [];
    for (let i = 0; i < payloads.length; i++) {
      const oursFirst = i % 4 === 0 || i % 4 === 3;
      for (const side of oursFirst ? [0, 1] : [1, 0]) {
        const start = performance.now();
        if (side === 0) {
          await journal.append({ seq: i + 2, ...payloads[i]! } as JournalRecord);
          ours.push(performance.now() - start);
        } else {
          const r = raw[i]!;
          // With the tail fence the raw side expects its own last message, as the journal does.
          if (store.tailFence) r.options.expect = { lastSubjectSequence: rawTail, lastSubjectSequenceSubject: `${PREFIX}.raw.>` };
          rawTail = (await js.publish(r.subject, r.body, r.options)).seq;
          theirs.push(performance.now() - start);
        }
      }
    }
    await journal.close();
    const size = Math.floor(ours.length / blocks);
    const blockP50 = (xs: number[]): number[] => Array.from({ length: blocks }, (_, b) => percentile(xs.slice(b * size, (b + 1) * size), 50));
    const a = blockP50(ours);
    const b = blockP50(theirs);
    const p50Ratio = median(a.map((x, k) => x / b[k]!));

    // The load against a bare ordered consumer on the run's subjects, parsing each message and keeping it.
    const rawLoad = async (): Promise<void> => {
      const consumer = await js.consumers.get(STREAM, { filter_subjects: `${PREFIX}.${id}.>`, deliver_policy: 'all' as never });
      const messages = await consumer.consume();
      const values: unknown[] = [];
      for await (const m of messages) {
        values.push(JSON.parse(m.string()));
        if (values.length === records) break;
      }
      await consumer.delete().catch(() => {});
    };
    const storeLoad = async (): Promise<void> => {
      const loaded = (await store!.load(id)).records.length;
      if (loaded !== records) throw new Error(`load returned ${loaded} of ${records} records`);
    };
    const loadRounds = opts.quick ? 5 : 11;
    const loadTimes = await interleave(loadRounds, storeLoad, rawLoad);
    const loads = loadTimes.a;
    const loadMs = median(loads);
    const rawMs = median(loadTimes.b);
    const loadRatio = loadMs / rawMs;
    return {
      rows: [
        {
          what: `JetStream append on ${name}, p50 per record`,
          measured: ms(median(a)),
          baseline: `raw publish: ${ms(median(b))}`,
          figure: ratio(p50Ratio),
          target: `≤ ${TARGET}×`,
          verdict: p50Ratio <= TARGET ? 'met' : 'missed',
          growth: '—',
        },
        {
          what: `JetStream load of a ${count(records)}-record run on ${name}`,
          measured: `${ms(loadMs)} (${Math.round(records / (loadMs / 1000)).toLocaleString('en-US')} records/s)`,
          baseline: `a bare ordered consumer, parsing each message: ${ms(rawMs)}`,
          figure: ratio(loadRatio),
          target: `≤ ${LOAD_TARGET}×`,
          verdict: opts.quick ? '—' : loadRatio <= LOAD_TARGET ? 'met' : 'missed',
          growth: '—',
        },
      ],
      notes: [
        `JetStream on ${name}: loopback, a file-storage stream with its default sync (the server syncs its store every 2 minutes, not per message); ${num(records - 1)} appends through \`journal.append\` alternating with raw \`js.publish\` calls of the same body, message-id shape and ${store.tailFence ? 'tail' : 'per-subject'} fence on another subject of the same stream, one connection each; p50 per block of ${size}, median over ${blocks} blocks. The load reads the run with \`store.load\` (an ordered consumer fetching 512 records at a time, decode, fold) against a bare ordered consumer on the run's subjects (\`consume()\`, \`JSON.parse\` of each message kept in an array), medians of ${loadRounds} alternating rounds. ` +
          (store.tailFence
            ? 'This server (2.11 or newer) fences each append on the last sequence of the run\'s subjects, which also refuses an append into a run removed or replaced under its writer, so an append is one request, as the raw side\'s.'
            : "On this server version (older than 2.11, which has no fence on the last sequence of a run's subjects) each append through the journal also reads the run's meta back, sent alongside the publish, so that a run removed or its stream replaced under the writer is found at once: a second request per record for the server and the client, which is what the append's ratio shows; the raw side makes none."),
      ],
    };
  } finally {
    await store?.close();
    await admin.close();
    await nats.stop();
  }
}
