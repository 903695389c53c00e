/**
 * The web view's page of a run, as the ui makes it from a snapshot: a fork's
 * copied records are inherited, a continuation's are all its own (it holds a
 * summary of its origin, no copies).
 */
import { describe, expect, it } from 'vitest';
import { fold, type JournalRecord } from '../../../src/index.js';
import { viewInput, viewOf, type RunSnapshot } from '../../../src/cli/ui/runs.js';
import { transcriptView } from '../../../src/render/run-view.js';
import { assistant, at, meta, toolResult } from '../../helpers/records.js';

const records: JournalRecord[] = [at(1, { meta: meta('r') }), at(2, assistant(0, ['a'])), at(3, toolResult('a')), at(4, assistant(1))];
const snapshot = (origin: RunSnapshot['origin']): RunSnapshot => ({
  records,
  state: fold(records),
  times: { records: new Map(), resumed: new Map() },
  created: '2026-12-01T00:00:00Z',
  updated: '2026-12-01T00:00:01Z',
  origin,
});
const inherited = (origin: RunSnapshot['origin']) =>
  viewOf(snapshot(origin), () => undefined)
    .timeline.entries.filter((e) => 'inherited' in e && e.inherited)
    .map((e) => e.seq);

describe("a run's page", () => {
  it("shows a fork's copied records as inherited", () => {
    expect(inherited({ from: 'parent', at: 3 })).toEqual([2, 3]);
  });

  it("shows none of a continuation's records as inherited, though its origin's cut is past them", () => {
    expect(inherited({ from: 'long', at: 40, compacted: true })).toEqual([]);
    expect(inherited({ from: 'long', at: 3, compacted: true })).toEqual([]);
  });

  it('gives a part of the transcript exactly as the whole has it, with the durations of its calls', () => {
    const timed: RunSnapshot = { ...snapshot(null), times: { records: new Map([[1, 1000], [2, 1400], [3, 1500], [4, 2100]]), resumed: new Map() } };
    const input = viewInput(timed, () => undefined);
    const whole = transcriptView(input);
    expect(whole.flatMap((g) => g.items).filter((i) => i.kind === 'model').map((i) => i.took)).toEqual([400, 600]);
    for (let k = 0; k <= 5; k++) expect(transcriptView(input, { from: k }), `from ${k}`).toEqual(whole.filter((g) => g.at >= k));
  });
});

