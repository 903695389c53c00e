/**
 * A compaction killed (SIGKILL) at each of its writes, then resumed through
 * the binary against the local Messages server: before the summary call,
 * after it (its note kept), after the continuation's notes, after the
 * continuation's meta, after the compacted run's terminal record. Every time
 * at most one summary call is paid again, there is exactly one continuation,
 * the compacted run ends on one terminal record naming it, and the run
 * completes there.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../src/index.js';
import { runCli, runCrashing } from '../helpers/cli.js';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { NOTE_TOOL, anthropicNoteTaker } from '../helpers/note-taker.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-compaction-crash-');
const api = useFakeAnthropic();

const WINDOW = 3000;
/** With this window the run compacts once, after its ninth turn's result: seq 19. */
const CUT = 19;
const TURNS = 12;

const env = () => ({ ANTHROPIC_BASE_URL: api.origin, ANTHROPIC_API_KEY: 'test-key', LOGBOOK_PROVIDER_MAX_RETRIES: '0' });

function config(name: string): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, `provider: anthropic\nmodel: claude-test\nmax_tokens: 200\ncontext_window: ${WINDOW}\nmax_iterations: 100\nsystem: You take notes.\n${NOTE_TOOL}`);
  return path;
}

interface Outcome {
  store: FileStore;
  stateDir: string;
  summaries: number;
}

/** Runs the note-taker crashing where `crash` says, then resumes run `id` (or, when `resumeId` says, another) until it completes. */
async function crashAndResume(name: string, crash: string): Promise<Outcome & { crashed: Awaited<ReturnType<typeof runCli>> }> {
  const stateDir = join(dir, name);
  const cfg = config(name);
  api.reset();
  api.contextWindow = WINDOW;
  const model = anthropicNoteTaker(TURNS);
  api.handler = model.handler;
  const args = ['run', '--config', cfg, '--state-dir', stateDir];
  const crashed = await runCrashing([...args, '--name', name, `Take ${TURNS} notes.`], crash, { cwd: dir, env: env(), timeoutMs: 60_000 });
  expect(crashed.signal).toBe('SIGKILL');
  return { store: new FileStore(join(stateDir, 'runs')), stateDir, summaries: model.state.summaries, crashed };
}

async function runsOf(store: FileStore) {
  return (await store.list({ origins: true })).sort((a, b) => a.created.localeCompare(b.created));
}

/** What every crash leaves once resumed: one continuation, the origin ended once naming it, the run completed there. */
async function expectOneContinuation(store: FileStore, stateDir: string, origin: string): Promise<string> {
  const runs = await runsOf(store);
  expect(runs.map((r) => r.runId)).toHaveLength(2);
  const continuation = runs.find((r) => r.runId !== origin)!;
  expect(continuation.forkedFrom).toEqual({ from: origin, at: CUT, compacted: true });
  const journal = readFileSync(join(stateDir, 'runs', `${origin}.jsonl`), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
  expect(journal).toHaveLength(CUT + 1);
  expect(journal.filter((r) => r.terminal !== undefined)).toEqual([
    { seq: CUT + 1, protocol: 'io.choria.fisk-ai.v1.session.terminal', terminal: { reason: 'suspended', message: `compacted into ${continuation.runId}` } },
  ]);
  const done = await store.load(continuation.runId);
  expect(done.state.terminal).toEqual({ reason: 'completed' });
  expect(done.state.messages.at(-1)!.content).toEqual([{ text: { text: `Done: ${TURNS} notes.` } }]);
  return continuation.runId;
}

const summaryCalls = (): number => api.requests.filter((r) => JSON.stringify(r.json.messages.at(-1)).includes('write a summary of this whole conversation')).length;

describe('a compaction killed at each of its writes', () => {
  it('before the summary call (the last record before the cut durable): the resume compacts, paying for one summary', async () => {
    const name = 'before-summary';
    const o = await crashAndResume(name, `kill-after-seq:${CUT}`);
    expect(summaryCalls()).toBe(0);
    const r = await runCli(['run', '--config', join(dir, `${name}.yaml`), '--state-dir', o.stateDir, '--resume', name], { cwd: dir, env: env(), timeoutMs: 60_000 });
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(summaryCalls()).toBe(1);
    await expectOneContinuation(o.store, o.stateDir, name);
  }, 120_000);

  it('after the summary call (its note kept): the resume makes the continuation from the note, paying for no second summary', async () => {
    const name = 'after-summary';
    const o = await crashAndResume(name, 'kill-after-note:compacted');
    expect(summaryCalls()).toBe(1);
    const shown = await runCli(['session', 'show', name, '--state-dir', o.stateDir], { cwd: dir });
    expect(shown.stdout).toMatch(new RegExp(`where +being compacted into run (\\S+) at seq ${CUT} when its writer stopped: the summary is kept, the hand-off to the continuation is not finished`));
    expect(shown.stdout).toMatch(/next +a resume finishes the hand-off \(no second summary is paid\) and goes on in run \S+: logbook run --resume after-summary/);
    const r = await runCli(['run', '--config', join(dir, `${name}.yaml`), '--state-dir', o.stateDir, '--resume', name], { cwd: dir, env: env(), timeoutMs: 60_000 });
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(new RegExp(`run ${name} was compacted into run \\S+ at seq ${CUT} when it stopped; it goes on there`));
    expect(summaryCalls()).toBe(1);
    await expectOneContinuation(o.store, o.stateDir, name);
  }, 120_000);

  it("after the continuation's origin note, before its meta: the resume makes it under the id the note chose", async () => {
    const name = 'after-origin-note';
    const o = await crashAndResume(name, 'kill-after-note:forked');
    const r = await runCli(['run', '--config', join(dir, `${name}.yaml`), '--state-dir', o.stateDir, '--resume', name], { cwd: dir, env: env(), timeoutMs: 60_000 });
    expect(r.code).toBe(0);
    expect(summaryCalls()).toBe(1);
    await expectOneContinuation(o.store, o.stateDir, name);
  }, 120_000);

  it("after the continuation's meta: the resume of the compacted run ends it and goes on in that continuation", async () => {
    const name = 'after-meta';
    const o = await crashAndResume(name, 'kill-after-create:2');
    const before = await runsOf(o.store);
    expect(before).toHaveLength(2);
    const r = await runCli(['run', '--config', join(dir, `${name}.yaml`), '--state-dir', o.stateDir, '--resume', name], { cwd: dir, env: env(), timeoutMs: 60_000 });
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(summaryCalls()).toBe(1);
    const continuation = await expectOneContinuation(o.store, o.stateDir, name);
    expect(before.map((b) => b.runId).sort()).toEqual([name, continuation].sort());
  }, 120_000);

  it("after the continuation's meta, resumed by the continuation: the compacted run is ended all the same", async () => {
    const name = 'after-meta-by-continuation';
    const o = await crashAndResume(name, 'kill-after-create:2');
    const continuation = (await runsOf(o.store)).find((r) => r.runId !== name)!.runId;
    const r = await runCli(['run', '--config', join(dir, `${name}.yaml`), '--state-dir', o.stateDir, '--resume', continuation], { cwd: dir, env: env(), timeoutMs: 60_000 });
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(summaryCalls()).toBe(1);
    expect(await expectOneContinuation(o.store, o.stateDir, name)).toBe(continuation);
  }, 120_000);

  it("after the compacted run's terminal record: its resume is refused, naming the continuation, which goes on", async () => {
    const name = 'after-terminal';
    const o = await crashAndResume(name, `kill-after-seq:${CUT + 1}`);
    const continuation = (await runsOf(o.store)).find((r) => r.runId !== name)!.runId;
    const cfg = join(dir, `${name}.yaml`);
    const refused = await runCli(['run', '--config', cfg, '--state-dir', o.stateDir, '--resume', name], { cwd: dir, env: env() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `logbook: run ${name} was compacted into run ${continuation} at seq ${CUT}; its conversation goes on there: logbook run --resume ${continuation} --config ${cfg} --state-dir ${o.stateDir}\n`,
    );
    // A second compaction of the same run and seq is refused, naming the first.
    const again = await runCli(['session', 'compact', name, '--config', cfg, '--state-dir', o.stateDir], { cwd: dir, env: env() });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(new RegExp(`^logbook: run ${name} was compacted into run ${continuation} at seq ${CUT}`));
    const r = await runCli(['run', '--config', cfg, '--state-dir', o.stateDir, '--resume', continuation], { cwd: dir, env: env(), timeoutMs: 60_000 });
    expect(r.code).toBe(0);
    expect(summaryCalls()).toBe(1);
    await expectOneContinuation(o.store, o.stateDir, name);
  }, 120_000);
});
