import { describe, expect, it } from 'vitest';
import { initialState, matching, pressKey, rowText, rowWidths, type PickerEntry } from '../../src/cli/picker/model.js';
import { type RunInfo } from '../../src/index.js';

const entry = (runId: string, extra: Partial<RunInfo> = {}, more: Partial<PickerEntry> = {}): PickerEntry => ({
  run: { runId, created: '', updated: '2026-11-30T10:00:00Z', model: 'm', prompt: `prompt of ${runId}`, interactive: true, status: 'suspended', ...extra },
  earlier: 0,
  here: true,
  refusal: null,
  ...more,
});

describe('the run picker', () => {
  const entries = [
    entry('drifted', {}, { refusal: 'was written with a different configuration (max_tokens: 99 -> 4096); restore it, or pass --force' }),
    entry('chat', { lastTurn: 'and about plums' }, { earlier: 2 }),
    entry('held', {}, { refusal: 'a logbook process holds it now' }),
    entry('far', {}, { here: false, run: { ...entry('far').run, place: { dir: '/other/project' } } }),
  ];

  it('opens on the first run it offers, and its cursor passes over the runs it does not', () => {
    const state = initialState(entries);
    expect(state.cursor).toBe(1);
    const down = pressKey(state, entries, '', { downArrow: true }, 10);
    expect(down.cursor).toBe(3); // over `held`
    expect(pressKey(down, entries, '', { downArrow: true }, 10).cursor).toBe(3); // nothing offered below
    expect(pressKey(down, entries, '', { upArrow: true }, 10).cursor).toBe(1);
    expect(pressKey(state, entries, '', { upArrow: true }, 10).cursor).toBe(1); // `drifted` is never chosen
    expect(pressKey(state, entries, '', { return: true }, 10).done).toEqual({ id: 'chat' });
  });

  it('never chooses a run it does not offer, even when the search leaves only such runs', () => {
    const typed = pressKey(initialState(entries), entries, 'held', {}, 10);
    expect(matching(entries, typed.query).map((e) => e.run.runId)).toEqual(['held']);
    expect(pressKey(typed, entries, '', { return: true }, 10).done).toBeUndefined();
  });

  it('keeps the turn and the reason both in sight on a narrow row, the reason cut to its first clause outside parentheses', () => {
    const refused = entry('x', { prompt: 'a long question about the build and its many slow steps' }, {
      refusal: 'was written with a different configuration (system prompt: changed; tool set: changed (a removed)); restore it, or pass --force',
    });
    const row = rowText(refused, rowWidths([refused]), 100);
    expect(row).toMatch(/^x {2}suspended {2}\S+ \S+ {2}a long question.*\u2026 \u00b7 cannot continue: was written with a .*\u2026$/);
    expect(row).toHaveLength(100);
    expect(rowText(refused, rowWidths([refused]), 300)).toMatch(/cannot continue: was written with a different configuration \(system prompt: changed; tool set: changed \(a removed\)\)$/);
  });

  it('searches the last typed turn as well as id, status, model and prompt', () => {
    expect(matching(entries, 'plums').map((e) => e.run.runId)).toEqual(['chat']);
    expect(matching(entries, 'prompt far').map((e) => e.run.runId)).toEqual(['far']);
  });

  it('shows when each changed, why one cannot be continued (its first clause), earlier runs and where one elsewhere was started', () => {
    const widths = rowWidths(entries);
    const rows = entries.map((e) => rowText(e, widths, 200));
    expect(rows[0]).toMatch(/^drifted {2}suspended {2}2026-11-30 \d\d:00 {2}prompt of drifted \u00b7 cannot continue: was written with a different configuration \(max_tokens: 99 -> 4096\)$/);
    expect(rows[1]).toMatch(/^chat {5}suspended {2}2026-11-30 \d\d:00 {2}and about plums {2}\(\+2 earlier\)$/);
    expect(rows[3]).toMatch(/prompt of far {2}\[started in \/other\/project\]$/);
    const narrow = rowText(entries[1]!, widths, 60); // the turn is cut to fit; the rest stays whole
    expect(narrow).toMatch(/^chat {5}suspended {2}2026-11-30 \d\d:00 {2}and abo\u2026 {2}\(\+2 earlier\)$/);
    expect(narrow).toHaveLength(60);
  });
});
