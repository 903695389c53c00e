/**
 * `logbook session show ID` and `session show ID --json` through the binary, as
 * whole processes, against a `node` process that reads the same journal file and
 * keeps `JSON.parse` of each of its lines (bench/show/parse-lines.ts; reading the
 * file whole, and again 64 KiB at a time, the faster of the two being the
 * baseline): wall time from spawn to exit and peak resident memory, rounds
 * alternating between the commands, at 1k, 10k and 100k records.
 */
import { mkdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeJournal } from './lib/content.js';
import { BIN, tempDir, type BenchOptions } from './lib/env.js';
import { PEAK_RSS_IMPORT, peakRssKiB, timeProcess, type ProcessRun } from './lib/proc.js';
import type { Section } from './lib/report.js';
import { bytes, count, growthVerdict, median, ms, num, ratio, type GrowthPoint } from './lib/stats.js';

const PARSE_LINES = join(dirname(fileURLToPath(import.meta.url)), 'show', 'parse-lines.js');
const TARGET = { showWall: 1.25, showRss: 1.3, jsonWall: 1.4, jsonRss: 1.4 };

interface Figures {
  ms: number;
  peakKiB: number;
}

type Side = 'base' | 'chunked' | 'show' | 'json';

/** Runs one side once: its wall time and peak RSS, its output checked. */
async function runSide(side: Side, dir: string, id: string, file: string, records: number): Promise<Figures> {
  const node = [process.execPath, '--import', PEAK_RSS_IMPORT];
  const args =
    side === 'base' || side === 'chunked'
      ? [...node, PARSE_LINES, file, ...(side === 'chunked' ? ['chunked'] : [])]
      : [...node, BIN, 'session', 'show', id, '--state-dir', dir, ...(side === 'json' ? ['--json'] : [])];
  const r: ProcessRun = await timeProcess(args, dir, { discardStdout: side === 'json' });
  const ok =
    r.code === 0 &&
    (side === 'base' || side === 'chunked' ? r.stdout.trim() === String(records) : side === 'json' ? r.stdout.startsWith(`{"run_id":"${id}"`) : r.stdout.includes(id));
  const peak = peakRssKiB(r);
  if (!ok || peak === null) throw new Error(`${side} of ${id} failed (exit ${r.code}): ${r.stderr.slice(0, 2000)}`);
  return { ms: r.ms, peakKiB: peak };
}

/** The --json output parses, holds the whole conversation and matches the folded counters (checked once, untimed). */
async function checkJson(dir: string, id: string, records: number): Promise<void> {
  const r = await timeProcess([process.execPath, BIN, 'session', 'show', id, '--state-dir', dir, '--json'], dir);
  const state = JSON.parse(r.stdout) as { messages: unknown[]; counters: { llm_calls: number } };
  const turns = Math.floor((records - 1) / 2);
  if (state.counters.llm_calls !== turns || state.messages.length !== 1 + 2 * turns) {
    throw new Error(`show --json of ${id} gave ${state.messages.length} messages and ${state.counters.llm_calls} model calls for ${records} records`);
  }
}

/** The leaner of the two baselines for one figure: its value and which it was. */
function best(whole: number, chunked: number): { value: number; which: 'whole' | 'chunked' } {
  return chunked <= whole ? { value: chunked, which: 'chunked' } : { value: whole, which: 'whole' };
}

const BASELINE_NAME = {
  whole: '`readFileSync` + `split` + `JSON.parse` of each line kept',
  chunked: 'the 64 KiB chunked read + `JSON.parse` of each line kept',
};

export async function benchShow(opts: BenchOptions): Promise<Section> {
  const sizes = opts.quick ? [1_000, 10_000] : [1_000, 10_000, 100_000];
  const dir = tempDir('show');
  mkdirSync(join(dir, 'runs'));
  const per: { records: number; size: number; rounds: number; med: Record<Side, Figures>; fastest: Figures }[] = [];
  for (const n of sizes) {
    const id = `run-${n}`;
    const file = join(dir, 'runs', `${id}.jsonl`);
    const records = writeJournal(file, id, n);
    if (n === sizes[0]) await checkJson(dir, id, records);
    const rounds = n >= 100_000 ? (opts.quick ? 3 : 7) : opts.quick ? 5 : 11;
    const got: Record<Side, Figures[]> = { base: [], chunked: [], show: [], json: [] };
    for (let r = 0; r < rounds; r++) {
      const order: Side[] = ['base', 'chunked', 'show', 'json'];
      if (r % 2 === 1) order.reverse();
      for (const side of order) got[side].push(await runSide(side, dir, id, file, records));
    }
    const med = (side: Side): Figures => ({ ms: median(got[side].map((f) => f.ms)), peakKiB: median(got[side].map((f) => f.peakKiB)) });
    const m = { base: med('base'), chunked: med('chunked'), show: med('show'), json: med('json') };
    const fastest = { ms: Math.min(m.base.ms, m.chunked.ms), peakKiB: Math.min(m.base.peakKiB, m.chunked.peakKiB) };
    per.push({ records, size: statSync(file).size, rounds, med: m, fastest });
  }
  const largest = per[per.length - 1]!;
  const { base, chunked, show, json } = largest.med;
  const wall = best(base.ms, chunked.ms);
  const peak = best(base.peakKiB, chunked.peakKiB);
  const label = count(sizes[sizes.length - 1]!);
  const r = {
    showWall: show.ms / wall.value,
    showRss: show.peakKiB / peak.value,
    jsonWall: json.ms / wall.value,
    jsonRss: json.peakKiB / peak.value,
  };
  const verdict = (ok: boolean): 'met' | 'missed' | '—' => (opts.quick ? '—' : ok ? 'met' : 'missed'); // the targets are for 100k records
  const mib = (kib: number): string => bytes(kib * 1024);
  const growth = (side: 'show' | 'json'): string => {
    const points: GrowthPoint[] = per.map((p) => ({ n: p.records, ms: p.med[side].ms }));
    const each = per.map((p) => `${count(p.records)}: ${ms(p.med[side].ms)} (${ratio(p.med[side].ms / p.fastest.ms)} wall, ${ratio(p.med[side].peakKiB / p.fastest.peakKiB)} peak)`);
    return `${each.join(' · ')}; ${growthVerdict(points)}`;
  };
  const baselineWall = `${BASELINE_NAME[wall.which]}: ${ms(wall.value)}`;
  const baselinePeak = `${BASELINE_NAME[peak.which]}: peak ${mib(peak.value)}`;
  const slower = wall.which === 'whole' ? chunked : base;
  const slowerName = wall.which === 'whole' ? BASELINE_NAME.chunked : BASELINE_NAME.whole;
  return {
    rows: [
      {
        what: `\`session show ID\` on a ${label}-record run, whole process, wall time`,
        measured: ms(show.ms),
        baseline: baselineWall,
        figure: ratio(r.showWall),
        target: `≤ ${TARGET.showWall}×`,
        verdict: verdict(r.showWall <= TARGET.showWall),
        growth: growth('show'),
      },
      {
        what: `\`session show ID\` on a ${label}-record run, peak RSS`,
        measured: mib(show.peakKiB),
        baseline: baselinePeak,
        figure: ratio(r.showRss),
        target: `≤ ${TARGET.showRss}×`,
        verdict: verdict(r.showRss <= TARGET.showRss),
        growth: '—',
      },
      {
        what: `\`session show ID --json\` on a ${label}-record run, whole process, wall time and peak RSS`,
        measured: `${ms(json.ms)}, peak ${mib(json.peakKiB)}`,
        baseline: wall.which === peak.which ? `${BASELINE_NAME[wall.which]}: ${ms(wall.value)}, peak ${mib(peak.value)}` : `${baselineWall}; ${baselinePeak}`,
        figure: `${ratio(r.jsonWall)} wall, ${ratio(r.jsonRss)} peak`,
        target: `≤ ${TARGET.jsonWall}× each`,
        verdict: verdict(r.jsonWall <= TARGET.jsonWall && r.jsonRss <= TARGET.jsonRss),
        growth: growth('json'),
      },
    ],
    notes: [
      `Show: \`node bin/logbook session show ID --state-dir D\` (and with \`--json\`, its output piped to the benchmark and counted), timed from spawn to exit, against \`node parse-lines.js FILE [chunked]\` (bench/show/parse-lines.ts), which reads the journal and keeps \`JSON.parse\` of each of its lines in an array, the least any fold of the run must do, in two ways: the file read whole with \`readFileSync(path, 'utf8')\` and split at newlines, and read 64 KiB at a time, each chunk decoded alone. Runs of ${per.map((p) => `${num(p.records)} records (${bytes(p.size)})`).join(', ')}; medians of ${per.map((p) => p.rounds).join(', ')} rounds, the four commands alternating. Each ratio is against the faster (for memory, the leaner) of the two in the same rounds; growth's ratios likewise. The slower, for reference: ${slowerName}, ${ms(slower.ms)}, peak ${mib(slower.peakKiB)} at ${label} records (\`session show\` ${ratio(show.ms / slower.ms)} its wall time, --json ${ratio(json.ms / slower.ms)}). Every process is started with \`--import\` of a one-line module that reports its peak resident set at exit (VmHWM: Linux carries \`process.resourceUsage().maxRSS\` across exec from the forked benchmark process, which would put a floor of the benchmark's own size under every figure). The --json output was checked once to parse and hold the whole conversation.`,
    ],
  };
}
