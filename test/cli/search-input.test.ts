/**
 * What a person may type into `logbook session search`, through the real
 * binary: plain text of any length is matched as it is (15,000 characters once
 * overflowed the regular expression it was made into), a --regex too long or
 * not a pattern is a usage error quoting only its start, and a pattern that
 * backtracks without end (`(A+)+B` over a line of ten million A's) neither
 * blocks SIGTERM nor runs past --regex-timeout.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { finished, runCli, spawnCli } from '../helpers/cli.js';
import { commandResult, call, text, turn, writeRun } from '../helpers/runs.js';
import { tempDir } from '../helpers/tmp.js';

const state = tempDir('logbook-search-input-');
const LONG = `${'a long pasted log line '.repeat(700).slice(0, 14_997)}END`; // 15,000 characters
const AS = 'A'.repeat(10_000_000);

beforeAll(async () => {
  await writeRun(state, 'pasted', [turn(0, [text(`before ${LONG.toUpperCase()} after`)]), { terminal: { reason: 'completed' } }]);
  await writeRun(state, 'huge', [turn(0, [call('c1', 'sh', { cmd: 'yes A' })]), commandResult('c1', ['sh'], 0, AS), { terminal: { reason: 'completed' } }]);
}, 60_000);

const search = (args: string[]) => runCli(['session', 'search', ...args, '--state-dir', state], { timeoutMs: 60_000 });

/** Seconds of CPU the process `pid` has used (user and system), from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

describe('plain text', () => {
  it('of 15,000 characters is matched as it is, case-insensitively', async () => {
    expect(LONG).toHaveLength(15_000);
    const r = await search([LONG, '--json']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const hit = JSON.parse(r.stdout) as { run_id: string; seq: number };
    expect(hit).toMatchObject({ run_id: 'pasted', seq: 2 });
  });

  it('with the characters a pattern gives meaning to finds them as they are', async () => {
    const r = await search(['(A+)+B']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^no match in 2 runs/);
  });
});

describe('a --regex that cannot be used', () => {
  it('longer than 1,000 characters is a usage error that quotes none of it', async () => {
    const r = await search(['--regex', 'x'.repeat(30_000)]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'logbook: --regex takes a pattern of at most 1,000 characters, and this one has 30,000; to find plain text of any length, drop --regex\n',
    );
  });

  it('that is not a pattern is a usage error quoting its start and saying why', async () => {
    const r = await search(['--regex', `${'('.repeat(900)}x`]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`logbook: --regex "${'('.repeat(60)}"\u2026 (901 characters) is not a regular expression: Unterminated group\n`);
  });
});

describe('a --regex that backtracks without end over a line of ten million characters', () => {
  it('ends at SIGTERM, exit 130', async () => {
    const child = spawnCli(['session', 'search', '--regex', '(A+)+B', '--state-dir', state]);
    const done = finished(child, 60_000);
    // Started, read the run and matching: well past the CPU a start and the read take.
    const deadline = Date.now() + 30_000;
    while (cpuSeconds(child.pid!) < 2 && Date.now() < deadline) await sleep(50);
    child.kill('SIGTERM');
    const r = await done;
    expect(r.signal).toBeNull();
    expect(r.code).toBe(130);
    expect(r.stdout).toBe('');
  }, 90_000);

  it('stops at --regex-timeout, saying the pattern took too long over which record', async () => {
    const r = await search(['--regex', '(A+)+B', '--regex-timeout', '1s']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'logbook: --regex took longer than 1s over seq 3 of run huge, and the search was stopped: a pattern with nested repeats such as (a+)+ ' +
        'can take time exponential in the text it scans; simplify it, or allow it longer with --regex-timeout\n',
    );
  }, 90_000);

  it('a pattern that does not backtrack finds its match in the long line', async () => {
    const r = await search(['--regex', 'A{5}$', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ run_id: 'huge', seq: 3, role: 'tool_result' });
  }, 90_000);
});
