/**
 * A run's own model and system prompt (--model, --system, --system-file,
 * --append-system) and how a run stopped at a limit exits, through the real
 * binary: the fingerprint holds what was used, the command printed to continue
 * the run repeats it (and works as printed), a resume without it is drift.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../src/index.js';
import { systemHash } from '../../src/core/index.js';
import { BIN, runCli, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-overrides-');
const stateDir = join(dir, 'state');
const store = new FileStore(join(stateDir, 'runs'));

writeFileSync(
  join(dir, 'turns.yaml'),
  'turns:\n  - text: Calling.\n    tool_calls: [{ name: say, input: { word: one } }]\n  - text: Calling again.\n    tool_calls: [{ name: say, input: { word: two } }]\n  - text: Done.\n',
);
const TOOL = 'tools:\n  - name: say\n    input_schema: { type: object, properties: { word: { type: string } } }\n    command: [echo, "{{word}}"]\n';
writeFileSync(join(dir, 'agent.yaml'), `provider: script\nscript: turns.yaml\nsystem: Be terse.\nmax_iterations: 1\n${TOOL}`);
writeFileSync(join(dir, 'roomy.yaml'), `provider: script\nscript: turns.yaml\nsystem: Be terse.\n${TOOL}`);
writeFileSync(join(dir, 'system.txt'), 'You are a pirate.');

const run = (args: string[]): Promise<CliResult> => runCli(['run', '--state-dir', stateDir, ...args], { cwd: dir });

/** The command a run's end printed to continue it. */
const printedResume = (r: CliResult): string => /(?:resume with|then resume with): (logbook run --resume .+?)(?: --force)?$/m.exec(r.stderr)![1]!;

/** Runs a printed command in bash from the test directory, with `logbook` on PATH. */
function shell(command: string): CliResult {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  try {
    symlinkSync(BIN, join(bin, 'logbook'));
  } catch {
    /* made by an earlier call */
  }
  try {
    const stdout = execFileSync('bash', ['-c', command], { cwd: dir, env: { PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: dir, NO_COLOR: '1' }, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { code: 0, signal: null, stdout, stderr: '' };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { code: e.status, signal: null, stdout: e.stdout, stderr: e.stderr };
  }
}

describe('a run given its own model and system prompt', () => {
  it('records them in the fingerprint, and the resume printed repeats them and works as printed', async () => {
    const r = await run(['--config', 'roomy.yaml', '--name', 'own', '--model', 'pirate-model', '--system-file', 'system.txt', '--append-system', 'Say arr.', 'go']);
    expect(r.code, r.stderr).toBe(0);
    const { fingerprint } = (await store.load('own')).state;
    expect(fingerprint.model).toBe('pirate-model');
    expect(fingerprint.system_hash).toBe(systemHash('You are a pirate.\n\nSay arr.'));
    const replaced = await run(['--config', 'roomy.yaml', '--name', 'own-2', '--system', '-dash first', 'go']);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect((await store.load('own-2')).state.fingerprint.system_hash).toBe(systemHash('-dash first'));
  });

  it('stops at max_iterations with exit 5, printing a resume that repeats --model and the system prompt flags', async () => {
    const r = await run(['--name', 'capped', '--model', 'm2', '--system', 'Be brief.', '--append-system', 'Really.', 'go']);
    expect(r.code).toBe(5);
    const command = printedResume(r);
    expect(command).toBe(`logbook run --resume capped --state-dir ${stateDir} --model m2 --system 'Be brief.' --append-system Really.`);
    // A chat's limit is per typed turn; a one-shot's is raised and forced: raise it, and the printed command works.
    writeFileSync(join(dir, 'agent.yaml'), `provider: script\nscript: turns.yaml\nsystem: Be terse.\nmax_iterations: 5\n${TOOL}`);
    try {
      const resumed = shell(`${command} --force`);
      expect(resumed.code, resumed.stderr).toBe(0);
      expect(resumed.stdout).toBe('Calling again.\nDone.\n'); // the words of the turns the resume asked for
      expect((await store.load('capped')).state.status).toBe('completed');
    } finally {
      writeFileSync(join(dir, 'agent.yaml'), `provider: script\nscript: turns.yaml\nsystem: Be terse.\nmax_iterations: 1\n${TOOL}`);
    }
  });

  it('is drift when a resume leaves them out, and refused as such', async () => {
    const r = await run(['--name', 'drifts', '--model', 'm3', 'go']);
    expect(r.code).toBe(5);
    const refused = await run(['--resume', 'drifts']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^logbook: run drifts was written with a different configuration \(model: m3 -> script\); restore it, or pass --force/m);
    const again = await run(['--resume', 'drifts', '--model', 'm3']);
    expect(again.stderr).not.toMatch(/different configuration/);
    expect(again.code).toBe(5); // the same cap, a fresh look at it: still one model call allowed in all
  });

  it('refuses --system with --system-file, an empty --model and a --system-file it cannot read', async () => {
    expect((await run(['--system', 'a', '--system-file', 'system.txt', 'go'])).code).toBe(2);
    const empty = await run(['--model', '', 'go']);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(/^logbook: --model is empty: give a model name$/m);
    const missing = await run(['--system-file', 'nope.txt', 'go']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^logbook: cannot read --system-file nope\.txt: no such file$/m);
  });
});

describe('a run stopped at a limit', () => {
  it('exits 4 at its token budget', async () => {
    writeFileSync(join(dir, 'budget.yaml'), `provider: script\nscript: turns.yaml\nbudget: 10\n${TOOL}`);
    const r = await run(['--config', 'budget.yaml', '--name', 'spent', 'go']);
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(/^logbook: token budget spent: .*; raise budget in .*budget\.yaml, then resume with: logbook run --resume spent/m);
  });

  it('lists both codes in --help', async () => {
    for (const args of [['--help'], ['run', '--help']]) {
      const help = (await runCli(args)).stdout;
      expect(help).toMatch(/^ {2}4 {4}a run stopped at its token budget/m);
      expect(help).toMatch(/^ {2}5 {4}a run stopped at max_iterations/m);
    }
  });
});
