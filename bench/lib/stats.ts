/** Medians, percentiles, growth and the spelling of figures. */

export function median(xs: readonly number[]): number {
  return percentile(xs, 50);
}

export function mean(xs: readonly number[]): number {
  if (xs.length === 0) throw new Error('no samples');
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Nearest-rank percentile of unsorted samples. */
export function percentile(xs: readonly number[], p: number): number {
  if (xs.length === 0) throw new Error('no samples');
  const sorted = [...xs].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

/** The middle of the differences `a[i] - b[i]` of measurements paired by round: their median and middle half. */
export interface Paired {
  median: number;
  p25: number;
  p75: number;
}

/**
 * What `a` costs above `b` where each round measured both, one just after the
 * other: the median of the rounds' differences, not the difference of the two
 * medians, so a round that ran while the machine was busy is compared with its
 * own baseline, measured in the same moments, and not with another round's.
 */
export function pairedDifference(a: readonly number[], b: readonly number[]): Paired {
  if (a.length !== b.length) throw new Error(`paired rounds of unequal counts: ${a.length} and ${b.length}`);
  const diffs = a.map((x, i) => x - b[i]!);
  return { median: median(diffs), p25: percentile(diffs, 25), p75: percentile(diffs, 75) };
}

/**
 * A row's figure against bare start-up: "115 ms above bare start-up (middle
 * half of the rounds 108 ms to 124 ms; CPU 190 ms above bare's)", the CPU
 * figure the difference of the two sides' mean CPU times, where measured.
 */
export function aboveBare(p: Paired, cpu: { subject: readonly number[]; bare: readonly number[]; what?: string } | null = null): string {
  const cpuAbove = cpu === null || cpu.subject.length === 0 || cpu.bare.length === 0 ? '' : `; ${cpu.what ?? 'CPU'} ${ms(mean(cpu.subject) - mean(cpu.bare))} above bare's`;
  return `${ms(p.median)} above bare start-up (middle half of the rounds ${ms(p.p25)} to ${ms(p.p75)}${cpuAbove})`;
}

/** Milliseconds since an arbitrary origin, sub-microsecond resolution. */
export const now = (): number => performance.now();

/** Runs `fn` and returns how long it took in milliseconds. */
export async function timed(fn: () => unknown): Promise<number> {
  const start = now();
  await fn();
  return now() - start;
}

/** Collects garbage before a timed section when node runs with --expose-gc. */
export function settle(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * Runs `a` and `b` alternately, `rounds` times each, swapping which goes first
 * every round (ABBA), so both sides see the same machine, and returns each side's
 * times in milliseconds.
 */
export async function interleave(rounds: number, a: () => unknown, b: () => unknown): Promise<{ a: number[]; b: number[] }> {
  const out = { a: [] as number[], b: [] as number[] };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const side of order) {
      settle();
      out[side].push(await timed(side === 'a' ? a : b));
    }
  }
  return out;
}

export interface GrowthPoint {
  /** Size (records, runs). */
  n: number;
  /** Time in milliseconds at that size. */
  ms: number;
}

/**
 * How time grows with size, from the two largest sizes (the smallest is mostly
 * noise and start-up): the exponent k in time ∝ size^k of the time above
 * `base`, a fixed cost measured alongside (start-up, an empty store). Linear
 * for k within 0.85–1.15; flat when the largest size costs at most 1.5 times the
 * smallest.
 */
export function growthVerdict(points: readonly GrowthPoint[], base = 0): string {
  const first = points[0]!;
  const [a, b] = points.slice(-2) as [GrowthPoint, GrowthPoint];
  if (b.ms <= first.ms * 1.5) return 'flat';
  const k = Math.log(Math.max(b.ms - base, 1e-9) / Math.max(a.ms - base, 1e-9)) / Math.log(b.n / a.n);
  const shape = k < 0.85 ? 'sublinear' : k > 1.15 ? 'superlinear' : 'linear';
  return `${shape} (∝ n^${k.toFixed(2)} from ${count(a.n)} to ${count(b.n)})`;
}

/** "100,000" */
export const num = (n: number): string => n.toLocaleString('en-US');

/** "1k", "10k", "100k", "250". */
export function count(n: number): string {
  if (n >= 1000 && n % 1000 === 0) return `${n / 1000}k`;
  return String(n);
}

/** Milliseconds with a unit that suits them: µs below 1 ms, ms below 10 s, else s. */
export function ms(x: number): string {
  if (x < 0) return `\u2212${ms(-x)}`; // a minus sign, as the table's other signed figures
  if (x < 1) return `${(x * 1000).toFixed(x < 0.1 ? 1 : 0)} µs`;
  if (x < 10) return `${x.toFixed(2)} ms`;
  if (x < 10_000) return `${x.toFixed(0)} ms`;
  return `${(x / 1000).toFixed(1)} s`;
}

export function ratio(x: number): string {
  return `${x.toFixed(2)}×`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
