import { describe, expect, it } from 'vitest';
import { type JournalRecord } from '../../src/index.js';
import { NO_TIMES, RecordOutline, callDurations, outlineTimeSummary, outlineTimings, runTimings, timeSummary, timesAfter, toolKey, type RunTimes } from '../../src/core/index.js';
import { assistant, at, completed, meta, toolResult } from '../helpers/records.js';
import { repeatedIdMessage } from '../../src/core/call-facts.js';

const suspended = { terminal: { reason: 'suspended' as const } };
const typed = { user: { message: { role: 'user' as const, content: [{ text: { text: 'and then?' } }] } } };

/** A run: a batch of two calls, an answer, a suspend, a resume with a typed turn and another answer. */
const records: JournalRecord[] = [
  at(1, { meta: meta('r') }),
  at(2, assistant(0, ['a', 'b'])),
  at(3, toolResult('a')),
  at(4, toolResult('b')),
  at(5, assistant(1)),
  at(6, suspended),
  at(7, typed),
  at(8, assistant(2)),
  at(9, completed),
];

const times = (records: [number, number][], resumed: [number, number][] = []): RunTimes => ({ records: new Map(records), resumed: new Map(resumed) });

describe('the timing of a run', () => {
  const kept = times(
    [
      [1, 1000],
      [2, 3000],
      [3, 3500],
      [4, 4700],
      [5, 6000],
      [6, 6001],
      [7, 90_000],
      [8, 91_000],
      [9, 91_002],
    ],
    [[6, 80_000]],
  );

  it('times each step from the durability of the record before it: model calls, then each call of a batch after the one before', () => {
    const { steps, started, lastDurable } = runTimings(records, kept);
    expect(started).toBe(1000);
    expect(lastDurable).toBe(91_002);
    expect(steps.map((s) => [s.seq, s.kind, s.turn, s.callId, s.time && s.time.end - s.time.start])).toEqual([
      [2, 'model', 0, undefined, 2000],
      [3, 'tool', 0, 'a', 500], // from the batch start
      [4, 'tool', 0, 'b', 1200], // from the call before it: tools of a batch run one at a time
      [5, 'model', 1, undefined, 1300],
      [6, 'end', 1, undefined, 1],
      [7, 'input', 1, undefined, 10_000], // from the resume's mark, not from the suspend
      [8, 'model', 2, undefined, 1000],
      [9, 'end', 2, undefined, 2],
    ]);
  });

  it('leaves a step after a terminal record untimed when no resume was marked, and never times a step a kept time is missing for', () => {
    const noMark = times([...kept.records]);
    const steps = runTimings(records, noMark).steps;
    expect(steps.find((s) => s.seq === 7)!.time).toBeUndefined();
    expect(steps.find((s) => s.seq === 8)!.time).toEqual({ start: 90_000, end: 91_000 });
    const holes = times([...kept.records].filter(([seq]) => seq !== 3));
    const timed = runTimings(records, holes).steps.filter((s) => s.time !== undefined).map((s) => s.seq);
    expect(timed).toEqual([2, 5, 6, 8, 9]); // 3 has no time, and 4 no start
    expect(runTimings(records, NO_TIMES).steps.every((s) => s.time === undefined)).toBe(true);
  });

  it('looks durations up by model turn and by call, and sums them with the slowest of each', () => {
    const timings = runTimings(records, kept);
    const d = callDurations(timings);
    expect([...d.model]).toEqual([
      [0, 2000],
      [1, 1300],
      [2, 1000],
    ]);
    expect(d.tools.get(toolKey(0, 'b'))).toBe(1200);
    const summary = timeSummary(records, timings);
    expect(summary.model).toEqual({ calls: 3, timed: 3, ms: 4300, slowest: { turn: 0, ms: 2000 } });
    expect(summary.tools).toEqual({ calls: 2, timed: 2, ms: 1700, slowest: { callId: 'b', name: 'echo', ms: 1200 } });
  });

  it('gives the same figures from the outline a folding load keeps, record by record, as from the records', () => {
    // A refused repeat of an id is no tool call, and an error result is kept for the task links.
    const refused = { tool_result: { tool_use_id: 'a', result: { tool_use_id: 'a', content: repeatedIdMessage('a'), is_error: true } } };
    const run: JournalRecord[] = [...records.slice(0, 4), at(5, refused), ...records.slice(4).map((r) => ({ ...r, seq: r.seq + 1 }))];
    const outline = new RecordOutline();
    for (const record of run) outline.add(record);
    const timings = outlineTimings(outline, kept, { from: 4 });
    expect(timings).toEqual(runTimings(run, kept, { from: 4 }));
    expect(outlineTimeSummary(outline, runTimings(run, kept))).toEqual(timeSummary(run, runTimings(run, kept)));
    expect([...outline.neverRun]).toEqual([5]);
    expect(outline.errors[4]).toBe(repeatedIdMessage('a'));
    expect([outline.callSeqs, outline.callIds, outline.callNames]).toEqual([[2, 2], ['a', 'b'], ['echo', 'echo']]);
    expect([1, 2, 5, 6, 10].map((seq) => outline.modelCallsThrough(seq))).toEqual([0, 1, 1, 2, 3]);
  });

  it('drops the times a copy got for the records it copied, and keeps a resume after them', () => {
    const copy = timesAfter(kept, 6);
    expect([...copy.records.keys()]).toEqual([7, 8, 9]);
    expect([...copy.resumed.keys()]).toEqual([6]);
    expect(timesAfter(kept, 0)).toBe(kept);
  });
});
