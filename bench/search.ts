/**
 * `logbook session search` through the binary against `grep -ril` over the
 * same journal files, rounds alternating. The text is in the last record of
 * one run in a hundred, so both read every byte of the store (grep -l stops
 * reading a file at its first match; the text is at the end). Then the peak
 * memory of the search as the store grows ten-fold in runs, and as its runs
 * grow ten-fold in records: streaming keeps it flat.
 */
import { appendFileSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FileStore, textMatcher } from 'logbook';
import { line, writeJournal } from './lib/content.js';
import { BIN, tempDir, type BenchOptions } from './lib/env.js';
import { PEAK_RSS_IMPORT, peakRssKiB, timeProcess } from './lib/proc.js';
import type { Section } from './lib/report.js';
import { bytes, count, interleave, median, ms, ratio, settle } from './lib/stats.js';

const NEEDLE = 'quokka';
const EVERY = 100; // one run in EVERY holds the text
/** "Flat": what a search holds once done stays under this, whatever the store's size... */
const HELD_MAX_BYTES = 1024 * 1024;
/** ...and its peak grows less than this with ten times the runs or ten times longer runs. */
const PEAK_MAX = 1.5;

/** A state dir of `runs` runs of `records` records; one in EVERY ends on a follow-up holding NEEDLE. */
function store(runs: number, records: number): { dir: string; matching: number; size: number } {
  const dir = tempDir(`search-${runs}x${records}`);
  mkdirSync(join(dir, 'runs'));
  let matching = 0;
  for (let i = 0; i < runs; i++) {
    const id = `run-${String(i).padStart(5, '0')}`;
    const path = join(dir, 'runs', `${id}.jsonl`);
    if (i % EVERY !== 0) {
      writeJournal(path, id, records);
      continue;
    }
    const written = writeJournal(path, id, records - 1);
    appendFileSync(path, line(written + 1, { user: { message: { role: 'user', content: [{ text: { text: `And what about the ${NEEDLE}?` } }] } } }));
    matching++;
  }
  const size = readdirSync(join(dir, 'runs')).reduce((n, f) => n + statSync(join(dir, 'runs', f)).size, 0);
  return { dir, matching, size };
}

async function search(dir: string, expected: number, rss = false): Promise<{ ms: number; peakKiB: number }> {
  const args = [process.execPath, ...(rss ? ['--import', PEAK_RSS_IMPORT] : []), BIN, 'session', 'search', NEEDLE, '--state-dir', dir];
  const r = await timeProcess(args, dir);
  const found = r.stdout.split('\n').filter(Boolean).length;
  if (r.code !== 0 || found !== expected) throw new Error(`session search found ${found} of ${expected} (exit ${r.code}): ${r.stderr}`);
  return { ms: r.ms, peakKiB: peakRssKiB(r) ?? 0 };
}

/**
 * What streaming every run of the store holds once it is done, measured in this
 * process (after a garbage collection each side): the list of runs, and
 * nothing of the runs read, however many and however long.
 */
async function heldBytes(dir: string): Promise<number> {
  const store = new FileStore(join(dir, 'runs'));
  const matcher = textMatcher(NEEDLE);
  settle();
  const before = process.memoryUsage().heapUsed;
  const runs = await store.list();
  for (const run of runs) for await (const _ of store.records(run.runId, { select: (l) => matcher.mightMatch(l) }));
  settle();
  const held = process.memoryUsage().heapUsed - before;
  if (runs.length === 0) throw new Error('no runs');
  return Math.max(0, held);
}

async function grep(dir: string, expected: number): Promise<void> {
  const r = await timeProcess(['grep', '-ril', NEEDLE, join(dir, 'runs')], dir);
  const found = r.stdout.split('\n').filter(Boolean).length;
  if (r.code !== 0 || found !== expected) throw new Error(`grep -ril found ${found} of ${expected} (exit ${r.code}): ${r.stderr}`);
}

export async function benchSearch(opts: BenchOptions): Promise<Section> {
  const runs = opts.quick ? 200 : 1_000;
  const records = 200;
  const rounds = opts.quick ? 3 : 7;
  const big = store(runs, records);
  const times = await interleave(
    rounds,
    () => search(big.dir, big.matching),
    () => grep(big.dir, big.matching),
  );
  const ours = median(times.a);
  const theirs = median(times.b);
  const r = ours / theirs;

  // Peak memory: a tenth of the runs, the same runs, and a tenth of the runs ten times as long.
  const few = store(runs / 10, records);
  const long = store(runs / 10, records * 10);
  const peaks = { few: [] as number[], many: [] as number[], long: [] as number[] };
  for (let i = 0; i < (opts.quick ? 2 : 3); i++) {
    peaks.few.push((await search(few.dir, few.matching, true)).peakKiB);
    peaks.many.push((await search(big.dir, big.matching, true)).peakKiB);
    peaks.long.push((await search(long.dir, long.matching, true)).peakKiB);
  }
  const [pFew, pMany, pLong] = [median(peaks.few), median(peaks.many), median(peaks.long)];
  const peakGrowth = Math.max(pMany / pFew, pLong / pFew);
  const held = { few: await heldBytes(few.dir), many: await heldBytes(big.dir), long: await heldBytes(long.dir) };
  const flat = Math.max(held.few, held.many, held.long) < HELD_MAX_BYTES && peakGrowth < PEAK_MAX;
  const mib = (kib: number): string => bytes(kib * 1024);

  return {
    rows: [
      {
        what: `\`session search\` over ${count(runs)} runs of ${records} records (${bytes(big.size)})`,
        measured: ms(ours),
        baseline: `\`grep -ril\`: ${ms(theirs)}`,
        figure: ratio(r),
        target: 'against grep (none named)',
        verdict: '—',
        growth: '—',
      },
      {
        what: `\`session search\` memory as the store grows`,
        measured: `peak ${mib(pMany)} over ${count(runs)} runs`,
        baseline: `${count(runs / 10)} runs: ${mib(pFew)}; ${count(runs / 10)} runs of ${count(records * 10)} records: ${mib(pLong)}`,
        figure: `peak ${ratio(peakGrowth)} with 10× the runs or 10× longer runs; held after: ${bytes(held.few)} · ${bytes(held.many)} · ${bytes(held.long)}`,
        target: `flat: held < ${bytes(HELD_MAX_BYTES)}, peak < ${PEAK_MAX}×`,
        verdict: opts.quick ? '—' : flat ? 'met' : 'missed',
        growth: '—',
      },
    ],
    notes: [
      `Search: wall time of \`node bin/logbook session search ${NEEDLE} --state-dir D\` from spawn to exit against \`grep -ril ${NEEDLE} D/runs\` over the same ${count(runs)} journals, medians of ${rounds} alternating rounds. The text is in the last record of one run in ${EVERY}, so both read every byte (grep -l stops at a file's first match); both find the same ${big.matching} runs. The search lists the runs, orders them newest first and reads each as a stream, a 64 KiB chunk at a time, decoding each chunk to text (matching is case-insensitive on the text a person reads, not on bytes) and decoding as records only the lines whose stored text may hold a match; grep skips through the raw bytes. Memory: the peak resident set (VmHWM, reported at exit by a module given to \`node --import\`) of the same command, median of ${peaks.few.length}, over ${count(runs / 10)} runs, ${count(runs)} runs, and ${count(runs / 10)} runs ten times as long; it includes garbage not yet collected, which grows with the bytes read between collections. "Held after" is what listing and streaming every run of each store keeps on the heap once done, measured in the benchmark's own process after a garbage collection: the list of runs, and nothing of what was read.`,
    ],
  };
}
