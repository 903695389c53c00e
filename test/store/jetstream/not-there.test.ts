/**
 * A request for a message or consumer that is not there is an answer, not a
 * failure (a task taken and acknowledged before its withdrawal deletes it, a
 * consumer no server has made yet): the errors real servers give for them are
 * told apart from every other. Against a real nats-server this file starts.
 */
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isNotThere } from '../../../src/store/jetstream/api-errors.js';
import { caught } from '../../helpers/errors.js';
import { describeEachNatsServer, natsServerOfBlock } from '../../helpers/nats-server.js';

const nats = natsServerOfBlock();

describeEachNatsServer('jetstream: what is not there', (binary) => {
  nats.start({ binary });
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  beforeAll(async () => {
    nc = await connect({ servers: nats.server().url });
    jsm = await jetstreamManager(nc);
    await jsm.streams.add({ name: 'THERE', subjects: ['there.>'] });
  });
  afterAll(async () => {
    await nc.close();
  });

  it('is a message deleted already, and a consumer never made', async () => {
    const js = jsm.jetstream();
    const { seq } = await js.publish('there.a', 'x');
    expect(await jsm.streams.deleteMessage('THERE', seq, false)).toBe(true);
    expect(isNotThere(await caught(jsm.streams.deleteMessage('THERE', seq, false)))).toBe(true);
    expect(isNotThere(await caught(jsm.consumers.info('THERE', 'nobody')))).toBe(true);
  });

  it('is not a stream that does not exist, nor any other refusal', async () => {
    expect(isNotThere(await caught(jsm.streams.deleteMessage('NOWHERE', 1, false)))).toBe(false);
    expect(isNotThere(await caught(jsm.consumers.info('NOWHERE', 'nobody')))).toBe(false);
    expect(isNotThere(await caught(jsm.streams.add({ name: 'THERE', subjects: ['elsewhere.>'] })))).toBe(false);
    expect(isNotThere(new Error('no message found'))).toBe(false);
  });
});
