/** The one markdown table the suite prints, and its place in docs/performance.md. */
import { readFileSync, writeFileSync } from 'node:fs';
import type { CpuSpent } from './cpu.js';

export type Verdict = 'met' | 'missed' | 'skipped' | '—';

export interface Row {
  what: string;
  /** The figure for logbook. */
  measured: string;
  /** What it was compared with, measured in the same run ("—" when nothing). */
  baseline: string;
  /** The ratio or figure the target is about. */
  figure: string;
  target: string;
  verdict: Verdict;
  growth: string;
}

/** What one benchmark contributes: rows, and notes that explain them. */
export interface Section {
  rows: Row[];
  notes: string[];
  /** The benchmark's name and where the machine's CPU went while it ran (set by the suite's runner). */
  name?: string;
  load?: CpuSpent | null;
  /** Why the machine's load while it ran cannot be told (its own processes' time is counted as others'): then none is given. */
  loadUnknown?: string;
}

/** Above this share of the CPUs held by other processes, a benchmark's wall times are called out as slowed. */
const BUSY_SHARE = 0.2;

/** The share of the CPUs that processes other than the benchmark's, and the hypervisor's other machines, held. */
const othersShare = (l: CpuSpent): number => (l.capacityMs > 0 ? (l.othersMs + l.stealMs) / l.capacityMs : 0);

const percent = (x: number): string => `${Math.round(100 * x)}%`;

/** The benchmarks that ran while others held more than BUSY_SHARE of the CPUs. */
export function busySections(sections: readonly Section[]): string[] {
  return sections.filter((s) => s.load && othersShare(s.load) > BUSY_SHARE).map((s) => s.name ?? '?');
}

/** A row's verdict, with the machine's load where others held enough of it to slow the row. */
function verdictOf(row: Row, load: CpuSpent | null | undefined): string {
  if (!load || othersShare(load) <= BUSY_SHARE || row.verdict === 'skipped') return row.verdict;
  return `${row.verdict} (a busy machine: others held ${percent(othersShare(load))} of the CPUs)`;
}

function loadSentence(sections: readonly Section[]): string {
  const known = sections.filter((s) => s.loadUnknown !== undefined || (!!s.load && s.load.capacityMs > 0));
  if (known.length === 0) return '';
  const pct = (x: number, l: CpuSpent): string => percent(x / l.capacityMs);
  const one = (s: Section): string =>
    s.loadUnknown !== undefined || !s.load
      ? `${s.name ?? '?'} not known (${s.loadUnknown})`
      : `${s.name ?? '?'} ${pct(s.load.othersMs, s.load)}${s.load.stealMs >= s.load.capacityMs / 200 ? ` (steal ${pct(s.load.stealMs, s.load)})` : ''}`;
  const each = known.map(one).join(', ');
  return ` While each benchmark ran, processes other than the benchmark and those it started held this share of the machine's CPUs (from /proc/stat; steal is time the hypervisor gave them to other machines): ${each}. Wall times, and their differences from a baseline, grow with it; the CPU times the start-up, run and resume rows give much less.`;
}

export function skipped(what: string, target: string, reason: string): Section {
  return { rows: [{ what, measured: '—', baseline: '—', figure: '—', target, verdict: 'skipped', growth: '—' }], notes: [`${what}: skipped, ${reason}.`] };
}

/** Cells may not break the table: pipes are escaped and newlines flattened. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function markdownTable(sections: readonly Section[]): string {
  const head = ['what', 'logbook', 'baseline (same run)', 'ratio / figure', 'target', 'verdict', 'growth'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const s of sections) {
    for (const r of s.rows) lines.push(`| ${[r.what, r.measured, r.baseline, r.figure, r.target, verdictOf(r, s.load), r.growth].map(cell).join(' | ')} |`);
  }
  return lines.join('\n');
}

export function report(sections: readonly Section[], machine: string, command: string): string {
  const notes = sections.flatMap((s) => s.notes);
  return [
    'Each figure is measured in the same run as what it is compared with, the two alternating round by round, and a figure above a baseline is the median of the rounds\' paired differences (docs/performance.md, how the rows are measured); targets are reported, not asserted. Other work on the machine slows both sides, and a difference grows with it: a verdict given while other processes held much of the CPUs says so. `npm run bench` builds the package and measures what `dist/` and `bin/logbook` do; `-- --quick` runs smaller sizes, `-- --write-docs` writes this section.',
    '',
    markdownTable(sections),
    '',
    `Made by \`${command}\` on ${machine}.${loadSentence(sections)}`,
    '',
    ...notes.map((n) => `- ${n}`),
  ].join('\n');
}

const START = '<!-- bench:start -->';
const END = '<!-- bench:end -->';

/** Replaces what lies between the bench markers of docs/performance.md, and nothing else. */
export function writeDocs(path: string, text: string): void {
  const readme = readFileSync(path, 'utf8');
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${path} has no ${START} ... ${END} markers`);
  writeFileSync(path, `${readme.slice(0, start + START.length)}\n${text}\n${readme.slice(end)}`);
}
