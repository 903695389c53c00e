import stringWidth from 'string-width';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listRuns, newestFirst, selectRows, selectRuns } from '../../src/cli/session/ls.js';
import { formatRunList } from '../../src/cli/session/ls-table.js';
import { cellWidth, table, truncate } from '../../src/cli/output.js';
import { MemoryStore, type RunInfo } from '../../src/index.js';
import { meta } from '../helpers/records.js';

const run = (runId: string, updated: string, extra: Partial<RunInfo> = {}): RunInfo => ({
  runId,
  created: '2026-11-30T01:00:00Z',
  updated,
  model: 'm',
  prompt: 'p',
  interactive: false,
  status: 'completed',
  ...extra,
});

const plain = { paint: (_c: string, t: string) => t };

describe('session ls layout', () => {
  it('sorts by time, not by spelling, so offsets and fractions compare right', () => {
    const runs = [run('a', '2026-11-30T10:00:00Z'), run('b', '2026-11-30T11:30:00+02:00'), run('c', '2026-11-30T10:00:00.5Z'), run('d', 'garbled')];
    expect(newestFirst(runs).map((r) => r.runId)).toEqual(['c', 'a', 'b', 'd']);
  });

  it('shows why an unreadable run could not be read, and fits the prompt to the terminal', () => {
    const runs = [run('bad', '2026-11-30T10:00:00Z', { status: 'unreadable', problem: 'line 1 is not a record', prompt: '' }), run('ok', '2026-11-30T09:00:00Z', { prompt: 'x'.repeat(300) })];
    const out = formatRunList(runs, { columns: 100, ...plain });
    const lines = out.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+UPDATED\s+MODEL\s+PROMPT$/);
    expect(lines[1]).toMatch(/^bad\s+unreadable\s+2026-11-30 \d\d:00\s+m\s+line 1 is not a record$/);
    expect(lines.every((l) => stringWidth(l) <= 100)).toBe(true);
    expect(lines[2]).toMatch(/x\u2026$/);
  });

  it('paints the header bold and each status its colour, every cell padded before it is painted', () => {
    const tagged = { paint: (code: string, t: string) => `<${code}>${t}</${code}>` };
    const runs = [run('a', '2026-11-30T10:00:00Z', { status: 'running' }), run('bb', '2026-11-30T09:00:00Z', { status: 'interrupted' }), run('c', '2026-11-30T08:00:00Z')];
    const lines = formatRunList(runs, { columns: undefined, ...tagged }).trimEnd().split('\n');
    expect(lines[0]).toBe('<1>ID</1>  <1>STATUS     </1>  <1>UPDATED         </1>  <1>MODEL</1>  <1>PROMPT</1>');
    expect(lines[1]).toMatch(/^a   <32>running    <\/32>  2026-11-30 \d\d:00  m      p$/);
    expect(lines[2]).toMatch(/^bb  <33>interrupted<\/33>  /);
    expect(lines[3]).toMatch(/^c   completed    /); // no colour: not painted
  });

  it('cuts nothing without a width (stdout not a terminal, no COLUMNS): a script greps whole prompts', () => {
    const prompt = 'a long prompt that would not fit eighty columns, '.repeat(4).trim();
    const lines = formatRunList([run('20261130-091500-abcdef', '2026-11-30T10:00:00Z', { prompt, model: 'claude-test' })], { columns: undefined, ...plain }).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+UPDATED\s+MODEL\s+PROMPT$/);
    expect(lines[1]).toMatch(new RegExp(` claude-test +${prompt}$`));
  });

  it('fits 80 columns by display width with CJK, emoji and combining marks, cutting none of them in half', () => {
    const prompts = ['日本語のプロンプト'.repeat(10), '👨‍👩‍👧 family 🇫🇷 flag '.repeat(8), 'e\u0301'.repeat(200), 'a\ud83d lone surrogate '.repeat(10)];
    const runs = prompts.map((prompt, i) => run(`20261130-09150${i}-abcdef`, `2026-11-30T10:0${i}:00Z`, { prompt, model: `模型-${'m'.repeat(40)}` }));
    for (const columns of [80, 100]) {
      const lines = formatRunList(runs, { columns, ...plain }).trimEnd().split('\n');
      for (const line of lines) expect(stringWidth(line), `${columns}: ${line}`).toBeLessThanOrEqual(columns);
      for (const line of lines.slice(1)) {
        expect(line).toMatch(/\u2026$/); // every prompt was cut
        expect(line).not.toMatch(/\p{Cs}/u); // no half of a character
      }
      // MODEL only where there is room for it and the prompt; it is cut too, to leave the prompt room.
      expect(lines[0]).toMatch(columns === 100 ? /^ID\s+STATUS\s+UPDATED\s+MODEL\s+PROMPT$/ : /^ID\s+STATUS\s+UPDATED\s+PROMPT$/);
      if (columns === 100) for (const line of lines.slice(1)) expect(line).toMatch(/ 模型-m*\u2026 /);
    }
    // The family emoji is one grapheme: it stays whole or goes whole.
    expect(truncate('ab👨‍👩‍👧cd', 4)).toBe('ab\u2026');
    expect(truncate('ab👨‍👩‍👧cd', 5)).toBe('ab👨‍👩‍👧\u2026');
    expect(truncate('日本語', 4)).toBe('日\u2026');
    expect(truncate('日本語', 6)).toBe('日本語');
  });
});

describe('session ls on a narrow terminal', () => {
  const statuses = ['completed', 'max_iterations', 'interrupted'] as const;
  const runs = statuses.map((status, i) =>
    run(`20261130-09150${i}-k3x9qa`, `2026-11-30T10:0${i}:00Z`, { status, model: 'claude-sonnet-4-5', prompt: 'Why is the build slow? '.repeat(5) }),
  );
  const layout = (columns: number): { header: string[]; lines: string[] } => {
    const lines = formatRunList(runs, { columns, ...plain }).trimEnd().split('\n');
    return { header: lines[0]!.split(/\s+/), lines };
  };

  it('drops MODEL, then shortens the time, then drops UPDATED, PROMPT and STATUS, and never cuts an id', () => {
    // id 22 + status 14 + long time 16 + short time 11, two columns between cells, a prompt of at least 10
    expect(layout(100).header).toEqual(['ID', 'STATUS', 'UPDATED', 'MODEL', 'PROMPT']);
    expect(layout(80).header).toEqual(['ID', 'STATUS', 'UPDATED', 'PROMPT']);
    expect(layout(68).header).toEqual(['ID', 'STATUS', 'UPDATED', 'PROMPT']);
    expect(layout(68).lines[1]).toMatch(/^20261130-091500-k3x9qa  completed       2026-11-30 \d\d:00  Why is th…$/);
    expect(layout(67).lines[1]).toMatch(/^20261130-091500-k3x9qa  completed       11-30 \d\d:00  Why is the bu…$/);
    expect(layout(63).header).toEqual(['ID', 'STATUS', 'UPDATED', 'PROMPT']);
    expect(layout(62).header).toEqual(['ID', 'STATUS', 'PROMPT']);
    expect(layout(50).lines[1]).toMatch(/^20261130-091500-k3x9qa  completed       Why is th…$/);
    expect(layout(49).header).toEqual(['ID', 'STATUS']);
    expect(layout(38).header).toEqual(['ID', 'STATUS']);
    expect(layout(37).header).toEqual(['ID']);
    for (let columns = 22; columns <= 120; columns++) {
      const { lines } = layout(columns);
      for (const line of lines) expect(stringWidth(line), `${columns}: ${line}`).toBeLessThanOrEqual(columns);
      expect(lines.slice(1).map((l) => l.split(' ')[0]), String(columns)).toEqual(runs.map((r) => r.runId));
    }
    // Narrower than an id: the ids are still whole.
    expect(layout(15).lines.slice(1)).toEqual(runs.map((r) => r.runId));
  });
});

describe('which runs a listing keeps', () => {
  const runs = [
    run('old', '2026-11-01T00:00:00Z', { status: 'completed' }),
    run('mid', '2026-11-20T00:00:00Z', { status: 'interrupted' }),
    run('new', '2026-11-30T00:00:00Z', { status: 'running' }),
    run('newest', '2026-11-30T12:00:00Z', { status: 'suspended' }),
  ];
  it('filters by status and time, newest first, and limits last', () => {
    expect(selectRuns(runs, {}).map((r) => r.runId)).toEqual(['newest', 'new', 'mid', 'old']);
    expect(selectRuns(runs, { status: ['interrupted', 'completed'] }).map((r) => r.runId)).toEqual(['mid', 'old']);
    expect(selectRuns(runs, { since: new Date('2026-11-20T00:00:00Z') }).map((r) => r.runId)).toEqual(['newest', 'new', 'mid']);
    expect(selectRuns(runs, { since: new Date('2026-11-02T00:00:00Z'), status: ['completed', 'running'], limit: 1 }).map((r) => r.runId)).toEqual(['new']);
  });
});

describe('conversations in a listing', () => {
  // a <- b <- c, one conversation; x alone.
  const runs = [
    run('c', '2026-11-30T12:00:00Z', { forkedFrom: { from: 'b', at: 4 }, lastTurn: 'is it big?', status: 'suspended' }),
    run('x', '2026-11-30T11:00:00Z'),
    run('b', '2026-11-30T10:00:00Z', { forkedFrom: { from: 'a', at: 2 }, lastTurn: 'how many?' }),
    run('a', '2026-11-30T09:00:00Z', { lastTurn: 'the capital?' }),
  ];

  it('are one row, the newest run the filters keep, with how many earlier; --forks keeps every run; the limit counts rows', () => {
    expect(selectRows(runs, {}, false).map((r) => [r.run.runId, r.earlier])).toEqual([['c', 2], ['x', 0]]);
    expect(selectRows(runs, {}, true).map((r) => r.run.runId)).toEqual(['c', 'x', 'b', 'a']);
    expect(selectRows(runs, { status: ['completed'] }, false).map((r) => [r.run.runId, r.earlier])).toEqual([['x', 0], ['b', 1]]);
    expect(selectRows(runs, { limit: 1 }, false).map((r) => r.run.runId)).toEqual(['c']);
  });

  it('show the last typed turn, then +N earlier, never cut, on a terminal of any width', () => {
    const rows = selectRows(runs, {}, false);
    const earlier = new Map(rows.map((r) => [r.run.runId, r.earlier]));
    const lines = formatRunList(rows.map((r) => r.run), { columns: 60, ...plain }, earlier).trimEnd().split('\n');
    expect(lines[1]).toMatch(/^c +suspended +\S+ \S+ +is it big\?  \+2 earlier$/);
    expect(lines[2]).toMatch(/^x +completed +\S+ \S+ +p$/);
    const long = [run('c', '2026-11-30T12:00:00Z', { lastTurn: 'why? '.repeat(40) })];
    for (const columns of [50, 60, 80, 100]) {
      const [, line] = formatRunList(long, { columns, ...plain }, new Map([['c', 12]])).trimEnd().split('\n');
      expect(line, String(columns)).toMatch(/\u2026  \+12 earlier$/);
      expect(stringWidth(line!)).toBeLessThanOrEqual(columns);
    }
  });
});

describe('table widths', () => {
  it('measures and cuts printable ASCII (and the ellipsis) exactly as the segmenting path does', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...' az~`{|}.-_09AZ\u2026'.split('')) }), fc.integer({ min: 0, max: 40 }), (text, max) => {
        expect(cellWidth(text)).toBe(stringWidth(text));
        expect(cellWidth(`${text}\u2026`)).toBe(stringWidth(`${text}\u2026`));
        // The same text with one wide character appended goes through the segmenter: the cut of the ASCII prefix must agree.
        const cut = truncate(text, max);
        const segmented = truncate(`${text}日`, max);
        if (stringWidth(text) > max) expect(cut).toBe(segmented);
        else expect(cut).toBe(text);
      }),
    );
  });

  it('counts wide characters as two columns, a lone surrogate as the one U+FFFD it is drawn as', () => {
    expect(cellWidth('a\u{1f600}b')).toBe(4);
    expect(cellWidth('日本')).toBe(4);
    expect(cellWidth('a\ud83d')).toBe(2);
    expect(cellWidth('\ude00z')).toBe(2);
    expect(table([['a\u{1f600}b', 'x'], ['abcde', 'y']])).toBe('a\u{1f600}b   x\nabcde  y\n');
    expect(table([['a\ud83d', 'x'], ['abc', 'y']])).toBe('a\ufffd   x\nabc  y\n');
  });
});

describe('session ls --json', () => {
  it('reads whole only the runs it prints: --limit applies before the folds', async () => {
    const store = new MemoryStore();
    for (const id of ['r1', 'r2', 'r3', 'r4', 'r5']) await (await store.create(id, meta(id))).close();
    const loaded: string[] = [];
    const load = store.load.bind(store);
    store.load = (id) => (loaded.push(id), load(id));
    const { out } = await listRuns(store, { ...plain, columns: 80 }, { json: true, limit: 2 });
    expect(out.trimEnd().split('\n')).toHaveLength(2);
    expect(loaded).toHaveLength(2);
  });
});
