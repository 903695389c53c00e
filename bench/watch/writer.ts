/**
 * The writer side of the watch benchmark, a process of its own: creates a run
 * (file store directory, or a JetStream stream), says `ready`, waits for `go`
 * on stdin, then appends the records one by one with a pause between them and
 * prints `<seq> <monotonic ns>` as each append resolves (after fsync, or after
 * the stream's ack), and ends the run with a terminal record.
 *
 *   node writer.js file DIR ID COUNT GAP_MS
 *   node writer.js jetstream URL STREAM ID COUNT GAP_MS
 */
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { FileStore, JetStreamStore, type JournalRecord, type Store } from 'logbook';
import { bodyPayloads, meta } from '../lib/content.js';

const [kind, ...rest] = process.argv.slice(2);
const store: Store =
  kind === 'file' ? new FileStore(rest[0]!) : await JetStreamStore.connect({ stream: rest[1]!, nats: { url: rest[0]! } });
const [id, countText, gapText] = kind === 'file' ? rest.slice(1) : rest.slice(2);
const count = Number(countText);
const gap = Number(gapText);

const journal = await store.create(id!, meta(id!));
process.stdout.write('ready\n');
const input = createInterface({ input: process.stdin });
for await (const line of input) if (line === 'go') break;
process.stdin.destroy();

let seq = 1;
const out: string[] = [];
for (const payload of bodyPayloads(count + 1)) {
  await journal.append({ seq: ++seq, ...payload } as JournalRecord);
  out.push(`${seq} ${process.hrtime.bigint()}\n`);
  await sleep(gap);
}
await journal.append({ seq: ++seq, terminal: { reason: 'completed' } } as JournalRecord);
out.push(`${seq} ${process.hrtime.bigint()}\n`);
// The times go out at the end, so writing them costs the watchers nothing while they are measured.
process.stdout.write(out.join(''));
await journal.close();
await store.close();
