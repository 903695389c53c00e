/**
 * A full or read-only state directory, on real file systems (small tmpfs mounts
 * made by the test): one line that says what failed and where, exit 1, nothing
 * half-made left behind, and a journal that still folds. Mounting needs root;
 * without it these tests are skipped.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/index.js';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-io-');
const mounted: string[] = [];

function mountTmpfs(name: string, size: string): string {
  const at = join(dir, name);
  mkdirSync(at);
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', at]);
  mounted.push(at);
  return at;
}

function canMount(): boolean {
  if (process.getuid?.() !== 0) return false;
  try {
    const at = mountTmpfs('probe', '16k');
    execFileSync('umount', [at]);
    mounted.pop();
    return true;
  } catch {
    return false;
  }
}

afterAll(() => {
  for (const at of mounted.reverse()) execFileSync('umount', ['-l', at]);
});

writeFileSync(join(dir, 'turns.yaml'), 'turns:\n  - text: Writing a lot.\n    tool_calls: [{ name: big }]\n  - text: Done.\n');
writeFileSync(
  join(dir, 'agent.yaml'),
  'provider: script\nscript: turns.yaml\ntools:\n  - name: big\n    command: [sh, -c, "head -c 200000 /dev/zero | tr \\"\\\\\\\\0\\" x"]\n    max_output: 300000\n',
);
const run = (state: string, args: string[]) => runCli(['run', '--config', join(dir, 'agent.yaml'), '--state-dir', state, ...args], { cwd: dir });

/** Fills a file system until it has no room left. */
function fill(at: string): void {
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${join(at, 'filler')}`, 'bs=4k'], { stdio: 'ignore' });
  } catch {
    /* dd stops at ENOSPC */
  }
}

describe.skipIf(!canMount())('a state directory that cannot take the journal', () => {
  it('full before the run is created: says so in one line, leaves no lock or temporary file', async () => {
    const state = mountTmpfs('full', '64k');
    mkdirSync(join(state, 'runs'));
    fill(state);
    const r = await run(state, ['--name', 'nospace', 'go']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(new RegExp(`^logbook: cannot create run nospace in ${join(state, 'runs')}: no space is left on the device \\(ENOSPC\\)$`));
    expect(readdirSync(join(state, 'runs'))).toEqual([]);
  });

  it('full in the middle of a run: the append fails cleanly, the journal folds, and a resume goes on once there is room', async () => {
    const state = mountTmpfs('filling', '128k');
    const r = await run(state, ['--name', 'filling', 'go']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^logbook: cannot append seq 3 to .*filling\.jsonl: no space is left on the device \(ENOSPC\); resume with: /m);
    const store = new FileStore(join(state, 'runs'));
    const { state: folded } = await store.load('filling');
    expect(folded.pending?.answered).toEqual([]); // the tool result was not kept, and nothing half-written was
    execFileSync('mount', ['-o', 'remount,size=1m', state]);
    const resumed = await run(state, ['--resume', 'filling']);
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('Done.\n');
  });

  it('read-only: a new run and a resume each say so in one line', async () => {
    const state = mountTmpfs('readonly', '1m');
    const first = await run(state, ['--name', 'ro', 'go']);
    expect(first.code).toBe(0);
    execFileSync('mount', ['-o', 'remount,ro', state]);
    const fresh = await run(state, ['--name', 'ro2', 'go']);
    expect(fresh.code).toBe(1);
    expect(fresh.stderr.trim()).toMatch(/^logbook: cannot .*: the file system is read-only \(EROFS\)$/);
    const resumed = await run(state, ['--resume', 'ro', 'more']);
    expect(resumed.code).toBe(1);
    expect(resumed.stderr.trim()).toMatch(/: the file system is read-only \(EROFS\)$/);
    expect(existsSync(join(state, 'runs', 'ro.jsonl'))).toBe(true);
  });
});
