/**
 * `logbook session ls` through the binary, as a user runs it: 1,000 runs against
 * 1,000 runs ten times longer (the listing must not read whole journals), the
 * growth from 100 to 10,000 runs, and 1,000 runs in conversations of four (each
 * listed once) against the same runs listed one per row (--forks). Rounds
 * alternate between the stores.
 */
import { appendFileSync, cpSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { FileStore } from 'logbook';
import { assistantPayload, line, writeJournal } from './lib/content.js';
import { BIN, tempDir, type BenchOptions } from './lib/env.js';
import { PEAK_RSS_IMPORT, peakRssKiB, timeProcess } from './lib/proc.js';
import type { Section } from './lib/report.js';
import { bytes, count, growthVerdict, median, ms, ratio, type GrowthPoint } from './lib/stats.js';

const TARGET_MS = 250;
/** `session ls` over the largest store of the growth (10,000 runs; 3,000 with --quick, which judges nothing). */
const MANY_TARGET_MS = 400;
const SHORT = 21; // records per run: meta and 10 turns
const LONG = 201; // ten times that
const HUGE_LINE = 100 * 1024 * 1024;
const HUGE_TARGET = 1.1;
/** Runs per conversation in the lineage store: a question and three follow-ups. */
const LINEAGE = 4;
const LINEAGE_TARGET = 1.1;

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

/**
 * A state dir of `runs` runs of SHORT records in conversations of LINEAGE: each
 * run after a conversation's first has its origin and its follow-up's typed turn
 * kept beside it, as a follow-up to a completed run leaves them.
 */
async function lineageStateDir(runs: number): Promise<string> {
  const dir = tempDir(`ls-lineages-${runs}`);
  mkdirSync(join(dir, 'runs'));
  const store = new FileStore(join(dir, 'runs'));
  for (let i = 0; i < runs; i++) {
    const id = `run-${String(i).padStart(5, '0')}`;
    const seqs = writeJournal(join(dir, 'runs', `${id}.jsonl`), id, SHORT);
    if (i % LINEAGE === 0) continue;
    await store.markFork(id, { from: `run-${String(i - 1).padStart(5, '0')}`, at: seqs - 2 });
    await store.putNote(id, `turn-${seqs - 1}`, `follow-up ${i}: and what about the next module?`);
  }
  await store.close();
  return dir;
}

/**
 * A copy of state dir `from` with one more run, `huge`, whose last line is one
 * record of about HUGE_LINE bytes: a tool result holding that much output.
 */
function withHugeLine(from: string): string {
  const dir = tempDir('ls-huge');
  cpSync(join(from, 'runs'), join(dir, 'runs'), { recursive: true });
  const path = join(dir, 'runs', 'huge.jsonl');
  const written = writeJournal(path, 'huge', 1); // meta alone
  appendFileSync(path, line(written + 1, assistantPayload(0)));
  const output = 'lorem ipsum dolor sit amet, '.repeat(Math.ceil(HUGE_LINE / 28)).slice(0, HUGE_LINE);
  appendFileSync(path, line(written + 2, { tool_result: { tool_use_id: 'toolu_0_0', result: { tool_use_id: 'toolu_0_0', content: output } } }));
  return dir;
}

async function ls(dir: string, runs: number, rss = false, mustList?: RegExp, args: readonly string[] = []): Promise<{ ms: number; peakKiB: number }> {
  const r = await timeProcess([process.execPath, ...(rss ? ['--import', PEAK_RSS_IMPORT] : []), BIN, 'session', 'ls', ...args, '--state-dir', dir], dir);
  const lines = r.stdout.split('\n').filter(Boolean).length;
  const rows = lines === 0 ? 0 : lines - 1; // a header above the rows
  if (r.code !== 0 || rows !== runs) throw new Error(`session ls ${args.join(' ')} listed ${rows} of ${runs} rows (exit ${r.code}): ${r.stderr}`);
  if (mustList !== undefined && !mustList.test(r.stdout)) throw new Error(`session ls did not list ${mustList}: ${r.stdout}`);
  return { ms: r.ms, peakKiB: rss ? (peakRssKiB(r) ?? 0) : 0 };
}

/** A store to list: its state dir, the rows `ls` gives, and the arguments it is listed with. */
interface Listed {
  dir: string;
  runs: number;
  args?: readonly string[];
}

/** Median times of `ls` over each store, rounds alternating between the stores. */
async function measure(stores: Listed[], rounds: number): Promise<number[]> {
  const times = stores.map(() => [] as number[]);
  for (let r = 0; r < rounds; r++) {
    const order = stores.map((_, i) => i);
    if (r % 2 === 1) order.reverse();
    for (const i of order) times[i]!.push((await ls(stores[i]!.dir, stores[i]!.runs, false, undefined, stores[i]!.args)).ms);
  }
  return times.map(median);
}

export async function benchList(opts: BenchOptions): Promise<Section> {
  const rounds = opts.quick ? 5 : 11;
  const runs = opts.quick ? 300 : 1_000;
  const short = { dir: stateDir(runs, SHORT), runs };
  const long = { dir: stateDir(runs, LONG), runs };
  const empty = { dir: stateDir(0, 0), runs: 0 };
  // Journals written here, not by logbook, carry no check mark: the first listing reads each whole once and marks it.
  const firstShort = await ls(short.dir, runs, true);
  const firstLong = await ls(long.dir, runs);
  const [shortMs, longMs, emptyMs] = await measure([short, long, empty], rounds);
  const flat = longMs! / shortMs!;

  const sizes = opts.quick ? [100, 1_000, 3_000] : [100, 1_000, 10_000];
  const stores = sizes.map((n) => (n === runs ? short : { dir: stateDir(n, SHORT), runs: n }));
  for (const store of stores) if (store !== short) await ls(store.dir, store.runs); // the first listing, which marks and indexes: not counted
  // The empty store in the same rounds: the fixed start-up the growth is judged above.
  const times = await measure([...stores, empty], opts.quick ? 3 : 5);
  const base = times[sizes.length]!;
  const points: GrowthPoint[] = sizes.map((n, i) => ({ n, ms: times[i]! }));
  const perRun = (points[2]!.ms - points[1]!.ms) / (points[2]!.n - points[1]!.n);
  const growth = `${points.map((p) => `${count(p.n)} runs: ${ms(p.ms)}`).join(' · ')}; ${growthVerdict(points, base)} above start-up; ${ms(perRun)} per added run`;

  // Peak memory with one journal ending on a huge line, against the same store without it.
  const huge = { dir: withHugeLine(short.dir), runs: runs + 1 };
  const firstHuge = await ls(huge.dir, huge.runs, true, /^huge +interrupted /m); // the copies' marks name other files: all read whole
  const peaks = { without: [] as number[], with: [] as number[] };
  for (let r = 0; r < (opts.quick ? 3 : 5); r++) {
    const order = r % 2 === 0 ? [false, true] : [true, false];
    for (const withHuge of order) {
      const got = withHuge ? await ls(huge.dir, huge.runs, true, /^huge +interrupted /m) : await ls(short.dir, short.runs, true);
      (withHuge ? peaks.with : peaks.without).push(got.peakKiB);
    }
  }
  const [peakWithout, peakWith] = [median(peaks.without), median(peaks.with)];
  const hugeRatio = peakWith / peakWithout;

  // Conversations listed once against the same runs listed one per row: what grouping them costs.
  const lineageDir = await lineageStateDir(runs);
  const grouped: Listed = { dir: lineageDir, runs: runs / LINEAGE };
  const ungrouped: Listed = { dir: lineageDir, runs, args: ['--forks'] };
  await ls(lineageDir, runs, false, undefined, ['--forks']); // marks the journals, as the listings above did theirs
  const [groupedMs, ungroupedMs] = await measure([grouped, ungrouped], rounds);
  const grouping = groupedMs! / ungroupedMs!;

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
      {
        what: `\`session ls\` over ${count(points[2]!.n)} runs (${SHORT} records each)`,
        measured: ms(points[2]!.ms),
        baseline: `an empty store: ${ms(base)}`,
        figure: `${ms(points[2]!.ms - base)} above the empty store's`,
        target: `< ${MANY_TARGET_MS} ms over 10,000 runs`,
        verdict: points[2]!.n !== 10_000 ? '—' : points[2]!.ms < MANY_TARGET_MS ? 'met' : 'missed',
        growth: '—',
      },
      {
        what: `\`session ls\` over ${count(runs)} runs in conversations of ${LINEAGE}, each listed once`,
        measured: ms(groupedMs!),
        baseline: `the same runs one per row (--forks): ${ms(ungroupedMs!)}`,
        figure: ratio(grouping),
        target: `≤ ${LINEAGE_TARGET}×`,
        verdict: grouping <= LINEAGE_TARGET ? 'met' : 'missed',
        growth: '—',
      },
      {
        what: `\`session ls\` peak RSS, ${count(runs)} runs and one whose last line is ${bytes(HUGE_LINE)}`,
        measured: bytes(peakWith * 1024),
        baseline: `the same ${count(runs)} runs without it: ${bytes(peakWithout * 1024)}`,
        figure: ratio(hugeRatio),
        target: `≤ ${HUGE_TARGET}×`,
        verdict: hugeRatio <= HUGE_TARGET ? 'met' : 'missed',
        growth: '—',
      },
    ],
    notes: [
      `\`session ls\`: wall time of \`node bin/logbook session ls --state-dir D\` from spawn to exit, output piped, medians of ${rounds} alternating rounds; the same command over an empty store takes ${ms(emptyMs!)} (Node start-up and module loading). "Flat" means at most 1.2× with 10× longer runs. Growth is judged on the time above the empty store's, measured in the same rounds: "sublinear" means later runs cost less each, as warm-up spreads over more of them. Peak RSS: the same command's peak resident set (VmHWM, reported at exit by a module given to \`node --import\`), median of ${peaks.with.length} alternating rounds, over the ${count(runs)} runs against a copy of them with one more run: a meta record, an assistant turn calling a tool, and its result of ${bytes(HUGE_LINE)} of text as the last line.`,
      `Conversations: ${count(runs)} runs of ${SHORT} records, each after a conversation's first with its origin and its follow-up's typed turn kept beside it (the notes a follow-up leaves), listed as ${count(runs / LINEAGE)} rows against \`--forks\`, which lists every run and so reads no origins. Both read each run's last typed turn; the grouping reads the origins of the forks alone (the directory read says which runs have one) and never a journal beyond its ends.`,
      `A listing reads a run whole, once, when no check mark names the run's bytes as they are (a run logbook's writer did not let go of, such as these, written by the benchmark; or one changed since); it then marks it, and later listings read only its ends, and only where the listing index beside the runs (src/store/listing-index.ts) holds nothing read from them at their version as they are: a run unchanged since a listing is one \`lstat\`. The rounds above list marked and indexed runs. The first listing of each store, unmarked: ${count(runs)} runs of ${SHORT} records ${ms(firstShort.ms)}, of ${LONG} records ${ms(firstLong.ms)}; with the ${bytes(HUGE_LINE)} line, peak RSS ${bytes(firstHuge.peakKiB * 1024)} against ${bytes(firstShort.peakKiB * 1024)} for the first listing of the store without it (${ratio(firstHuge.peakKiB / firstShort.peakKiB)}): its lines are checked a chunk at a time, long ones as outlines.`,
    ],
  };
}
