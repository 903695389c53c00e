/**
 * Loading and folding a run (`store.load`: read the file, decode every record,
 * fold) against reading the same file and `JSON.parse` of each of its lines.
 * Both sides read from the page cache; the sides alternate (ABBA).
 */
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FileStore } from 'logbook';
import { writeJournal } from './lib/content.js';
import { tempDir, type BenchOptions } from './lib/env.js';
import type { Section } from './lib/report.js';
import { bytes, count, growthVerdict, interleave, median, ms, num, ratio, type GrowthPoint } from './lib/stats.js';

const TARGET = 1.5;

/** The baseline: every line of the file through JSON.parse, the values kept in memory as a load keeps its records. */
function parseLines(path: string): unknown[] {
  const text = readFileSync(path, 'utf8');
  const values: unknown[] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    values.push(JSON.parse(text.slice(start, end)));
    start = end + 1;
  }
  return values;
}

export async function benchFold(opts: BenchOptions): Promise<Section> {
  const sizes = opts.quick ? [1_000, 10_000] : [1_000, 10_000, 100_000];
  const dir = tempDir('fold');
  const store = new FileStore(dir);
  const points: GrowthPoint[] = [];
  const baselines: GrowthPoint[] = [];
  let largest = { ours: 0, theirs: 0, ratio: 0, records: 0, size: 0 };
  let smallest = { ratio: 0, overhead: 0 };
  for (const n of sizes) {
    const id = `run-${n}`;
    const path = join(dir, `${id}.jsonl`);
    const records = writeJournal(path, id, n);
    const rounds = n >= 100_000 ? (opts.quick ? 3 : 7) : 11;
    let folded = 0;
    const t = await interleave(
      rounds,
      async () => {
        folded = (await store.load(id)).records.length;
      },
      () => parseLines(path),
    );
    if (folded !== records) throw new Error(`load returned ${folded} records, expected ${records}`);
    const ours = median(t.a);
    const theirs = median(t.b);
    points.push({ n: records, ms: ours });
    baselines.push({ n: records, ms: theirs });
    largest = { ours, theirs, ratio: ours / theirs, records, size: statSync(path).size };
    if (points.length === 1) smallest = { ratio: ours / theirs, overhead: (ours - theirs) / records };
  }
  const label = count(sizes[sizes.length - 1]!);
  return {
    rows: [
      {
        what: `load + fold of a ${label}-record run (file backend)`,
        measured: ms(largest.ours),
        baseline: `JSON.parse of the lines: ${ms(largest.theirs)}`,
        figure: ratio(largest.ratio),
        target: `≤ ${TARGET}×`,
        verdict: opts.quick ? '—' : largest.ratio <= TARGET ? 'met' : 'missed', // the target is for 100k records
        growth: `${points.map((p, i) => `${count(p.n)}: ${ms(p.ms / p.n)}/rec (${ratio(p.ms / baselines[i]!.ms)})`).join(' · ')}; ${growthVerdict(points)}`,
      },
    ],
    notes: [
      `Load + fold: ${num(largest.records)} records, ${bytes(largest.size)}; \`store.load(id)\` (read, decode with validation, fold) against reading the file and \`JSON.parse\` of each line into an array (both keep what they read in memory); medians of alternating rounds, each after a garbage collection. Sizes count the run's records (meta + whole turns). The target is for ${label} records; at ${count(sizes[0]!)} the ratio is ${ratio(smallest.ratio)}: there the parsed lines die young and cost the baseline little collection, so the decode's own work (validating every field, cutting out raw tool inputs as text, folding; ${ms(smallest.overhead)} per record) weighs more, while at ${label} keeping everything costs both sides.`,
    ],
  };
}
