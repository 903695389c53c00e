/**
 * The crash matrix: a scripted run of several turns with multi-tool batches,
 * killed by SIGKILL right after each record becomes durable, and torn in the
 * middle of writing each record, then resumed to completion through the real
 * binary. Every time the final conversation must equal the uninterrupted run's,
 * no journaled model turn may be requested again, and at most one tool may run
 * twice.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FileStore, validateRecord, type LoadedRun } from '../../src/index.js';
import { encodeMessage } from '../../src/core/index.js';
import { CRASH_BIN, runCli, spawnCli, finished, type CliResult } from '../helpers/cli.js';
import { FIVE_NOTES_SCRIPT, fiveNotesConfig, lines, NOTE_DEFAULTS, turnsAsked } from '../helpers/five-notes.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-crash-');
const stateDir = join(dir, 'state');
const store = new FileStore(join(stateDir, 'runs'));

/**
 * The tool appends its argument to $NOTES_FILE (one line per execution) and says
 * so. The note named by $SLOW_NOTE sleeps the first time it runs, long enough to
 * be interrupted.
 */
const NOTE =
  'printf "%s\\n" "$1" >> "$NOTES_FILE"; ' +
  'if [ "$1" = "$SLOW_NOTE" ] && [ ! -e "$NOTES_FILE.slept" ]; then touch "$NOTES_FILE.slept"; sleep 30; fi; ' +
  'echo "noted $1"';

/** A five-notes config on the crash-file backend: the file store, crashed where LOGBOOK_TEST_CRASH says. */
function writeConfig(name: string, o: { system?: string; maxIterations?: number; extra?: string } = {}): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, fiveNotesConfig({ witnesses: true, note: NOTE, ...o, extra: `session: { backend: crash-file }\n${o.extra ?? ''}` }));
  return path;
}

const conversation = (run: LoadedRun): string[] => run.state.messages.map(encodeMessage);

/** One run's id and the files that witness what it did: notes taken and model turns asked for. */
interface Attempt {
  id: string;
  notes: string;
  turns: string;
}

const attempt = (id: string): Attempt => ({ id, notes: join(dir, `${id}.notes`), turns: join(dir, `${id}.turns`) });

function witnesses(a: Attempt, env: Record<string, string> = {}): Record<string, string> {
  return { ...NOTE_DEFAULTS, LOGBOOK_SCRIPT_LOG: a.turns, NOTES_FILE: a.notes, ...env };
}

function run(a: Attempt, args: string[], env: Record<string, string> = {}, config = join(dir, 'agent.yaml')): Promise<CliResult> {
  return runCli(['run', '--config', config, '--state-dir', stateDir, ...args], { cwd: dir, env: witnesses(a, env), bin: CRASH_BIN });
}

/** What each model turn of the script says, as stdout shows it. */
const SAID = FIVE_NOTES_SCRIPT.turns.map((t) => `${t.text}\n`);

let reference: LoadedRun;
let referenceNotes: string[];

beforeAll(async () => {
  writeFileSync(join(dir, 'script.json'), JSON.stringify(FIVE_NOTES_SCRIPT));
  writeConfig('agent');
  const a = attempt('reference');
  const r = await run(a, ['--name', a.id, 'Take five notes.']);
  expect(r.stderr).not.toMatch(/logbook:/);
  expect(r.code).toBe(0);
  expect(r.stdout).toBe(SAID.join('')); // each model turn's words, as they stream
  reference = await store.load(a.id);
  referenceNotes = lines(a.notes);
  expect(referenceNotes).toEqual(['a', 'b', 'c', 'd', 'e']);
  expect(turnsAsked(a.turns)).toEqual([0, 1, 2]);
}, 60_000);

describe('crash matrix', () => {
  it('the uninterrupted run journals meta, 3 assistant turns, 5 results and the terminal, each valid by the schema', () => {
    expect(reference.records).toHaveLength(10);
    expect(reference.state.terminal).toEqual({ reason: 'completed' });
    const journal = readFileSync(join(stateDir, 'runs', 'reference.jsonl'), 'utf8').split('\n').filter(Boolean);
    for (const line of journal) expect(validateRecord(line), line).toEqual({ valid: true });
  });

  for (const mode of ['kill-after-seq', 'tear-seq'] as const) {
    it(`${mode}: every crash point resumes to the same conversation without paying twice`, async () => {
      for (let n = 1; n <= reference.records.length; n++) {
        const a = attempt(`${mode}-${n}`);
        const crashed = await run(a, ['--name', a.id, 'Take five notes.'], { LOGBOOK_TEST_CRASH: `${mode}:${n}` });
        expect(crashed.signal, `${mode}:${n} should die by SIGKILL`).toBe('SIGKILL');
        const askedBeforeCrash = turnsAsked(a.turns);
        const notesBeforeCrash = lines(a.notes).length;

        if (mode === 'tear-seq' && n === 1) {
          // A torn meta means the run was never created: nothing to resume, and nothing half-made left behind.
          const r = await run(a, ['--resume', a.id]);
          expect(r.code).toBe(1);
          expect(r.stderr).toMatch(/^logbook: no run tear-seq-1/m);
          expect((await store.list()).map((x) => x.runId)).not.toContain(a.id);
          continue;
        }

        const journaledTurns = (await store.load(a.id)).state.counters.llm_calls;
        const resumed = await run(a, ['--resume', a.id]);
        if (mode === 'kill-after-seq' && n === reference.records.length) {
          // Killed after the terminal record: the run is complete and says so.
          expect(resumed.code).toBe(1);
          expect(resumed.stderr).toMatch(/already completed/);
        } else {
          expect(resumed.stderr, `${mode}:${n}`).not.toMatch(/^logbook:/m);
          expect(resumed.code, `${mode}:${n}`).toBe(0);
          // The words of the model turns the resume asked for, none said twice, the answer last; when it asked
          // for none (every turn was journaled), the answer the journal holds.
          expect(resumed.stdout).toBe(journaledTurns === SAID.length ? SAID.at(-1) : SAID.slice(journaledTurns).join(''));
        }

        const final = await store.load(a.id);
        expect(conversation(final), `${mode}:${n}`).toEqual(conversation(reference));
        expect(final.state.terminal).toEqual({ reason: 'completed' });

        // No journaled turn was asked for again: the resume asked only for later turns.
        const askedOnResume = turnsAsked(a.turns).slice(askedBeforeCrash.length);
        for (const t of askedOnResume) expect(t, `${mode}:${n} asked for turn ${t} again`).toBeGreaterThanOrEqual(journaledTurns);
        // Each turn was paid for once, except a turn whose record was torn before it was durable.
        const asked = turnsAsked(a.turns);
        expect(asked.length - new Set(asked).size, `${mode}:${n}`).toBeLessThanOrEqual(mode === 'tear-seq' ? 1 : 0);

        // At most one tool ran twice, and every note was taken.
        const notes = lines(a.notes);
        expect(notes.length - referenceNotes.length, `${mode}:${n} notes ${notes.join()}`).toBeLessThanOrEqual(1);
        expect(new Set(notes)).toEqual(new Set(referenceNotes));
        expect(notesBeforeCrash).toBeLessThanOrEqual(referenceNotes.length);
      }
    }, 300_000);
  }
});

describe('a follow-up of a completed run killed while copying it', () => {
  // The fork copies the reference's records but its completed terminal (seqs 2-9) in one batch: torn inside it, or killed once it is durable.
  it.each([
    ['tear-seq:5', 4],
    ['kill-after-seq:5', 9],
  ])('%s: the origin is left as it was, and the copy is a head of its records that lists interrupted', async (crash, kept) => {
    const origin = readFileSync(store.journalPath('reference'), 'utf8');
    const before = new Set((await store.list()).map((r) => r.runId));
    const crashed = await run(attempt(`follow-${crash.replace(':', '-')}`), ['--resume', 'reference', 'and then?'], { LOGBOOK_TEST_CRASH: crash });
    expect(crashed.signal).toBe('SIGKILL');
    expect(readFileSync(store.journalPath('reference'), 'utf8')).toBe(origin);
    const made = (await store.list()).filter((r) => !before.has(r.runId));
    expect(made).toMatchObject([{ status: 'interrupted', lastSeq: kept }]);
    const copied = await store.lines(made[0]!.runId);
    expect(copied.slice(1)).toEqual(origin.split('\n').slice(1, kept));
  });
});

describe('suspend and resume by signal', () => {
  it('SIGINT in the middle of a tool journals suspended without that result; the resume runs it again', async () => {
    const a = attempt('sigint');
    const child = spawnCli(['run', '--config', join(dir, 'agent.yaml'), '--state-dir', stateDir, '--name', a.id, 'Take five notes.'], {
      cwd: dir,
      env: witnesses(a, { SLOW_NOTE: 'b' }),
      bin: CRASH_BIN,
    });
    const done = finished(child);
    const deadline = Date.now() + 20_000;
    while (!existsSync(`${a.notes}.slept`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.kill('SIGINT');
    const r = await done;
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/suspended; resume with: logbook run --resume sigint/);
    const suspended = await store.load(a.id);
    // The suspend names the call it cut short: it may have taken effect.
    expect(suspended.state.terminal).toEqual({ reason: 'suspended', message: 'interrupted during call toolu_0_1 (note)' });
    expect(suspended.state.pending?.answered).toEqual(['toolu_0_0']);

    const resumed = await run(a, ['--resume', a.id], { SLOW_NOTE: 'b' });
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toMatch(/resuming run sigint/);
    expect(resumed.stderr).toMatch(/continuing/);
    expect(conversation(await store.load(a.id))).toEqual(conversation(reference));
    expect(lines(a.notes)).toEqual(['a', 'b', 'b', 'c', 'd', 'e']); // b was interrupted, so it ran again
    expect(turnsAsked(a.turns)).toEqual([0, 1, 2]);
  }, 60_000);
});

describe('resume gates through the command', () => {
  it('refuses a completed run, a chat/one-shot mismatch and drift; --force overrides drift only', async () => {
    const a = attempt('gates');
    const done = await run(a, ['--name', a.id, 'Take five notes.']);
    expect(done.code).toBe(0);
    const again = await run(a, ['--resume', a.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^logbook: run gates already completed/m);

    const b = attempt('gates-b');
    expect((await run(b, ['--name', b.id, 'Take five notes.'], { LOGBOOK_TEST_CRASH: 'kill-after-seq:3' })).signal).toBe('SIGKILL');
    const chat = await run(b, ['--resume', b.id, '--chat']);
    expect(chat.code).toBe(1);
    expect(chat.stderr).toMatch(/one-shot run; resume it without --chat/);

    // Settings outside the fingerprint never block a resume: the prompt cache, the budget, the store.
    const c = attempt('gates-c');
    expect((await run(c, ['--name', c.id, 'Take five notes.'], { LOGBOOK_TEST_CRASH: 'kill-after-seq:3' })).signal).toBe('SIGKILL');
    const outside = writeConfig('outside', { extra: 'prompt_cache: true\nbudget: 1000000' });
    const allowed = await run(c, ['--resume', c.id], {}, outside);
    expect(allowed.stderr).not.toMatch(/^logbook:/m);
    expect(allowed.code).toBe(0);

    const drifted = writeConfig('drifted', { system: 'You take many notes.', maxIterations: 12 });
    const refused = await run(b, ['--resume', b.id], {}, drifted);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/system prompt: changed; max_iterations: 10 -> 12/);
    expect(refused.stderr).toMatch(/--force/);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    const forced = await run(b, ['--resume', b.id, '--force'], {}, drifted);
    expect(forced.code).toBe(0);
  }, 60_000);
});
