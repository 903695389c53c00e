/**
 * The logbook command on a three-node JetStream cluster with an R3 stream, its
 * `nats.url` naming all three servers: the stream leader is killed (SIGKILL)
 * while a scripted run's tool runs, and a crashed run is resumed right after
 * the kill. Both runs wait through the election (the one on a terminal says so
 * on its spinner), complete, and fold to the uninterrupted run, every tool run
 * once. The real binary (built dist/) against real nats-servers this file starts.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { BIN, finished, runCli, runCrashing, spawnCli, type CliResult } from '../helpers/cli.js';
import { FIVE_NOTES_SCRIPT, fiveNotesConfig, lines, NOTE_DEFAULTS, turnsAsked } from '../helpers/five-notes.js';
import { journalStream } from '../helpers/jetstream.js';
import { natsClusterOfBlock } from '../helpers/nats-cluster.js';
import { describeEachNatsServer } from '../helpers/nats-server.js';
import { tempDir } from '../helpers/tmp.js';
import { Tmux } from '../helpers/tmux.js';

const nats = natsClusterOfBlock();
let dir: string;
const STREAM = 'LOGBOOK_HA';
const PROMPT = 'Take five notes.';

/**
 * The tool appends its argument to $NOTES_FILE. The note named by $SLOW_NOTE
 * touches $NOTES_FILE.started and waits for $NOTES_FILE.go (at most 30 s), so
 * the test can kill the leader while it runs.
 */
const NOTE =
  'printf "%s\\n" "$1" >> "$NOTES_FILE"; ' +
  'if [ "$1" = "$SLOW_NOTE" ] && [ ! -e "$NOTES_FILE.started" ]; then touch "$NOTES_FILE.started"; ' +
  'i=0; while [ ! -e "$NOTES_FILE.go" ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; fi; ' +
  'echo "noted $1"';

let config: string;
let reference: Record<string, unknown>;
let t: Tmux | undefined;

function attempt(id: string, env: Record<string, string> = {}): { id: string; notes: string; turns: string; env: Record<string, string> } {
  const notes = join(dir, `${id}.notes`);
  const turns = join(dir, `${id}.turns`);
  return { id, notes, turns, env: { ...NOTE_DEFAULTS, NOTES_FILE: notes, LOGBOOK_SCRIPT_LOG: turns, ...env } };
}

const cli = (args: string[], env: Record<string, string> = {}): Promise<CliResult> => runCli(args, { cwd: dir, env, timeoutMs: 60_000 });

/** `session show ID --json` without the fields that name the run or its times. */
async function fold(id: string): Promise<Record<string, unknown>> {
  const r = await cli(['session', 'show', id, '--json', '--config', config]);
  expect(r.code, r.stderr).toBe(0);
  const { run_id: _id, created: _c, updated: _u, times: _t, ...state } = JSON.parse(r.stdout) as Record<string, unknown>;
  return state;
}

async function until(path: string, deadlineMs = 20_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!existsSync(path)) {
    if (Date.now() > deadline) throw new Error(`${path} did not appear`);
    await sleep(50);
  }
}

describeEachNatsServer('the logbook command on a three-node jetstream cluster', (binary) => {
  nats.start(binary);
  beforeAll(() => {
    dir = tempDir('logbook-jsha-'); // the runs' witness files, per server
  });
  beforeAll(async () => {
    await nats.cluster().addStream({ ...journalStream(STREAM, 'logbook.ha'), num_replicas: 3 });
    writeFileSync(join(dir, 'script.json'), JSON.stringify(FIVE_NOTES_SCRIPT));
    config = join(dir, 'agent.yaml');
    writeFileSync(
      config,
      fiveNotesConfig({ witnesses: true, note: NOTE, extra: `session:\n  backend: jetstream\n  options:\n    stream: ${STREAM}\nnats:\n  url: ${nats.cluster().urls}` }),
    );
    const a = attempt('reference');
    const r = await cli(['run', '--config', config, '--name', a.id, PROMPT], a.env);
    expect(r.code, r.stderr).toBe(0);
    reference = await fold(a.id);
    expect(reference.terminal).toEqual({ reason: 'completed' });
  }, 60_000);

  afterEach(() => t?.kill());
  afterAll(() => {
    for (const id of ['through', 'quorum']) writeFileSync(join(dir, `${id}.notes.go`), '');
  });

  it('the stream leader killed while a tool runs: the run waits on its spinner and completes; a run resumed right after the kill completes too', async () => {
    const cluster = nats.cluster();
    // A run killed right after note a's result (seq 3) was stored, to be resumed once the leader is dead.
    const crashed = attempt('crashed');
    const killed = await runCrashing(['run', '--config', config, '--name', crashed.id, PROMPT], 'kill-after-seq:3', {
      cwd: dir,
      env: crashed.env,
      timeoutMs: 60_000,
    });
    expect(killed.signal).toBe('SIGKILL');

    // A run on a terminal whose note d waits for the test.
    const through = attempt('through', { SLOW_NOTE: 'd' });
    const env = { PATH: process.env.PATH ?? '', HOME: dir, TERM: 'xterm-256color', NO_COLOR: '1', ...through.env };
    t = Tmux.start([process.execPath, BIN, 'run', '--config', config, '--name', through.id, PROMPT], { env, cwd: dir, width: 120, height: 30 });
    await until(`${through.notes}.started`);

    const leader = await cluster.streamLeader(STREAM);
    await cluster.kill(leader);
    writeFileSync(`${through.notes}.go`, ''); // d's result is appended while the stream has no leader
    const resumed = cli(['run', '--config', config, '--resume', crashed.id], crashed.env);
    await t.waitFor(/waiting for the leader of stream LOGBOOK_HA \d+\.\ds/, 'the wait on the spinner', 30_000);
    expect(await t.exitStatus(45_000)).toBe(0);
    expect(t.text()).toContain('Noted a to e.');
    expect(t.text()).not.toMatch(/logbook:/);
    const r = await resumed;
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Three more.\nNoted a to e.\n'); // the turns the resume asked for

    expect(await cluster.streamLeader(STREAM)).not.toBe(leader);
    for (const run of [through, crashed]) {
      // Every tool ran once, no model turn was asked for twice, and the journal folds to the uninterrupted run.
      expect(lines(run.notes), run.id).toEqual(['a', 'b', 'c', 'd', 'e']);
      expect(turnsAsked(run.turns), run.id).toEqual([0, 1, 2]);
      expect(await fold(run.id)).toEqual(reference);
    }
  }, 90_000);

  it("the stream's other two servers killed while a tool runs: its append waits for one to come back, and the run completes, every tool run once", async () => {
    const cluster = nats.cluster();
    for (const node of cluster.nodes) if (!node.running) await cluster.restart(node.name);
    const leader = await cluster.streamLeader(STREAM);
    const a = attempt('quorum', { SLOW_NOTE: 'd' });
    const done = finished(spawnCli(['run', '--config', config, '--name', a.id, PROMPT], { cwd: dir, env: a.env }), 60_000);
    await until(`${a.notes}.started`);
    const others = cluster.nodes.filter((n) => n.name !== leader);
    await Promise.all(others.map((n) => cluster.kill(n.name)));
    // d's result is appended where the leader cannot replicate it. Its first attempt waits out the
    // request timeout (5 s); the retries after it find the record still in process (on 2.11+ the
    // leader says so), until a server is back to take it.
    writeFileSync(`${a.notes}.go`, '');
    await sleep(7_000);
    await cluster.restart(others[0]!.name);
    const r = await done;
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Two notes first.\nThree more.\nNoted a to e.\n'); // each model turn's words, as they stream
    expect(lines(a.notes)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(turnsAsked(a.turns)).toEqual([0, 1, 2]);
    expect(await fold(a.id)).toEqual(reference);
  }, 90_000);
});
