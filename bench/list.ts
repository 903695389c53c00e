/**
 * `logbook session ls` through the binary, as a user runs it: 1,000 runs against
 * 1,000 runs ten times longer (the listing must not read whole journals), and
 * the growth from 100 to 10,000 runs. Rounds alternate between the stores.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeJournal } from './lib/content.js';
import { BIN, tempDir, type BenchOptions } from './lib/env.js';
import { timeProcess } from './lib/proc.js';
import type { Section } from './lib/report.js';
import { count, growthVerdict, median, ms, ratio, type GrowthPoint } from './lib/stats.js';

const TARGET_MS = 250;
const SHORT = 21; // records per run: meta and 10 turns
const LONG = 201; // ten times that

/** A state dir whose runs dir holds `runs` runs of `records` records each. */
function stateDir(runs: number, records: number): string {
  const dir = tempDir(`ls-${runs}x${records}`);
  mkdirSync(join(dir, 'runs'));
  for (let i = 0; i < runs; i++) {
    const id = `run-${String(i).padStart(5, '0')}`;
    writeJournal(join(dir, 'runs', `${id}.jsonl`), id, records);
  }
  return dir;
}

async function ls(dir: string, runs: number): Promise<number> {
  const r = await timeProcess([process.execPath, BIN, 'session', 'ls', '--state-dir', dir], dir);
  const lines = r.stdout.split('\n').filter(Boolean).length;
  const rows = lines === 0 ? 0 : lines - 1; // a header above the rows
  if (r.code !== 0 || rows !== runs) throw new Error(`session ls listed ${rows} of ${runs} runs (exit ${r.code}): ${r.stderr}`);
  return r.ms;
}

/** Median times of `ls` over each store, rounds alternating between the stores. */
async function measure(stores: { dir: string; runs: number }[], rounds: number): Promise<number[]> {
  const times = stores.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    const order = stores.map((_, i) => i);
    if (r % 2 === 1) order.reverse();
    for (const i of order) times[i]!.push(await ls(stores[i]!.dir, stores[i]!.runs));
  }
  return times.map(median);
}

export async function benchList(opts: BenchOptions): Promise<Section> {
  const rounds = opts.quick ? 5 : 11;
  const runs = opts.quick ? 300 : 1_000;
  const short = { dir: stateDir(runs, SHORT), runs };
  const long = { dir: stateDir(runs, LONG), runs };
  const empty = { dir: stateDir(0, 0), runs: 0 };
  const [shortMs, longMs, emptyMs] = await measure([short, long, empty], rounds);
  const flat = longMs! / shortMs!;

  const sizes = opts.quick ? [100, 1_000, 3_000] : [100, 1_000, 10_000];
  const stores = sizes.map((n) => (n === runs ? short : { dir: stateDir(n, SHORT), runs: n }));
  // The empty store in the same rounds: the fixed start-up the growth is judged above.
  const times = await measure([...stores, empty], opts.quick ? 3 : 5);
  const base = times[sizes.length]!;
  const points: GrowthPoint[] = sizes.map((n, i) => ({ n, ms: times[i]! }));
  const perRun = (points[2]!.ms - points[1]!.ms) / (points[2]!.n - points[1]!.n);
  const growth = `${points.map((p) => `${count(p.n)} runs: ${ms(p.ms)}`).join(' · ')}; ${growthVerdict(points, base)} above start-up; ${ms(perRun)} per added run`;

  const met = shortMs! < TARGET_MS && longMs! < TARGET_MS && flat <= 1.2;
  return {
    rows: [
      {
        what: `\`session ls\` over ${count(runs)} runs (${SHORT} records each)`,
        measured: ms(shortMs!),
        baseline: `runs of ${LONG} records: ${ms(longMs!)}`,
        figure: `${ms(shortMs!)}; ${ratio(flat)} with 10× longer runs`,
        target: `< ${TARGET_MS} ms, flat in run size`,
        verdict: opts.quick ? '—' : met ? 'met' : 'missed', // the target is for 1k runs
        growth,
      },
    ],
    notes: [
      `\`session ls\`: wall time of \`node bin/logbook session ls --state-dir D\` from spawn to exit, output piped, medians of ${rounds} alternating rounds; the same command over an empty store takes ${ms(emptyMs!)} (Node start-up and module loading). "Flat" means at most 1.2× with 10× longer runs. Growth is judged on the time above the empty store's, measured in the same rounds: "sublinear" means later runs cost less each, as warm-up spreads over more of them.`,
    ],
  };
}
