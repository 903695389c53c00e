import { describe, expect, it } from 'vitest';
import { fold, type JournalRecord } from '../../src/index.js';
import { type RunTimes } from '../../src/core/index.js';
import { runTimeline } from '../../src/render/timeline.js';
import { assistant, at, meta, toolResult } from '../helpers/records.js';

const times = (records: [number, number][], resumed: [number, number][] = []): RunTimes => ({ records: new Map(records), resumed: new Map(resumed) });

describe('a run as a timeline', () => {
  const records: JournalRecord[] = [at(1, { meta: meta('t') }), at(2, assistant(0, ['a', 'b'])), at(3, toolResult('a'))];
  const kept = times([
    [1, 100],
    [2, 400],
    [3, 900],
  ]);

  it('gives model and tool calls their times and tokens, and the step in flight what it is and since when', () => {
    const t = runTimeline(records, fold(records), kept, { held: true });
    expect(t).toMatchObject({ start: 100, end: 900 });
    expect(t.entries).toEqual([
      { kind: 'model', seq: 2, turn: 1, time: { start: 100, end: 400 }, inTokens: 10, outTokens: 5, cacheReadTokens: 0, cacheCreateTokens: 0, stopReason: 'tool_use' },
      { kind: 'tool', seq: 3, turn: 1, callId: 'a', name: 'echo', time: { start: 400, end: 900 }, isError: false, remote: false },
      { kind: 'inflight', what: 'tool', seq: 4, start: 900, callId: 'b', name: 'echo' },
    ]);
  });

  it('marks a run nobody holds as interrupted, and the records a fork copied as inherited, with the fork where it was made', () => {
    const t = runTimeline(records, fold(records), times([[3, 900]]), { held: false, origin: { from: 'parent', at: 2 } });
    expect(t.entries.map((e) => [e.kind, 'inherited' in e ? e.inherited : undefined, e.kind === 'marker' ? e.marker : undefined])).toEqual([
      ['model', true, undefined],
      ['marker', undefined, 'forked'],
      ['tool', undefined, undefined],
      ['marker', undefined, 'interrupted'],
    ]);
  });

  it('marks where the run ended and where it was taken up again, and gives no bar to a step without times', () => {
    const ended: JournalRecord[] = [...records, at(4, toolResult('b')), at(5, { terminal: { reason: 'suspended' } }), at(6, assistant(1))];
    const t = runTimeline(ended, fold(ended), times([...kept.records, [5, 950], [6, 2000]], [[5, 1500]]), { held: false });
    const kinds = t.entries.map((e) => (e.kind === 'marker' ? `${e.marker}` : `${e.kind}${'time' in e && e.time ? '' : ' (untimed)'}`));
    expect(kinds).toEqual(['model', 'tool', 'tool (untimed)', 'ended', 'resumed', 'model', 'interrupted']);
    expect(t.entries.find((e) => e.kind === 'model' && e.seq === 6)).toMatchObject({ time: { start: 1500, end: 2000 } });
  });

  it('gives the entries of a range of records exactly as the whole timeline has them, the step in flight with the last range', () => {
    const ended: JournalRecord[] = [...records, at(4, toolResult('b')), at(5, { terminal: { reason: 'suspended' } }), at(6, assistant(1, ['c']))];
    const t = times([...kept.records, [5, 950], [6, 2000]], [[5, 1500]]);
    const whole = runTimeline(ended, fold(ended), t, { held: true, origin: { from: 'parent', at: 3 } }).entries;
    for (let k = 1; k <= 8; k++) {
      const parts = [
        ...runTimeline(ended, fold(ended), t, { held: true, origin: { from: 'parent', at: 3 }, range: { to: k } }).entries,
        ...runTimeline(ended, fold(ended), t, { held: true, origin: { from: 'parent', at: 3 }, range: { from: k } }).entries,
      ];
      expect(parts, `split at ${k}`).toEqual(whole);
    }
    expect(runTimeline(ended, fold(ended), t, { range: { from: 6 } })).toMatchObject({ start: 1500, end: 2000 });
  });
});
