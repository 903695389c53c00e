/**
 * The JetStream baseline of the watch benchmark: a bare ordered consumer on the
 * run's subjects, printing each message's body as it arrives, with nothing of
 * logbook in between. Ends at the terminal record.
 *
 *   node raw-follower.js URL STREAM FILTER
 */
import { jetstream } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

const [url, stream, filter] = process.argv.slice(2);
const nc = await connect({ servers: url! });
const consumer = await jetstream(nc).consumers.get(stream!, { filter_subjects: filter!, deliver_policy: 'all' as never });
const messages = await consumer.consume();
for await (const m of messages) {
  const body = m.string();
  process.stdout.write(`${body}\n`);
  if (body.includes('"terminal":')) break;
}
await nc.close();
