#!/usr/bin/env node
// The logbook command with two more session backends, `crash-file` and
// `crash-jetstream`: the file and JetStream backends, wrapped so that a test can
// crash the process at an exact point of a run. Registered through the public
// registerBackend API, like any backend linked from outside; logbook itself has
// no crash switch. LOGBOOK_TEST_CRASH says where, read here only:
//   kill-after-seq:N     SIGKILL right after record N is durable
//   tear-seq:N           write the first half of record N's line, then SIGKILL (file only)
//   kill-after-create:N  SIGKILL right after the Nth run this process creates has its meta durable
//   kill-after-note:KEY  SIGKILL right after a note named KEY is kept beside a run
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { main } from '../../dist/cli/main.js';
import { fileBackendFromOptions, jetStreamBackendFromOptions, registerBackend } from '../../dist/index.js';

const [mode, at] = (process.env.LOGBOOK_TEST_CRASH ?? '').split(':');
const crashSeq = Number(at);
let created = 0;

function die() {
  process.kill(process.pid, 'SIGKILL');
}

/** Writes the first half of `line` where the backend would have written it whole, and dies. */
function tear(path, line) {
  const bytes = Buffer.from(`${line}\n`);
  writeFileSync(path, bytes.subarray(0, Math.max(1, bytes.length >> 1)), { flag: 'a' });
  die();
}

function wrapHeld(held, tearPath) {
  const write = held.write.bind(held);
  held.write = async (seq, line) => {
    if (mode === 'tear-seq' && seq === crashSeq && tearPath) tear(tearPath, line);
    await write(seq, line);
    if (mode === 'kill-after-seq' && seq === crashSeq) die();
  };
  if (held.writeCopied) {
    // A copy's records, written in batches: the same crash points inside a batch.
    const writeCopied = held.writeCopied.bind(held);
    held.writeCopied = async (first, lines) => {
      const holds = crashSeq >= first && crashSeq < first + lines.length;
      if (mode === 'tear-seq' && holds && tearPath) {
        const before = lines.slice(0, crashSeq - first);
        if (before.length > 0) writeFileSync(tearPath, `${before.join('\n')}\n`, { flag: 'a' });
        tear(tearPath, lines[crashSeq - first]);
      }
      await writeCopied(first, lines);
      if (mode === 'kill-after-seq' && holds) die();
    };
  }
  return held;
}

function wrap(backend, pathOf) {
  const create = backend.create.bind(backend);
  const open = backend.open.bind(backend);
  backend.create = async (id, metaLine) => {
    // A torn meta never becomes a run: the backend writes it to a temporary file first.
    if (mode === 'tear-seq' && crashSeq === 1 && pathOf) tear(join(dirname(pathOf(id)), `.${id}.${process.pid}.torn.tmp`), metaLine);
    const held = wrapHeld(await create(id, metaLine), pathOf?.(id));
    if (mode === 'kill-after-seq' && crashSeq === 1) die();
    if (mode === 'kill-after-create' && ++created === crashSeq) die();
    return held;
  };
  if (backend.putNote) {
    const putNote = backend.putNote.bind(backend);
    backend.putNote = async (id, key, text) => {
      await putNote(id, key, text);
      if (mode === 'kill-after-note' && key === at) die();
    };
  }
  backend.open = async (id) => {
    const opened = await open(id);
    wrapHeld(opened.run, pathOf?.(id));
    return opened;
  };
  return backend;
}

registerBackend('crash-file', async (options, context) => {
  const backend = await fileBackendFromOptions(options, context);
  return wrap(backend, (id) => backend.journalPath(id));
});
registerBackend('crash-jetstream', async (options, context) => wrap(await jetStreamBackendFromOptions(options, context)));

await main(process.argv.slice(2));
