/**
 * The consumer the servers of an identity share on the work-queue stream.
 * Another consumer that takes the same subjects makes a work queue refuse it,
 * and that is said for what it is, with the way out, on every server version.
 * Against a real nats-server this file starts.
 */
import { AckPolicy, jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { taskSubject } from '../../../src/a2a/index.js';
import { taskConsumer } from '../../../src/agent/tasks/wire.js';
import { dial, type Link } from '../../../src/store/jetstream/connection.js';
import { caught } from '../../helpers/errors.js';
import { describeEachNatsServer, natsServerOfBlock } from '../../helpers/nats-server.js';

const nats = natsServerOfBlock();

describeEachNatsServer("tasks: the identity's shared consumer", (binary) => {
  nats.start({ binary });
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let link: Link;
  beforeAll(async () => {
    nc = await connect({ servers: nats.server().url });
    jsm = await jetstreamManager(nc);
    link = await dial({ url: nats.server().url }, { leaderWaitMs: 2_000 });
  });
  afterAll(async () => {
    await link.close();
    await nc.close();
  });

  it.each([
    ['filtered on the same subject', 'CLASH_SAME', (identity: string) => taskSubject(identity)],
    ['without a filter', 'CLASH_ALL', () => undefined],
  ])('is refused as stream_config, naming the way out, beside another consumer %s', async (_how, stream, filter) => {
    const identity = `agent-${stream.toLowerCase().replace('_', '-')}`;
    await jsm.streams.add({ name: stream, subjects: [`${taskSubject('*').replace('.*', '')}.>`], retention: 'workqueue' });
    const other = filter(identity);
    await jsm.consumers.add(stream, { durable_name: 'other', ack_policy: AckPolicy.Explicit, ...(other !== undefined ? { filter_subject: other } : {}) });
    const err = await caught(taskConsumer(link, stream, identity, 30_000));
    expect(err.code).toBe('stream_config');
    expect(err.message).toContain(`another consumer of work-queue stream ${stream} takes ${taskSubject(identity)}`);
    expect(err.message).toMatch(/remove that consumer \(nats consumer ls \S+\)$/);
    await jsm.streams.delete(stream); // the next case's stream takes the same subjects
  });
});
