/**
 * A stdout or stderr that goes away never ends a run: `logbook run --json |
 * head -1` (the reader leaves after the meta line: EPIPE), `2>/dev/full` and
 * `>/dev/full` (ENOSPC). Through the real binary and a real shell pipeline:
 * the run goes on to its end, its journal completes, what would have been
 * written is dropped, and the exit code says what happened.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/index.js';
import { BIN } from '../helpers/cli.js';
import { FIVE_NOTES_SCRIPT, fiveNotesConfig, lines } from '../helpers/five-notes.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-closed-output-');
const stateDir = join(dir, 'state');
const store = new FileStore(join(stateDir, 'runs'));
const config = join(dir, 'agent.yaml');
const notes = join(dir, 'notes');

beforeAll(() => {
  writeFileSync(join(dir, 'script.json'), JSON.stringify(FIVE_NOTES_SCRIPT));
  // Each note takes a moment, so the reader of `| head -1` is gone long before the batch ends.
  writeFileSync(config, fiveNotesConfig({ note: `sleep 0.2; printf "%s\\\\n" "$1" >> ${notes}; echo "noted $1"` }));
});

interface Shell {
  /** The exit status of logbook, the first command of the line. */
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `logbook ARGS` followed by `rest` of a bash command line (`| head -1`, `2>/dev/full`). */
function shell(args: string[], rest: string): Promise<Shell> {
  const line = `"$@" ${rest}; echo "status \${PIPESTATUS[0]}" >&3`;
  const child = spawn('bash', ['-c', line, 'bash', process.execPath, BIN, ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', HOME: dir, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let status = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  (child.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => (status += d.toString()));
  return new Promise((resolve) => child.on('close', () => resolve({ code: Number(/status (\d+)/.exec(status)?.[1] ?? NaN), stdout, stderr })));
}

const run = (id: string, rest: string, extra: string[] = []): Promise<Shell> =>
  shell(['run', '--config', config, '--state-dir', stateDir, '--name', id, ...extra, 'Take five notes.'], rest);

describe('a run whose output goes away', () => {
  it('with --json | head -1 goes on to the end of the run and exits 0, the meta line read', async () => {
    const r = await run('head', '| head -1', ['--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ seq: 1, meta: { run_id: 'head' } });
    expect((await store.load('head')).state.terminal).toEqual({ reason: 'completed' });
    expect(lines(notes).slice(-5)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('with 2>/dev/full goes on to the end and says by its exit code that the narration was lost', async () => {
    const r = await run('nospace-err', '2>/dev/full');
    expect((await store.load('nospace-err')).state.terminal).toEqual({ reason: 'completed' });
    expect(r.stdout).toBe('Two notes first.\nThree more.\nNoted a to e.\n'); // each model turn's words, as they stream
    expect(r.code).toBe(1);
  });

  it('with >/dev/full goes on to the end and says on stderr that its output was lost', async () => {
    const r = await run('nospace-out', '>/dev/full');
    expect((await store.load('nospace-out')).state.terminal).toEqual({ reason: 'completed' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^logbook: cannot write to stdout: no space is left on the device \(ENOSPC\); the rest of its output is dropped$/m);
  });
});

describe('a command that only prints, whose reader leaves', () => {
  it('ends at once with the exit code it had: session search | head -1', async () => {
    const r = await shell(['session', 'search', 'note', '--state-dir', stateDir], '| head -1');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.split('\n').filter(Boolean)).toHaveLength(1);
  });
});
