#!/usr/bin/env node
// A writer of a file-store run in a process of its own, driven from stdin:
//   node journal-writer.mjs RUNS_DIR ID
// creates run ID (its meta record) and prints "ready"; each line "append JSON"
// on stdin appends that payload (a record without its seq) as the next record,
// durable, and prints "appended SEQ". It holds the run until stdin ends.
import { createInterface } from 'node:readline';
import { FileStore, RawJson, defineAgent, fingerprintOf } from '../../dist/index.js';

const [dir, id] = process.argv.slice(2);
const store = new FileStore(dir);
// The fingerprint of an agent with no tools that never calls its model.
const provider = { id: 'script', model: 'writer-model', complete: () => Promise.reject(new Error('no model here')) };
const fingerprint = fingerprintOf(defineAgent({ provider, maxTokens: 100, maxIterations: 10 }));
const journal = await store.create(id, { version: 3, run_id: id, created: new Date().toISOString(), fingerprint, prompt: 'followed from elsewhere' });
process.stdout.write('ready\n');
/** Tool inputs are raw JSON in a record: `{"$raw": "..."}` stands for one. */
const revive = (_k, v) => (v && typeof v === 'object' && typeof v.$raw === 'string' ? RawJson.fromText(v.$raw) : v);
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.startsWith('append ')) continue;
  const payload = JSON.parse(line.slice('append '.length), revive);
  const seq = journal.lastSeq + 1;
  await journal.append({ seq, ...payload });
  process.stdout.write(`appended ${seq}\n`);
}
await journal.close();
await store.close();
