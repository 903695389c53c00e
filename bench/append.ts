/**
 * Durable append on the file backend against a plain write+fsync loop of the
 * same bytes on the same disk. One run of N appends per side, alternating record
 * by record (ABBA), so both sides see the same disk at the same moment; the run
 * is cut into blocks, p50 and p99 are taken per block, and the medians over the
 * blocks are reported. Cumulative time at 1k, 10k and 100k records gives growth.
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { FileStore, type JournalRecord, type Payload } from 'logbook';
import { bodyPayloads, line, meta } from './lib/content.js';
import { tempDir, type BenchOptions } from './lib/env.js';
import type { Section } from './lib/report.js';
import { count, median, ms, now, num, percentile, ratio } from './lib/stats.js';

const TARGET = 1.15;

export async function benchAppend(opts: BenchOptions): Promise<Section> {
  const total = opts.quick ? 10_000 : 100_000;
  const blocks = 10;
  const marks = (opts.quick ? [100, 1_000, 10_000] : [1_000, 10_000, 100_000]).filter((m) => m <= total);
  const dir = tempDir('append');

  const store = new FileStore(join(dir, 'runs'));
  const journal = await store.create('bench-append', meta('bench-append'));
  const plainPath = join(dir, 'plain.jsonl');
  const plain = openSync(plainPath, 'a', 0o600);
  writeSync(plain, line(1, { meta: meta('bench-append') }));
  fsyncSync(plain);

  // The journal's records (seq 2 on), and the same bytes for the plain loop.
  const payloads: Payload[] = [...bodyPayloads(total + 1)];
  const lines = payloads.map((p, i) => Buffer.from(line(i + 2, p)));

  const ours: number[] = [];
  const theirs: number[] = [];
  try {
    for (let i = 0; i < payloads.length; i++) {
      const seq = i + 2;
      const oursFirst = i % 4 === 0 || i % 4 === 3; // ABBA
      for (const side of oursFirst ? [0, 1] : [1, 0]) {
        const start = now();
        if (side === 0) {
          await journal.append({ seq, ...payloads[i]! } as JournalRecord);
          ours.push(now() - start);
        } else {
          const buf = lines[i]!;
          let off = 0;
          while (off < buf.length) off += writeSync(plain, buf, off, buf.length - off);
          fsyncSync(plain);
          theirs.push(now() - start);
        }
      }
    }
  } finally {
    closeSync(plain);
    await journal.close();
  }

  const size = Math.floor(ours.length / blocks);
  const per = (xs: number[], p: number): number[] => Array.from({ length: blocks }, (_, b) => percentile(xs.slice(b * size, (b + 1) * size), p));
  const row = (p: number) => {
    const a = per(ours, p);
    const b = per(theirs, p);
    const r = median(a.map((x, k) => x / b[k]!));
    return { ours: median(a), theirs: median(b), ratio: r };
  };
  const p50 = row(50);
  const p99 = row(99);
  const meanBytes = lines.reduce((s, b) => s + b.length, 0) / lines.length;
  // Per-record p50 over the 1,000 appends that brought the journal to each size.
  const window = (xs: number[], n: number): number => percentile(xs.slice(Math.max(0, n - 1000), n), 50);
  const points = marks.map((n) => ({ n, p50: window(ours, n), plain: window(theirs, n) }));
  const spread = Math.max(...points.map((p) => p.p50)) / Math.min(...points.map((p) => p.p50));
  const growth = `p50 at ${points.map((p) => `${count(p.n)}: ${ms(p.p50)} (plain ${ms(p.plain)})`).join(' · ')}; ${spread <= 1.5 ? 'flat per record, so linear in total' : 'grows with the journal'}`;
  return {
    rows: [
      {
        what: `durable append, file backend, p50 per record (${(total / 1000).toFixed(0)}k records)`,
        measured: ms(p50.ours),
        baseline: `write+fsync: ${ms(p50.theirs)}`,
        figure: ratio(p50.ratio),
        target: `≤ ${TARGET}×`,
        verdict: p50.ratio <= TARGET ? 'met' : 'missed',
        growth,
      },
      {
        what: 'durable append, file backend, p99 per record',
        measured: ms(p99.ours),
        baseline: `write+fsync: ${ms(p99.theirs)}`,
        figure: ratio(p99.ratio),
        target: `≤ ${TARGET}×`,
        verdict: p99.ratio <= TARGET ? 'met' : 'missed',
        growth: 'as above',
      },
    ],
    notes: [
      `Append: ${num(payloads.length)} records of ${Math.round(meanBytes)} bytes on average, appended with \`journal.append\` (encode, write, fsync) and written by the plain loop from pre-encoded bytes, alternating record by record; p50/p99 are the medians over ${blocks} blocks, the ratio the median of the blocks' ratios. Growth: the p50 of the 1,000 appends that brought the journal to each size, from the same run, with the plain loop's over the same records.`,
    ],
  };
}
