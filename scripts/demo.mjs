#!/usr/bin/env node
// The offline demo: a journaled run is killed with SIGKILL in the middle of its
// tool batch, inspected, resumed (journaled results reused, only the rest run),
// and its transcript printed. Everything goes through the real `logbook` binary.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(root, 'bin', 'logbook');
const config = join(root, 'examples', 'demo', 'agent.yaml');
const state = mkdtempSync(join(tmpdir(), 'logbook-demo-'));
const journal = join(state, 'runs', 'demo.jsonl');
const keep = process.argv.includes('--keep');

const say = (text) => process.stdout.write(`\n\x1b[1m${text}\x1b[0m\n`);

function logbook(args, { quiet = false } = {}) {
  process.stdout.write(`\x1b[2m$ logbook ${args.join(' ')}\x1b[0m\n`);
  const child = spawn(process.execPath, [bin, ...args, '--state-dir', state], {
    cwd: root,
    stdio: ['ignore', 'inherit', quiet ? 'ignore' : 'inherit'],
  });
  return { child, done: new Promise((ok) => child.on('close', (code, signal) => ok({ code, signal }))) };
}

const records = () => (existsSync(journal) ? readFileSync(journal, 'utf8').split('\n').filter(Boolean).length : 0);

try {
  say('1. Start a journaled run. Its tool batch has three calls; the second is slow.');
  const first = logbook(['run', '--config', config, '--name', 'demo', '--tool-output', 'How big is this project?']);
  // meta, the assistant turn and the first tool result: then the second tool is running.
  let exited = null;
  first.done.then((r) => (exited = r));
  while (records() < 3 && exited === null) await new Promise((r) => setTimeout(r, 50));
  if (exited !== null) throw new Error(`the run ended before it could be interrupted (exit ${exited.code})`);
  first.child.kill('SIGKILL');
  const killed = await first.done;
  say(`   Killed with ${killed.signal} in the middle of the batch, after ${records()} durable records.`);

  say('2. Inspect it. Nothing was lost: the model call and the first result are in the journal.');
  await logbook(['session', 'show', 'demo']).done;

  say('3. Resume. The journaled result is reused, only the two unanswered tools run, and the model is not paid twice.');
  const resumed = await logbook(['run', '--config', config, '--resume', 'demo', '--tool-output']).done;
  if (resumed.code !== 0) throw new Error(`resume exited with ${resumed.code}`);

  say('4. The transcript, read back from the journal.');
  await logbook(['session', 'show', 'demo', '--transcript', '--no-tui', '--tool-output']).done;

  say(`The journal is ${journal}${keep ? '' : ' (removed now; pass --keep to keep it)'}.`);
} catch (err) {
  process.stderr.write(`demo: ${err.message}\n`);
  process.exitCode = 1;
} finally {
  if (!keep) rmSync(state, { recursive: true, force: true });
}
