/**
 * Streams for JetStream tests, made the way an operator would (the backend
 * never creates one): a fresh, uniquely named stream per store so tests that
 * reuse run ids never meet.
 */
import { jetstreamManager, type StreamConfig } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { JetStreamStore } from '../../src/index.js';
import { JetStreamBackend } from '../../src/store/jetstream/jetstream-store.js';

/** A configuration fit for journals, with `overrides` applied. */
export function journalStream(name: string, prefix: string, overrides: Partial<StreamConfig> = {}): Partial<StreamConfig> & { name: string } {
  return {
    name,
    subjects: [`${prefix}.>`],
    max_msgs_per_subject: 1,
    discard: 'new',
    discard_new_per_subject: true,
    ...overrides,
  };
}

/** Creates a stream on the server at `url` through a short-lived admin connection. */
export async function addStream(url: string, config: Partial<StreamConfig> & { name: string }): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.add(config);
  } finally {
    await nc.close();
  }
}

let streams = 0;

/** A store on a stream of its own; requests bounded by `timeoutMs`. */
export async function freshJetStreamStore(url: string, timeoutMs = 2_000, overrides: Partial<StreamConfig> = {}): Promise<JetStreamStore> {
  const n = `${process.pid}_${streams++}`;
  const stream = `LOGBOOK_T${n}`;
  await addStream(url, journalStream(stream, `t${n}.runs`, overrides));
  return JetStreamStore.connect({ stream, nats: { url }, timeoutMs });
}

/** A backend on a stream of its own; requests bounded by `timeoutMs`. */
export async function freshJetStreamBackend(url: string, timeoutMs = 2_000): Promise<JetStreamBackend> {
  const n = `${process.pid}_${streams++}`;
  const stream = `LOGBOOK_B${n}`;
  await addStream(url, journalStream(stream, `b${n}.runs`));
  return JetStreamBackend.connect({ stream, nats: { url }, timeoutMs });
}
