/**
 * What an operation waits through: a fetch that no server of the consumer
 * answers (status 503, as while the server holding it restarts) is retried
 * like an election, any other status fails at once.
 */
import { JetStreamStatusError } from '@nats-io/jetstream/internal';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dial, type Link } from '../../../src/store/jetstream/connection.js';
import { throughElection } from '../../../src/store/jetstream/election.js';
import { natsTestsEnabled, startNatsServer, type NatsServer } from '../../helpers/nats-server.js';

describe.runIf(natsTestsEnabled())('waiting through an election', () => {
  let server: NatsServer;
  let link: Link;
  beforeAll(async () => {
    server = await startNatsServer();
    link = await dial({ url: server.url }, { leaderWaitMs: 3_000 });
  });
  afterAll(async () => {
    await link?.close();
    await server?.dispose();
  });

  /** An operation failing with `errors` in turn, then answering. */
  const failing = (errors: Error[]) => {
    let calls = 0;
    return { op: async () => (calls < errors.length ? Promise.reject(errors[calls++]!) : 'read'), calls: () => calls };
  };

  it('retries a fetch no server answered (503) until it is answered', async () => {
    const { op, calls } = failing([new JetStreamStatusError('no responders', 503), new JetStreamStatusError('no responders', 503)]);
    await expect(throughElection(link, 'S', 'cannot read run r from stream S', op)).resolves.toBe('read');
    expect(calls()).toBe(2);
  });

  it('fails at once on another status, naming the operation', async () => {
    const { op, calls } = failing([new JetStreamStatusError('bad request', 400)]);
    await expect(throughElection(link, 'S', 'cannot read run r from stream S', op)).rejects.toMatchObject({ code: 'unavailable', message: 'cannot read run r from stream S: bad request' });
    expect(calls()).toBe(1);
  });
});
