/**
 * `logbook session watch` through the real binary, watcher and writer as
 * separate processes, on the file store and on JetStream (a real nats-server):
 * watches started before, during and after a run print its stored lines byte
 * for byte; a writer killed with SIGKILL leaves its watcher waiting, and the
 * resume carries the watcher on to the end; a torn last line is never printed;
 * Ctrl-C leaves the run alone; a run removed under a watcher is an error.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCrashing, spawnCli, finished, type CliResult } from '../helpers/cli.js';
import { FIVE_NOTES_SCRIPT, fiveNotesConfig } from '../helpers/five-notes.js';
import { addStream, journalStream } from '../helpers/jetstream.js';
import { describeEachNatsServer, useNatsServer } from '../helpers/nats-server.js';
import { UNSAFE_CHARS, hostileRun, writeRun } from '../helpers/runs.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-watch-');
const state = join(dir, 'state');
const PROMPT = 'Take five notes.';
const STREAM = 'LOGBOOK_WATCH';

/**
 * The `note` tool appends its argument to $NOTES_FILE. The note named by
 * $SLOW_NOTE, the first time it runs, touches $NOTES_FILE.started and waits for
 * $NOTES_FILE.go (at most 30 s), so a test can act while the run is half done:
 * by then meta, the first turn, notes a and b and the second turn are stored.
 */
const NOTE =
  'printf "%s\\n" "$1" >> "$NOTES_FILE"; ' +
  'if [ "$1" = "$SLOW_NOTE" ] && [ ! -e "$NOTES_FILE.started" ]; then touch "$NOTES_FILE.started"; ' +
  'i=0; while [ ! -e "$NOTES_FILE.go" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; fi; ' +
  'echo "noted $1"';
const STORED_AT_SLOW_NOTE = 5;

function writeConfig(name: string, extra: string): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, fiveNotesConfig({ witnesses: true, note: NOTE, extra }));
  return path;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `ok` until it holds; the deadline only bounds the test. */
async function until(ok: () => boolean, what: string, deadlineMs = 20_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${deadlineMs} ms`);
    await sleep(25);
  }
}

/** A spawned command whose output so far can be looked at while it runs. */
interface Live {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited(): boolean;
  done: Promise<CliResult>;
}

function live(args: string[], env: Record<string, string> = {}): Live {
  const child = spawnCli(args, { cwd: dir, env });
  let out = '';
  let err = '';
  let exited = false;
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const done = finished(child, 90_000).then((r) => {
    exited = true;
    return { ...r, stdout: out, stderr: err };
  });
  return { child, stdout: () => out, stderr: () => err, exited: () => exited, done };
}

const lineCount = (text: string): number => text.split('\n').filter(Boolean).length;

/** One attempt at a run: its id and the files its notes and gate live in. */
function attempt(id: string, slow = 'c'): { id: string; notes: string; env: Record<string, string> } {
  const notes = join(dir, `${id}.notes`);
  return { id, notes, env: { NOTES_FILE: notes, SLOW_NOTE: slow } };
}

const cli = (args: string[], env: Record<string, string> = {}): Promise<CliResult> => runCli(args, { cwd: dir, env, timeoutMs: 60_000 });

/** The run's stored lines, byte for byte, as `session export --format jsonl` gives them. */
async function stored(id: string, where: string[]): Promise<string> {
  const r = await cli(['session', 'export', id, '--format', 'jsonl', ...where]);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout;
}

let file: string;

beforeAll(() => {
  writeFileSync(join(dir, 'script.json'), JSON.stringify(FIVE_NOTES_SCRIPT));
  file = writeConfig('file', '');
});

afterAll(() => {
  // Release any gate a failed test left closed, so no note waits out its 30 s.
  for (const id of ['f-live', 'f-killed', 'f-interrupted']) writeFileSync(join(dir, `${id}.notes.go`), '');
});

/** Where a store is, as command-line arguments. */
const fileStore = (): string[] => ['--config', file, '--state-dir', state];

async function beforeDuringAfter(id: string, where: string[]): Promise<void> {
  const a = attempt(id);
  const before = live(['session', 'watch', '--wait', id, '--json', ...where]);
  await until(() => /waiting for run/.test(before.stderr()), 'the early watcher waiting for the run');

  const writer = live(['run', ...where, '--name', id, PROMPT], a.env);
  await until(() => existsSync(`${a.notes}.started`), 'the run reaching its slow note');
  const during = live(['session', 'watch', id, '--json', ...where]);
  const narrated = live(['session', 'watch', id.slice(0, -1), '--tool-output', ...where]); // a unique start of the id
  // Both print what is already stored, and the run is not over: they wait with it.
  await until(() => lineCount(during.stdout()) === STORED_AT_SLOW_NOTE && lineCount(before.stdout()) === STORED_AT_SLOW_NOTE, 'the watchers catching up');
  expect(during.exited() || before.exited() || narrated.exited()).toBe(false);

  writeFileSync(`${a.notes}.go`, '');
  const w = await writer.done;
  expect(w.code, w.stderr).toBe(0);
  const lines = await stored(id, where);
  expect(lineCount(lines)).toBe(10);
  for (const watcher of [before, during]) {
    const r = await watcher.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(lines);
  }
  const after = await cli(['session', 'watch', id, '--json', ...where]);
  expect(after.code, after.stderr).toBe(0);
  expect(after.stdout).toBe(lines);
  expect(after.stderr).toBe('');

  const n = await narrated.done;
  expect(n.code, n.stderr).toBe(0);
  expect(n.stdout).toBe(
    [
      '> Take five notes.',
      '',
      'Two notes first.',
      '» note {"text":"a"}',
      '» note {"text":"b"}',
      '  noted a',
      '  noted b',
      'Three more.',
      '» note {"text":"c"}',
      '» note {"text":"d"}',
      '» note {"text":"e"}',
      '  noted c',
      '  noted d',
      '  noted e',
      'Noted a to e.',
      '',
      '── run completed',
      '',
    ].join('\n'),
  );
}

async function killedAndResumed(id: string, where: string[]): Promise<void> {
  const a = attempt(id);
  const watcher = live(['session', 'watch', '--wait', id, '--json', ...where]);
  await until(() => /waiting for run/.test(watcher.stderr()), 'the watcher waiting for the run');
  const writer = live(['run', ...where, '--name', id, PROMPT], a.env);
  await until(() => existsSync(`${a.notes}.started`) && lineCount(watcher.stdout()) === STORED_AT_SLOW_NOTE, 'the watcher catching up mid-run');
  writer.child.kill('SIGKILL');
  expect((await writer.done).signal).toBe('SIGKILL');

  // The writer is gone and the run is open: the watcher waits, having printed exactly what is stored.
  await sleep(1_000);
  expect(watcher.exited()).toBe(false);
  expect(watcher.stdout()).toBe(await stored(id, where));

  const resumed = await cli(['run', ...where, '--resume', id], a.env);
  expect(resumed.code, resumed.stderr).toBe(0);
  const r = await watcher.done;
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toBe(await stored(id, where));
  expect(lineCount(r.stdout)).toBe(10);
}

describe('session watch on the file store', () => {
  it('lists every flag, the environment and the exit codes in --help', async () => {
    const r = await cli(['session', 'watch', '--help']);
    expect(r.code).toBe(0);
    for (const flag of ['--wait', '--json', '--from-seq <n>', '--tool-output', '--config <file>', '--state-dir <dir>', '--no-color', '--verbose']) expect(r.stdout).toContain(flag);
    expect(r.stdout).toMatch(/Environment:\n  LOGBOOK_CONFIG .*\n  LOGBOOK_CONFIG_CACHE=0 .*\n  LOGBOOK_DEBUG=1 .*\n  XDG_STATE_HOME .*\n  NO_COLOR/);
    expect(r.stdout).toMatch(/Exit codes:\n  0 +done\n  1 +an error.*\n  2 +a usage error.*\n  130 +stopped by Ctrl-C/);
  });

  it('started before, during and after a run, prints its stored lines byte for byte, and narrates it', async () => {
    await beforeDuringAfter('f-live', fileStore());
  }, 90_000);

  it('waits while the writer is killed with SIGKILL, and follows the resume to the end', async () => {
    await killedAndResumed('f-killed', fileStore());
  }, 90_000);

  it('never prints a torn last line; the resume repairs it and the watcher goes on', async () => {
    const a = attempt('f-torn', 'none');
    const watcher = live(['session', 'watch', '--wait', a.id, '--json', ...fileStore()]);
    await until(() => /waiting for run/.test(watcher.stderr()), 'the watcher waiting for the run');
    // Record 4 is half written, then the writer dies.
    const torn = await runCrashing(['run', ...fileStore(), '--name', a.id, PROMPT], 'tear-seq:4', { cwd: dir, env: a.env, timeoutMs: 60_000 });
    expect(torn.signal).toBe('SIGKILL');
    await until(() => lineCount(watcher.stdout()) === 3, 'the watcher printing the three whole records');
    await sleep(1_000);
    expect(watcher.exited()).toBe(false);
    expect(watcher.stdout().endsWith('\n')).toBe(true);
    expect(lineCount(watcher.stdout())).toBe(3);

    const resumed = await cli(['run', ...fileStore(), '--resume', a.id], a.env);
    expect(resumed.code, resumed.stderr).toBe(0);
    const r = await watcher.done;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(await stored(a.id, fileStore()));
  }, 90_000);

  it('leaves on Ctrl-C with 130, and the run goes on untouched', async () => {
    const a = attempt('f-interrupted');
    const writer = live(['run', ...fileStore(), '--name', a.id, PROMPT], a.env);
    await until(() => existsSync(`${a.notes}.started`), 'the run reaching its slow note');
    const watcher = live(['session', 'watch', a.id, '--json', ...fileStore()]);
    await until(() => lineCount(watcher.stdout()) === STORED_AT_SLOW_NOTE, 'the watcher catching up');
    watcher.child.kill('SIGINT');
    const r = await watcher.done;
    expect(r.code).toBe(130);
    expect(r.stderr).toBe('');
    writeFileSync(`${a.notes}.go`, '');
    const w = await writer.done;
    expect(w.code, w.stderr).toBe(0);
    expect(w.stdout).toBe('Two notes first.\nThree more.\nNoted a to e.\n');
    expect(lineCount(await stored(a.id, fileStore()))).toBe(10);
  }, 90_000);

  it('fails with one line when the run it follows is removed', async () => {
    const a = attempt('f-removed', 'none');
    const killed = await runCrashing(['run', ...fileStore(), '--name', a.id, PROMPT], 'kill-after-seq:3', { cwd: dir, env: a.env, timeoutMs: 60_000 });
    expect(killed.signal).toBe('SIGKILL');
    const watcher = live(['session', 'watch', a.id, ...fileStore()]);
    await until(() => watcher.stdout().includes('» note {"text":"b"}'), 'the watcher showing the run so far');
    const rm = await cli(['session', 'rm', a.id, ...fileStore()]);
    expect(rm.code, rm.stderr).toBe(0);
    const r = await watcher.done;
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^logbook: the journal .*f-removed\.jsonl was removed while it was being followed\n$/);
  }, 90_000);

  it('starts at --from-seq, and shows a hostile run without a byte a terminal would act on', async () => {
    const hostileState = tempDir();
    await writeRun(hostileState, 'hostile', hostileRun());
    const r = await cli(['session', 'watch', 'hostile', '--tool-output', '--verbose', '--state-dir', hostileState]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(UNSAFE_CHARS);
    expect(r.stdout).toMatch(/── run error: failed /);
    expect(r.stdout).toMatch(/\[thinking\] think /);

    const all = await cli(['session', 'watch', 'hostile', '--json', '--state-dir', hostileState]);
    const from = await cli(['session', 'watch', 'hostile', '--json', '--from-seq', '3', '--state-dir', hostileState]);
    expect(from.code, from.stderr).toBe(0);
    expect(from.stdout).toBe(all.stdout.split('\n').slice(2).join('\n'));
    // A run that ended before --from-seq: nothing on stdout, and stderr says so.
    const seqs = all.stdout.trimEnd().split('\n').length;
    for (const json of [['--json'], []]) {
      const past = await cli(['session', 'watch', 'hostile', ...json, '--from-seq', '99', '--state-dir', hostileState]);
      expect(past).toMatchObject({ code: 0, stdout: '', stderr: `run hostile ended at seq ${seqs}, before seq 99 (--from-seq): nothing to show\n` });
    }
    const last = await cli(['session', 'watch', 'hostile', '--json', '--from-seq', String(seqs), '--state-dir', hostileState]);
    expect(last).toMatchObject({ code: 0, stderr: '', stdout: `${all.stdout.trimEnd().split('\n').at(-1)}\n` });
    const bad = await cli(['session', 'watch', 'hostile', '--from-seq', '0', '--state-dir', hostileState]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--from-seq.*a positive whole number is needed/);
  }, 60_000);
});

describeEachNatsServer('session watch on JetStream', (binary) => {
  const nats = useNatsServer({ binary });
  /** The runs' ids end in the server's version, so their witness files in `dir` are the block's own. */
  const id = (name: string): string => `${name}-${binary.version.replace(/\W/g, '-')}`;
  let jetstream: string[];
  beforeAll(async () => {
    await addStream(nats.server().url, journalStream(STREAM, 'logbook.watch'));
    const config = writeConfig(id('jetstream'), `session:\n  backend: jetstream\n  options:\n    stream: ${STREAM}\nnats:\n  url: ${nats.server().url}`);
    jetstream = ['--config', config];
  });
  afterAll(() => {
    for (const name of ['js-live', 'js-killed']) writeFileSync(join(dir, `${id(name)}.notes.go`), '');
  });

  it('started before, during and after a run, prints its stored lines byte for byte, and narrates it', async () => {
    await beforeDuringAfter(id('js-live'), jetstream);
  }, 90_000);

  it('waits while the writer is killed with SIGKILL, and follows the resume to the end', async () => {
    await killedAndResumed(id('js-killed'), jetstream);
  }, 90_000);
});
