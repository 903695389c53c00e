/**
 * What a person waits for before logbook does anything: `logbook --version`
 * and `logbook session ls` over an empty store, whole processes through the
 * binary, against spawning `node -e 0`, rounds alternating between the three;
 * each figure the median of the rounds' differences from the bare start of the
 * same round.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, tempDir, type BenchOptions } from './lib/env.js';
import { timeProcess } from './lib/proc.js';
import type { Section } from './lib/report.js';
import { aboveBare, mean, median, ms, pairedDifference } from './lib/stats.js';

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
  const cpu: Record<Side, number[]> = { bare: [], version: [], ls: [] };
  for (let r = 0; r < rounds; r++) {
    const order: Side[] = ['bare', 'version', 'ls'];
    if (r % 2 === 1) order.reverse();
    for (const side of order) {
      const run = await timeProcess(commands[side], dir);
      const ok = run.code === 0 && (side !== 'version' || /^\d+\.\d+\.\d+/.test(run.stdout)) && (side !== 'ls' || run.stderr.startsWith('no runs'));
      if (!ok) throw new Error(`${commands[side].slice(1).join(' ')} failed (exit ${run.code}): ${run.stderr}`);
      times[side].push(run.ms);
      if (run.cpuMs !== null) cpu[side].push(run.cpuMs);
    }
  }
  const bare = median(times.bare);
  const row = (side: 'version' | 'ls', what: string) => {
    const above = pairedDifference(times[side], times.bare);
    return {
      what,
      measured: ms(median(times[side])),
      baseline: `\`node -e 0\`: ${ms(bare)}`,
      figure: aboveBare(above, { subject: cpu[side], bare: cpu.bare }),
      target: `≤ ${TARGET_MS[side]} ms above`,
      verdict: (above.median <= TARGET_MS[side] ? 'met' : 'missed') as 'met' | 'missed',
      growth: '—',
    };
  };
  const cpuNote = cpu.bare.length === 0 ? '' : ` CPU time of each process (its threads and what it waited for; the mean of the rounds): \`node -e 0\` ${ms(mean(cpu.bare))}, --version ${ms(mean(cpu.version))}, ls ${ms(mean(cpu.ls))}.`;
  return {
    rows: [row('version', '`logbook --version`, whole process'), row('ls', '`logbook session ls` on an empty store, whole process')],
    notes: [
      `Start-up: wall time from spawn to exit of \`node bin/logbook --version\` and \`node bin/logbook session ls --state-dir D\` (D holding no runs) against \`node -e 0\`, ${rounds} rounds, the three alternating; each figure above bare start-up is the median of the rounds' differences from the bare start of the same round.${cpuNote}`,
    ],
  };
}
