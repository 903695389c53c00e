/**
 * What a person waits for before logbook does anything: `logbook --version`
 * and `logbook session ls` over an empty store, whole processes through the
 * binary, against spawning `node -e 0`, rounds alternating between the three.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, tempDir, type BenchOptions } from './lib/env.js';
import { timeProcess } from './lib/proc.js';
import type { Section } from './lib/report.js';
import { median, ms, percentile, signedMs } from './lib/stats.js';

const TARGET_MS = { version: 30, ls: 60 };

type Side = 'bare' | 'version' | 'ls';

export async function benchStartup(opts: BenchOptions): Promise<Section> {
  const rounds = opts.quick ? 7 : 21;
  const dir = tempDir('startup');
  mkdirSync(join(dir, 'runs'));
  const commands: Record<Side, string[]> = {
    bare: [process.execPath, '-e', '0'],
    version: [process.execPath, BIN, '--version'],
    ls: [process.execPath, BIN, 'session', 'ls', '--state-dir', dir],
  };
  const times: Record<Side, number[]> = { bare: [], version: [], ls: [] };
  for (let r = 0; r < rounds; r++) {
    const order: Side[] = ['bare', 'version', 'ls'];
    if (r % 2 === 1) order.reverse();
    for (const side of order) {
      const run = await timeProcess(commands[side], dir);
      const ok = run.code === 0 && (side !== 'version' || /^\d+\.\d+\.\d+/.test(run.stdout)) && (side !== 'ls' || run.stderr.startsWith('no runs'));
      if (!ok) throw new Error(`${commands[side].slice(1).join(' ')} failed (exit ${run.code}): ${run.stderr}`);
      times[side].push(run.ms);
    }
  }
  const bare = median(times.bare);
  // Rounds pair each command with one bare start: the middle half of their differences.
  const spread = (side: Side): string => {
    const diffs = times[side].map((t, i) => t - times.bare[i]!);
    return `${signedMs(percentile(diffs, 25))}–${signedMs(percentile(diffs, 75))}`;
  };
  const row = (side: 'version' | 'ls', what: string) => {
    const above = median(times[side]) - bare;
    return {
      what,
      measured: ms(median(times[side])),
      baseline: `\`node -e 0\`: ${ms(bare)}`,
      figure: `${signedMs(above)} above bare start-up`,
      target: `≤ ${TARGET_MS[side]} ms above`,
      verdict: (above <= TARGET_MS[side] ? 'met' : 'missed') as 'met' | 'missed',
      growth: '—',
    };
  };
  return {
    rows: [row('version', '`logbook --version`, whole process'), row('ls', '`logbook session ls` on an empty store, whole process')],
    notes: [
      `Start-up: wall time from spawn to exit of \`node bin/logbook --version\` and \`node bin/logbook session ls --state-dir D\` (D holding no runs) against \`node -e 0\`, medians of ${rounds} rounds, the three alternating; the middle half of the rounds' differences from the bare start in the same round: --version ${spread('version')}, ls ${spread('ls')}.`,
    ],
  };
}
