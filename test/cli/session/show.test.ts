import { describe, expect, it } from 'vitest';
import { formatShow, lastAnswer, withoutToolData, type ShownRun } from '../../../src/cli/session/show.js';
import { initialState, NO_TIMES, RecordOutline, step, type JournalRecord } from '../../../src/core/index.js';
import { assistant, at, meta, toolResult } from '../../helpers/records.js';

/** The state of a run of these records. */
function folded(...records: JournalRecord[]) {
  const state = initialState(at(1, { meta: meta('r') }));
  for (const record of records) step(state, record);
  return state;
}

describe("session show's last answer", () => {
  it('is the text of the latest assistant turn that has any, the turn in flight first', () => {
    expect(lastAnswer(folded())).toBe('');
    expect(lastAnswer(folded(at(2, assistant(0, [], 'first'))))).toBe('first');
    // A later turn with only whitespace is passed over; the turn in flight counts once it has text.
    expect(lastAnswer(folded(at(2, assistant(0, ['a'], 'first')), at(3, toolResult('a')), at(4, assistant(1, ['b'], '  '))))).toBe('first');
    expect(lastAnswer(folded(at(2, assistant(0, ['a'], 'first')), at(3, toolResult('a')), at(4, assistant(1, ['b'], 'second'))))).toBe('second');
    expect(lastAnswer(folded(at(2, assistant(0, ['a'], 'first')), at(3, toolResult('a')), at(4, assistant(1, [], 'third'))))).toBe('third');
  });
});

describe("session show's summary", () => {
  /** The summary of a run of these records, each given to `keep` as `session show` reads it (after its outline is taken) before it is folded. */
  function summary(records: JournalRecord[], keep: (record: JournalRecord) => void): string {
    const [first, ...rest] = records;
    const outline = new RecordOutline();
    outline.add(first!);
    const state = initialState(first!);
    for (const record of rest) {
      outline.add(record);
      keep(record);
      step(state, record);
    }
    const run: ShownRun = { state, metaLine: '', lastSeq: state.last_seq, created: '2026-01-02T03:04:05Z', updated: '2026-01-02T03:04:06Z', times: NO_TIMES, outline };
    return formatShow(run, 'logbook run --resume r');
  }

  it('reads no tool output nor input, so the fold behind it keeps none', () => {
    // Committed results, a failed call's, and a batch in flight whose first call is answered.
    const records = () => [
      at(1, { meta: meta('r') }),
      at(2, assistant(0, ['a', 'b'], 'first')),
      at(3, toolResult('a', 'the output of a')),
      at(4, { tool_result: { tool_use_id: 'b', result: { tool_use_id: 'b', content: 'b failed', is_error: true } } }),
      at(5, assistant(1, ['c', 'd'], 'second')),
      at(6, toolResult('c', 'the output of c')),
    ];
    const dropped = records();
    const shown = summary(dropped, withoutToolData);
    expect(shown).toBe(summary(records(), () => {}));
    expect(shown).toContain('1 of 2 calls answered; call d (echo)');
    const outputs = dropped.flatMap((r) => ('tool_result' in r ? [r.tool_result.result.content] : []));
    expect(outputs).toEqual(['', '', '']);
    const inputs = dropped.flatMap((r) => ('assistant' in r ? r.assistant.message.content.flatMap((b) => ('tool_use' in b ? [b.tool_use.input.text] : [])) : []));
    expect(inputs).toEqual(['{}', '{}', '{}', '{}']);
  });
});
