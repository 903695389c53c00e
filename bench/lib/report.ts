/** The one markdown table the suite prints, and its place in docs/performance.md. */
import { readFileSync, writeFileSync } from 'node:fs';

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
}

export function skipped(what: string, target: string, reason: string): Section {
  return { rows: [{ what, measured: '—', baseline: '—', figure: '—', target, verdict: 'skipped', growth: '—' }], notes: [`${what}: skipped, ${reason}.`] };
}

/** Cells may not break the table: pipes are escaped and newlines flattened. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function markdownTable(rows: readonly Row[]): string {
  const head = ['what', 'logbook', 'baseline (same run)', 'ratio / figure', 'target', 'verdict', 'growth'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`];
  for (const r of rows) {
    lines.push(`| ${[r.what, r.measured, r.baseline, r.figure, r.target, r.verdict, r.growth].map(cell).join(' | ')} |`);
  }
  return lines.join('\n');
}

export function report(sections: readonly Section[], machine: string, command: string): string {
  const rows = sections.flatMap((s) => s.rows);
  const notes = sections.flatMap((s) => s.notes);
  return [
    'Each figure is measured in the same run as what it is compared with, the two alternating, so a ratio holds on a busy machine; targets are reported, not asserted. `npm run bench` builds the package and measures what `dist/` and `bin/logbook` do; `-- --quick` runs smaller sizes, `-- --write-docs` writes this section.',
    '',
    markdownTable(rows),
    '',
    `Made by \`${command}\` on ${machine}.`,
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
