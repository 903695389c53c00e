import { describe, expect, it } from 'vitest';
import { formatRunList, newestFirst } from '../../src/cli/session/ls.js';
import type { RunInfo } from '../../src/index.js';

const run = (runId: string, updated: string, extra: Partial<RunInfo> = {}): RunInfo => ({
  runId,
  created: '2026-11-30T01:00:00Z',
  updated,
  model: 'm',
  prompt: 'p',
  status: 'open',
  ...extra,
});

describe('session ls layout', () => {
  it('sorts by time, not by spelling, so offsets and fractions compare right', () => {
    const runs = [run('a', '2026-11-30T10:00:00Z'), run('b', '2026-11-30T11:30:00+02:00'), run('c', '2026-11-30T10:00:00.5Z'), run('d', 'garbled')];
    expect(newestFirst(runs).map((r) => r.runId)).toEqual(['c', 'a', 'b', 'd']);
  });

  it('shows why an unreadable run could not be read, and fits the prompt to the terminal', () => {
    const runs = [run('bad', '2026-11-30T10:00:00Z', { status: 'unreadable', problem: 'line 1 is not a record', prompt: '' }), run('ok', '2026-11-30T09:00:00Z', { prompt: 'x'.repeat(300) })];
    const out = formatRunList(runs, { columns: 100, paint: (_c, t) => t });
    const lines = out.trimEnd().split('\n');
    expect(lines[1]).toMatch(/^bad\s+m\s+unreadable\s.*line 1 is not a record$/);
    expect(lines.every((l) => [...l].length <= 100)).toBe(true);
    expect(lines[2]).toMatch(/x\u2026$/);
  });
});

describe('table widths', () => {
  it('counts a character outside the BMP as one column, and a lone surrogate as one', async () => {
    const { table, cellWidth } = await import('../../src/cli/output.js');
    expect(cellWidth('a\u{1f600}b')).toBe(3);
    expect(cellWidth('a\ud83d')).toBe(2);
    expect(cellWidth('\ude00z')).toBe(2);
    expect(table([['a\u{1f600}b', 'x'], ['abcd', 'y']])).toBe('a\u{1f600}b   x\nabcd  y\n');
  });
});
