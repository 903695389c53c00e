/**
 * The logbook command on the JetStream backend, end to end: the real binary
 * (built dist/) against a real nats-server this file starts, with the stream
 * created first, as an operator would. A scripted multi-tool run is killed,
 * inspected, resumed and compared with the uninterrupted run; runs are copied
 * file -> JetStream -> file and removed; the server is stopped in the middle of
 * a run; an ack is lost on the way back; a run's journal is removed (its
 * subjects purged, its stream replaced) while it runs; and each command dials
 * NATS once.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { streamAddCommand } from '../../src/store/jetstream/binding.js';
import { supportsTailFence } from '../../src/store/jetstream/connection.js';
import { runCli, runCrashing, spawnCli, finished, type CliResult } from '../helpers/cli.js';
import { FIVE_NOTES_SCRIPT, fiveNotesConfig, lines, NOTE_DEFAULTS, turnsAsked } from '../helpers/five-notes.js';
import { FIXTURES_DIR } from '../helpers/fixtures.js';
import { addStream, journalStream } from '../helpers/jetstream.js';
import { describeEachNatsServer, natsServerOfBlock } from '../helpers/nats-server.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { tempDir } from '../helpers/tmp.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const nats = natsServerOfBlock();
let dir: string;
const STREAM = 'LOGBOOK_CLI';
const PREFIX = 'logbook.cli';
const PROMPT = 'Take five notes.';

/**
 * The tool appends its argument to $NOTES_FILE (one line per execution). The
 * note named by $SLOW_NOTE, the first time it runs, touches $NOTES_FILE.started
 * and waits for $NOTES_FILE.go (at most 30 s), so a test can act while it runs.
 */
const NOTE =
  'printf "%s\\n" "$1" >> "$NOTES_FILE"; ' +
  'if [ "$1" = "$SLOW_NOTE" ] && [ ! -e "$NOTES_FILE.started" ]; then touch "$NOTES_FILE.started"; ' +
  'i=0; while [ ! -e "$NOTES_FILE.go" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; fi; ' +
  'echo "noted $1"';

/** A config whose session block is `session`; everything the fingerprint covers is the same in all of them. */
function writeConfig(name: string, session: string): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, fiveNotesConfig({ witnesses: true, note: NOTE, extra: session }));
  return path;
}

const jetstreamSession = (url: string, stream = STREAM): string => `session:\n  backend: jetstream\n  options:\n    stream: ${stream}\nnats:\n  url: ${url}`;

let js: string; // the config on the JetStream backend
let file: string; // the same agent on the file backend


/** One run's id and the files that witness what it did: notes taken and model turns asked for. */
interface Attempt {
  id: string;
  notes: string;
  turns: string;
  env: Record<string, string>;
}

function attempt(id: string, env: Record<string, string> = {}): Attempt {
  const notes = join(dir, `${id}.notes`);
  const turns = join(dir, `${id}.turns`);
  return { id, notes, turns, env: { ...NOTE_DEFAULTS, NOTES_FILE: notes, LOGBOOK_SCRIPT_LOG: turns, ...env } };
}

const cli = (args: string[], env: Record<string, string> = {}): Promise<CliResult> => runCli(args, { cwd: dir, env, timeoutMs: 60_000 });

/** `session show ID --json` on the JetStream store, without the fields that name the run or its times. */
async function fold(id: string, config = js): Promise<Record<string, unknown>> {
  const r = await cli(['session', 'show', id, '--json', '--config', config]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const { run_id, created, updated, listed_status: _listed, times, ...state } = JSON.parse(r.stdout) as Record<string, unknown>;
  expect(run_id).toBe(id);
  expect(typeof created).toBe('string');
  expect(typeof updated).toBe('string');
  // Records' message timestamps, by seq.
  for (const [seq, at] of Object.entries(times as Record<string, string>)) expect(`${seq} ${Number.isNaN(Date.parse(at))}`).toMatch(/^\d+ false$/);
  return state;
}

/** Connections the server has accepted since it started, from its monitoring endpoint. */
async function connectionsSoFar(): Promise<number> {
  const res = await fetch(`${nats.server().monitorUrl}/varz`);
  return ((await res.json()) as { total_connections: number }).total_connections;
}

/** Waits for a file to appear; the deadline only bounds the test. */
async function until(path: string, deadlineMs = 20_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`${path} did not appear`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The `logbook:` lines of stderr: exactly one, and no stack trace anywhere. */
function errorLine(r: CliResult): string {
  const errors = r.stderr.split('\n').filter((l) => l.startsWith('logbook:'));
  expect(errors, r.stderr).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return errors[0]!;
}

/** The uninterrupted run's fold, which every interrupted one must end up equal to. */
let reference: Record<string, unknown>;

describeEachNatsServer('the logbook command on the jetstream backend', (binary) => {
  nats.start({ monitor: true, binary });
  beforeAll(() => {
    dir = tempDir('logbook-jscli-'); // the runs' witness files, per server
  });
  beforeAll(async () => {
    await addStream(nats.server().url, journalStream(STREAM, PREFIX));
    writeFileSync(join(dir, 'script.json'), JSON.stringify(FIVE_NOTES_SCRIPT));
    js = writeConfig('jetstream', jetstreamSession(nats.server().url));
    file = writeConfig('file', '');
    const a = attempt('reference');
    const r = await cli(['run', '--config', js, '--name', a.id, PROMPT], a.env);
    expect(r.stderr).not.toMatch(/logbook:/);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Two notes first.\nThree more.\nNoted a to e.\n'); // each model turn's words, as they stream
    expect(lines(a.notes)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(turnsAsked(a.turns)).toEqual([0, 1, 2]);
    reference = await fold(a.id);
    expect(reference.terminal).toEqual({ reason: 'completed' });
    expect(reference.counters).toMatchObject({ llm_calls: 3, tool_calls: 5 });
  }, 60_000);

  afterAll(() => {
    // Release any slow note a failed test left waiting.
    for (const id of ['bounce', 'purged', 'replaced', 'filling']) writeFileSync(join(dir, `${id}.notes.go`), '');
  });

  it('a run killed mid-batch is listed open with its in-flight batch, and resumes reusing what was journaled, dialing once', async () => {
    const a = attempt('killed');
    // meta, the first assistant turn and note a's result are durable; then SIGKILL.
    const killed = await runCrashing(['run', '--config', js, '--name', a.id, PROMPT], 'kill-after-seq:3', { cwd: dir, env: a.env, timeoutMs: 60_000 });
    expect(killed.signal).toBe('SIGKILL');
    expect(lines(a.notes)).toEqual(['a']);
    expect(turnsAsked(a.turns)).toEqual([0]);

    const ls = await cli(['session', 'ls', '--config', js]);
    expect(ls.code).toBe(0);
    // JetStream cannot tell whether anybody holds a run: one ending on no terminal record is `open`.
    expect(ls.stdout).toMatch(/^killed\s+open\s+.*Take five notes\.$/m);
    expect(ls.stdout).toMatch(/^reference\s+completed\s/m);

    const show = await cli(['session', 'show', a.id, '--config', js]);
    expect(show.code).toBe(0);
    expect(show.stdout).toMatch(/^status +open$/m);
    expect(show.stdout).toMatch(
      /^where +in the middle of a tool batch, 1 of 2 calls answered; call \S+ \(note\) may have been running when the run stopped; its tool has no side effects \(the config says\), with no end recorded: running, or its writer stopped/m,
    );
    expect(show.stdout).toMatch(/^next +if nothing runs it, a resume runs call \S+ again /m);

    const before = await connectionsSoFar();
    const resumed = await cli(['run', '--config', js, '--resume', a.id], a.env);
    const dialed = (await connectionsSoFar()) - before;
    expect(resumed.stderr).not.toMatch(/^logbook:/m);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('Three more.\nNoted a to e.\n'); // the turns the resume asked for
    // One connection for the load, the gates, the open and every append.
    expect(dialed).toBe(1);

    // Only the unanswered tools ran; the journaled model turn was not asked for again.
    expect(lines(a.notes)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(turnsAsked(a.turns)).toEqual([0, 1, 2]);
    expect(await fold(a.id)).toEqual(reference);
  }, 90_000);

  it('session cp copies file -> jetstream -> file byte for byte, and session rm removes a run from the stream', async () => {
    const from = tempDir();
    const back = tempDir();
    // An open run written by the command (killed mid-way through the second batch), and a fixture full of escapes and raw numbers.
    const a = attempt('moved');
    const killed = await runCrashing(['run', '--config', file, '--state-dir', from, '--name', a.id, PROMPT], 'kill-after-seq:6', { cwd: dir, env: a.env, timeoutMs: 60_000 });
    expect(killed.signal).toBe('SIGKILL');
    writeFileSync(join(from, 'runs', 'escapes-and-raw.jsonl'), readFileSync(join(FIXTURES_DIR, 'runs', 'escapes-and-raw.jsonl')));

    for (const id of [a.id, 'escapes-and-raw']) {
      const original = readFileSync(join(from, 'runs', `${id}.jsonl`));
      const records = original.toString('utf8').split('\n').filter(Boolean).length;
      const before = await connectionsSoFar();
      const there = await cli(['session', 'cp', id, '--from-state-dir', from, '--to-config', js]);
      expect(there.code, there.stderr).toBe(0);
      expect((await connectionsSoFar()) - before).toBe(1);
      expect(there.stderr).toBe(
        `copied run ${id} (${records} records) from the file store in ${join(from, 'runs')} to the jetstream stream ${STREAM} (subjects ${PREFIX}.>) at ${nats.server().url}\n`,
      );
      const home = await cli(['session', 'cp', id, '--from-config', js, '--to-state-dir', back]);
      expect(home.code, home.stderr).toBe(0);
      expect(readFileSync(join(back, 'runs', `${id}.jsonl`))).toEqual(original);
      // The stream cannot tell whether anybody still appends to a run that ends on no terminal record: the copy says so.
      const lastSeq = (JSON.parse(original.toString('utf8').trimEnd().split('\n').at(-1)!) as { seq: number; terminal?: unknown }).seq;
      const open = id === a.id ? `, up to seq ${lastSeq}: it has no end recorded, and the jetstream store cannot tell whether a writer is still appending to it` : '';
      expect(home.stderr).toBe(`copied run ${id} (${records} records${open}) from the jetstream stream ${STREAM} (subjects ${PREFIX}.>) at ${nats.server().url} to the file store in ${join(back, 'runs')}\n`);

      // Both folds agree (how each store lists the run differs: only the file store can tell a crashed writer).
      const onFile = await cli(['session', 'show', id, '--json', '--state-dir', from, '--config', file]);
      const { updated: _u1, listed_status: _l1, times: fileTimes, ...fileState } = JSON.parse(onFile.stdout) as Record<string, unknown>;
      const { updated: _u2, listed_status: _l2, times: streamTimes, ...streamState } = JSON.parse((await cli(['session', 'show', id, '--json', '--config', js])).stdout) as Record<string, unknown>;
      expect(streamState).toEqual(fileState);
      expect(Object.keys(fileTimes as object).length > 0).toBe(id === a.id); // the fixture was written without times
      expect(streamTimes).toEqual(fileTimes); // the copy carries its records' own times, not those the copy got as it was written

      // Never over an existing run, and never onto itself.
      const again = await cli(['session', 'cp', id, '--from-state-dir', from, '--to-config', js]);
      expect(again.code).toBe(1);
      expect(errorLine(again)).toBe(
        `logbook: run ${id} already exists in the jetstream stream ${STREAM} (subjects ${PREFIX}.>) at ${nats.server().url}; ` +
          `session cp never overwrites a run: remove it there first with \`logbook session rm ${id} --config ${js}\`, or copy to another store`,
      );
      const self = await cli(['session', 'cp', id, '--from-config', js, '--to-config', js]);
      expect(self.code).toBe(2);
      expect(errorLine(self)).toMatch(/^logbook: both sides are the jetstream stream LOGBOOK_CLI .*: a run cannot be copied onto itself/);
    }

    // The run killed on the file store resumes on JetStream: only the unanswered tools run.
    expect(lines(a.notes)).toEqual(['a', 'b', 'c']);
    const resumed = await cli(['run', '--config', js, '--resume', a.id], a.env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(lines(a.notes)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(turnsAsked(a.turns)).toEqual([0, 1, 2]);
    expect(await fold(a.id)).toEqual(reference);
    // Its times are its records' own: those the file store kept for the copied ones, then what was written on JetStream since the copy.
    const { times } = JSON.parse((await cli(['session', 'show', a.id, '--json', '--config', js])).stdout) as { times: object };
    expect(Object.keys(times)).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);

    // session rm on the stream.
    const rm = await cli(['session', 'rm', a.id, '--config', js]);
    expect(rm.code).toBe(0);
    expect(rm.stdout).toBe(`removed run ${a.id}\n`);
    const gone = await cli(['session', 'show', a.id, '--config', js]);
    expect(gone.code).toBe(1);
    expect(errorLine(gone)).toMatch(new RegExp(`^logbook: no run ${a.id} in the jetstream stream ${STREAM} .*; \`logbook session ls\` lists the runs$`));
    expect((await cli(['session', 'ls', '--config', js])).stdout).not.toMatch(/^moved\s/m);
    const twice = await cli(['session', 'rm', a.id, '--config', js]);
    expect(twice.code).toBe(1);
    expect(errorLine(twice)).toMatch(/^logbook: cannot remove moved: no run moved in the jetstream stream/);
    // Removed means removed: the file copy goes back in as it was.
    expect((await cli(['session', 'cp', a.id, '--from-state-dir', from, '--to-config', js])).code).toBe(0);
    const out = tempDir();
    expect((await cli(['session', 'cp', a.id, '--from-config', js, '--to-state-dir', out])).code).toBe(0);
    expect(readFileSync(join(out, 'runs', `${a.id}.jsonl`))).toEqual(readFileSync(join(from, 'runs', `${a.id}.jsonl`)));
  }, 120_000);

  it('nats-server stopped while a tool runs: the run fails cleanly, and after a restart resumes with nothing lost or duplicated', async () => {
    const a = attempt('bounce', { SLOW_NOTE: 'd' });
    const child = spawnCli(['run', '--config', js, '--name', a.id, PROMPT], { cwd: dir, env: a.env });
    const done = finished(child, 60_000);
    await until(`${a.notes}.started`); // note d is running: c's result is journaled
    let failed: CliResult;
    let unreachable: CliResult;
    try {
      await nats.server().stop();
      writeFileSync(`${a.notes}.go`, ''); // d finishes while the server is down
      failed = await done;
      unreachable = await cli(['session', 'ls', '--config', js]);
    } finally {
      await nats.server().restart();
    }
    expect(failed.signal).toBeNull();
    expect(failed.code).toBe(1);
    const line = errorLine(failed);
    expect(line).toMatch(new RegExp(`^logbook: cannot append seq 7 to run bounce in stream ${STREAM}: the NATS server at ${nats.server().url} is unreachable`));
    expect(line.endsWith(`; resume with: logbook run --resume bounce --config ${js}`)).toBe(true);
    expect(failed.stderr).toMatch(/^warning: could not journal the run's end \(error\)/m);
    expect(unreachable.code).toBe(1);
    expect(errorLine(unreachable)).toBe(`logbook: cannot connect to NATS at ${nats.server().url}: connection refused; is nats-server running there?`);

    const show = await cli(['session', 'show', a.id, '--config', js]);
    expect(show.stdout).toMatch(/^status +open$/m);
    expect(show.stdout).toMatch(/in the middle of a tool batch, 1 of 3 calls answered/);

    const resumed = await cli(['run', '--config', js, '--resume', a.id], a.env);
    expect(resumed.stderr).not.toMatch(/^logbook:/m);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('Noted a to e.\n');
    expect(await fold(a.id)).toEqual(reference);
    // d's result never reached the journal, so d ran again; nothing else did, and no model turn was paid twice.
    expect(lines(a.notes)).toEqual(['a', 'b', 'c', 'd', 'd', 'e']);
    expect(turnsAsked(a.turns)).toEqual([0, 1, 2]);
  }, 90_000);

  it.each([
    ['its subjects purged', 'purged', 'run purged was removed from stream GONE_purged while it was being written \\(its meta record is gone\\)'],
    ['its stream deleted and created again', 'replaced', 'stream GONE_replaced was deleted and created again while run replaced was being written \\(created \\S+ when the run was opened, \\S+ now\\)'],
  ])("a run's journal removed while a tool runs (%s): the run fails with exit 1 saying so, and runs nothing more", async (_how, id, cause) => {
    const stream = `GONE_${id}`;
    const prefix = `logbook.gone.${id}`;
    await addStream(nats.server().url, journalStream(stream, prefix));
    const config = writeConfig(stream, jetstreamSession(nats.server().url, stream));
    const a = attempt(id, { SLOW_NOTE: 'd' });
    const done = finished(spawnCli(['run', '--config', config, '--name', a.id, PROMPT], { cwd: dir, env: a.env }), 60_000);
    await until(`${a.notes}.started`); // note d is running: c's result (seq 6) is journaled
    const nc = await connect({ servers: nats.server().url });
    try {
      const jsm = await jetstreamManager(nc);
      if (id === 'purged') {
        await jsm.streams.purge(stream, { filter: `${prefix}.${id}.>` }); // what \`nats stream purge --subject\` does
      } else {
        await jsm.streams.delete(stream);
        await jsm.streams.add(journalStream(stream, prefix));
      }
    } finally {
      await nc.close();
      writeFileSync(`${a.notes}.go`, '');
    }
    const failed = await done;
    expect(failed.code).toBe(1);
    // Before 2.11 the record subject was free, so the record landed and was taken back out; from 2.11 the run's tail fence refused it.
    const takenBack = supportsTailFence(binary.version) ? '' : ' \\(the record was taken back out\\)';
    expect(errorLine(failed)).toMatch(
      new RegExp(
        `^logbook: cannot append seq 7 to run ${id} in stream ${stream}: ${cause}.*; seq 7 and what follows are not kept${takenBack}\\. ` +
          'Restore the run from a copy, or start a new run$',
      ),
    );
    // No answer (only the words of the two turns before), no tool after d run, and nothing written into what was left.
    expect(failed.stdout).toBe('Two notes first.\nThree more.\n');
    expect(lines(a.notes)).toEqual(['a', 'b', 'c', 'd']);
    expect(turnsAsked(a.turns)).toEqual([0, 1]);
    const show = await cli(['session', 'show', a.id, '--config', config]);
    expect(show.code).toBe(1);
    expect(errorLine(show)).toMatch(new RegExp(`^logbook: no run ${id} in the jetstream stream \\S+ \\(subjects \\S+\\) at nats://\\S+; \`logbook session ls\` lists the runs$`));
  }, 90_000);

  it('a stream that fills while a tool runs (a limit set on it since): the run fails saying which limit and its fix, and resumes once it is raised', async () => {
    const stream = 'FILLS';
    const prefix = 'logbook.fills';
    await addStream(nats.server().url, journalStream(stream, prefix));
    const config = writeConfig(stream, jetstreamSession(nats.server().url, stream));
    const a = attempt('filling', { SLOW_NOTE: 'd' });
    const done = finished(spawnCli(['run', '--config', config, '--name', a.id, PROMPT], { cwd: dir, env: a.env }), 60_000);
    await until(`${a.notes}.started`); // note d is running: c's result (seq 6) is journaled
    const nc = await connect({ servers: nats.server().url });
    const jsm = await jetstreamManager(nc);
    let held = 0; // the run's records so far and the notes beside it
    try {
      const { config: current, state } = await jsm.streams.info(stream);
      held = state.messages;
      await jsm.streams.update(stream, { ...current, max_msgs: held });
    } finally {
      writeFileSync(`${a.notes}.go`, '');
    }
    const failed = await done;
    expect(failed.code).toBe(1);
    expect(errorLine(failed)).toBe(
      `logbook: cannot append seq 7 to run filling in stream ${stream}: stream ${stream} is full: it holds ${held} messages and its max_msgs is ${held} ` +
        `(fix: nats stream edit ${stream} --max-msgs=-1); resume with: logbook run --resume filling --config ${config}`,
    );
    expect(failed.stderr).not.toMatch(/another writer|already exists/);
    // Until it is fixed, every command refuses the stream; then the run resumes, running only the note whose result was refused.
    expect(errorLine(await cli(['session', 'ls', '--config', config]))).toMatch(new RegExp(`^logbook: stream ${stream} cannot hold journals: it keeps at most ${held} messages: `));
    try {
      const { config: current } = await jsm.streams.info(stream);
      await jsm.streams.update(stream, { ...current, max_msgs: -1 });
    } finally {
      await nc.close();
    }
    const resumed = await cli(['run', '--config', config, '--resume', a.id], a.env);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(await fold(a.id, config)).toEqual(reference);
    expect(lines(a.notes)).toEqual(['a', 'b', 'c', 'd', 'd', 'e']);
    expect(turnsAsked(a.turns)).toEqual([0, 1, 2]);
  }, 90_000);

  describe('an ack lost on the way back', () => {
    let proxy: TcpProxy;
    beforeAll(async () => {
      proxy = await startTcpProxy(nats.server().port);
    });
    afterAll(async () => {
      await proxy.close();
    });

    it('fails the run cleanly; the resume finds the stored record and does not run its tool again', async () => {
      const a = attempt('lostack');
      const viaProxy = writeConfig('proxied', jetstreamSession(proxy.url));
      // Note b's result (seq 4) is stored, its ack never arrives, and the client cannot get back to ask.
      const cut = proxy.dropAckOf(`${PREFIX}.${a.id}.4`).then(() => proxy.refuseConnections(true));
      let failed: CliResult;
      try {
        failed = await cli(['run', '--config', viaProxy, '--name', a.id, PROMPT], a.env);
        await cut;
      } finally {
        proxy.refuseConnections(false);
      }
      expect(failed.code).toBe(1);
      expect(errorLine(failed)).toMatch(/^logbook: cannot append seq 4 to run lostack .*may or may not be stored.*; resume with: logbook run --resume lostack --config \S+$/);
      expect(lines(a.notes)).toEqual(['a', 'b']);

      const show = await cli(['session', 'show', a.id, '--config', js]);
      // Both results are journaled, so the batch is whole: nothing is in flight.
      expect(show.stdout).toMatch(/^tool calls +2 /m);
      expect(show.stdout).not.toMatch(/tool batch/);
      // Its end could not be journaled either (the server was unreachable): it ends on no terminal record.
      expect(show.stdout).toMatch(/^where +before the model's next turn, with no end recorded: /m);
      const resumed = await cli(['run', '--config', viaProxy, '--resume', a.id], a.env);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(await fold(a.id)).toEqual(reference);
      expect(lines(a.notes)).toEqual(['a', 'b', 'c', 'd', 'e']);
      expect(turnsAsked(a.turns)).toEqual([0, 1, 2]);
    }, 90_000);
  });

  it("keeps where each run was started and its origin beside it: -c in two directories goes on with each one's own, and ls shows a conversation once", async () => {
    const stream = 'LOGBOOK_PLACES';
    await addStream(nats.server().url, journalStream(stream, 'logbook.places'));
    const inDir = (name: string, answers: string[]): string => {
      const at = join(dir, name);
      mkdirSync(at, { recursive: true });
      writeFileSync(join(at, 'turns.yaml'), `turns:\n${answers.map((t) => `  - text: ${t}\n`).join('')}`);
      writeFileSync(join(at, 'agent.yaml'), `provider: script\nscript: turns.yaml\n${jetstreamSession(nats.server().url, stream)}\n`);
      return at;
    };
    const one = inDir('place-one', ['One first.', 'One second.']);
    const two = inDir('place-two', ['Two first.', 'Two second.']);
    const here = (cwd: string, args: string[]) => runCli(args, { cwd, timeoutMs: 60_000 });
    expect((await here(one, ['run', '--name', 'js-one', 'asked in one'])).code).toBe(0);
    expect((await here(two, ['run', '--name', 'js-two', 'asked in two'])).code).toBe(0);
    const fromOne = await here(one, ['run', '-c', 'more in one']);
    expect(fromOne.stderr).toMatch(/^continuing completed run js-one as new run \S+$/m);
    expect(fromOne.stdout).toBe('One second.\n');
    const fromTwo = await here(two, ['run', '-c', 'more in two']);
    expect(fromTwo.stderr).toMatch(/^continuing completed run js-two as new run \S+$/m);
    const ls = await here(one, ['session', 'ls', '--here']);
    const rows = ls.stdout.trimEnd().split('\n').slice(1);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(/ +completed +.* more in one {2}\+1 earlier$/);
    const listed = (await here(one, ['session', 'ls', '--json', '--forks'])).stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string; forked_from?: { run_id: string } });
    expect(listed.filter((r) => r.forked_from !== undefined).map((r) => r.forked_from!.run_id).sort()).toEqual(['js-one', 'js-two']);
  }, 60_000);

  it('examples/jetstream.yaml works as its comments say', async () => {
    const example = join(ROOT, 'examples', 'jetstream.yaml');
    const text = readFileSync(example, 'utf8');
    const command = /^#\s+(nats stream add .*)$/m.exec(text)?.[1];
    const config = loadConfig(example);
    expect(config.session.backend).toBe('jetstream');
    const stream = config.session.options.stream as string;
    const prefix = /--subjects '(.+)\.>'/.exec(command ?? '')?.[1];
    // The line the example and the docs give is the one a missing stream's refusal gives.
    expect(command).toBe(streamAddCommand(stream));
    for (const page of ['docs/operations.md', 'docs/guide/stores.md']) {
      expect(readFileSync(join(ROOT, page), 'utf8').match(/^nats stream add LOGBOOK .*$/gm), page).toEqual([command]);
    }
    const copy = join(dir, 'example.yaml');
    writeFileSync(
      copy,
      text
        .replace(`url: ${config.nats!.url}`, `url: ${nats.server().url}`)
        .replace(/^script: .*$/m, `script: ${join(ROOT, 'examples', 'demo', 'script.yaml')}`),
    );
    const missing = await runCli(['session', 'ls', '--config', copy], { cwd: ROOT });
    expect(missing.stderr).toContain(`create it with: ${command}`);

    // The operator's step, then the example pointed at this server.
    await addStream(nats.server().url, journalStream(stream, prefix!));
    const r = await runCli(['run', '--config', copy, '--name', 'example', 'How big is this project?'], { cwd: ROOT, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`run example (jetstream stream ${stream} (subjects ${prefix}.>) at ${nats.server().url})`);
    const ls = await runCli(['session', 'ls', '--config', copy], { cwd: ROOT });
    expect(ls.stdout).toMatch(/^example\s+completed\s/m);
  }, 60_000);

  it.each<[string, Record<string, unknown>, string, Record<string, unknown>]>([
    ['max_bytes', { max_bytes: 5100 }, 'it keeps at most 5100 bytes: once full it refuses records, and nats-server 2.9 drops its oldest ones instead (a finished run among them) (fix: nats stream edit LIMIT_max_bytes --max-bytes=-1)', { max_bytes: -1 }],
    ['max_msgs', { max_msgs: 40 }, 'it keeps at most 40 messages: once full it refuses records, and nats-server 2.9 drops its oldest ones instead (a finished run among them) (fix: nats stream edit LIMIT_max_msgs --max-msgs=-1)', { max_msgs: -1 }],
    ['memory storage', { storage: 'memory' }, "it keeps its messages in memory, so a server restart loses every run in it (fix: a stream's storage cannot be edited; create it again with file storage: nats stream rm LIMIT_memory_storage, then nats stream add LIMIT_memory_storage --subjects 'logbook.limit.memory_storage.>' --max-msgs-per-subject=1 --discard=new --discard-per-subject --storage=file --defaults; move the runs to keep out first, as docs/guide/stores.md shows)", {}],
  ])('a stream with %s, which could lose a finished run, is refused by every command with its fix, and nothing is written', async (what, limit, problem, fixed) => {
    const stream = `LIMIT_${what.replace(' ', '_')}`;
    const prefix = `logbook.limit.${what.replace(' ', '_')}`;
    await addStream(nats.server().url, { ...journalStream(stream, prefix), ...limit });
    const config = writeConfig(stream, jetstreamSession(nats.server().url, stream));
    const a = attempt(`limit-${what.replace(' ', '-')}`);
    const refusal = `logbook: stream ${stream} cannot hold journals: ${problem}`;
    const run = await cli(['run', '--config', config, '--name', a.id, PROMPT], a.env);
    expect(run.code).toBe(1);
    expect(errorLine(run)).toBe(refusal);
    expect(lines(a.notes)).toEqual([]);
    const ls = await cli(['session', 'ls', '--config', config]);
    expect(ls.code).toBe(1);
    expect(errorLine(ls)).toBe(refusal);

    // Nothing reached the stream; with the fix applied (a memory stream created again with file storage) the run goes through.
    const nc = await connect({ servers: nats.server().url });
    try {
      const jsm = await jetstreamManager(nc);
      expect((await jsm.streams.info(stream)).state.messages).toBe(0);
      if (what === 'memory storage') {
        await jsm.streams.delete(stream);
        await jsm.streams.add({ ...journalStream(stream, prefix), storage: 'file' as never });
      } else {
        await jsm.streams.update(stream, fixed);
      }
    } finally {
      await nc.close();
    }
    const again = await cli(['run', '--config', config, '--name', a.id, PROMPT], a.env);
    expect(again.code, again.stderr).toBe(0);
    expect(lines(a.notes)).toEqual(['a', 'b', 'c', 'd', 'e']);
  }, 60_000);
});
