#!/usr/bin/env node
// Creates file-store run ID in RUNS_DIR, appends one user record, and exits at
// once with process.exit, the run still held:
//   node append-and-exit.mjs RUNS_DIR ID
import { FileStore, defineAgent, fingerprintOf } from '../../dist/index.js';

const [dir, id] = process.argv.slice(2);
const provider = { id: 'script', model: 'exit-model', complete: () => Promise.reject(new Error('no model here')) };
const fingerprint = fingerprintOf(defineAgent({ provider, maxTokens: 100, maxIterations: 10 }));
const journal = await new FileStore(dir).create(id, { version: 3, run_id: id, created: new Date().toISOString(), fingerprint, prompt: 'exits at once' });
await journal.append({ seq: 2, user: { message: { role: 'user', content: [{ text: { text: 'hi' } }] } } });
process.exit(0);
