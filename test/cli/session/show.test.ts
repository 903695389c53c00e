import { describe, expect, it } from 'vitest';
import { lastAnswer } from '../../../src/cli/session/show.js';
import { initialState, step, type JournalRecord } from '../../../src/core/index.js';
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
