import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatShow, lastAnswer, ShownConversation, type ShownRun } from '../../../src/cli/session/show.js';
import { refusedRequestAdvice } from '../../../src/cli/refused-request.js';
import { committedTurns, initialState, NO_TIMES, RecordOutline, step, type JournalRecord } from '../../../src/core/index.js';
import { journal } from '../../helpers/journals.js';
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
  /** The run of these records as `session show` reads it: its outline taken, folded, and, with `conversation`, its conversation taken out as it folds. */
  function shown(records: readonly JournalRecord[], conversation?: ShownConversation): ShownRun {
    const [first, ...rest] = records;
    const outline = new RecordOutline();
    outline.add(first!);
    const state = initialState(first!);
    conversation?.folded(state);
    for (const record of rest) {
      outline.add(record);
      step(state, record);
      conversation?.folded(state);
    }
    return { state, metaLine: '', lastSeq: state.last_seq, created: '2026-01-02T03:04:05Z', updated: '2026-01-02T03:04:06Z', times: NO_TIMES, outline, ...(conversation ? { conversation } : {}) };
  }

  /** Its summary, with agents named for some of its tools (the remote calls' count names them). */
  const summary = (run: ShownRun): string => formatShow(run, 'logbook run --resume r', { agents: { tool0: 'probe', tool2: 'other' } });

  it('is the same with the conversation taken out of the state as it folds, for random journals', () => {
    fc.assert(
      fc.property(journal, ({ records }) => {
        const whole = shown(records);
        const taken = shown(records, new ShownConversation());
        expect(taken.state.messages.length).toBeLessThanOrEqual(2);
        expect(summary(taken)).toBe(summary(whole));
        // What a refusal's advice counts of the conversation, read from the counters.
        expect(committedTurns(taken.state)).toBe(whole.state.messages.filter((m) => m.role === 'assistant').length);
        expect(refusedRequestAdvice(taken.state)).toBe(refusedRequestAdvice(whole.state));
      }),
      { numRuns: 300 },
    );
  });

  it('names the last answer and typed turn when later turns have none', () => {
    const records = [
      at(1, { meta: meta('r', { interactive: true }) }),
      at(2, assistant(0, ['a'], 'the answer')),
      at(3, toolResult('a')),
      at(4, { user: { message: { role: 'user', content: [{ text: { text: 'typed early' } }] } } }),
      at(5, assistant(1, ['b'], ' ')),
      at(6, toolResult('b')),
      at(7, assistant(2, ['c'], '')),
      at(8, toolResult('c')),
      at(9, assistant(3, [], '\n')),
    ];
    const run = shown(records, new ShownConversation());
    expect(run.state.messages.length).toBe(2);
    const text = summary(run);
    expect(text).toContain('last typed turn\n  typed early\n');
    expect(text).toContain('last answer\n  the answer\n');
    expect(text).toBe(summary(shown(records)));
  });

  it('names the last typed turn when it is the first of the messages taken out at once', () => {
    // The typed turn, then an answer (both in the state's tail), then a turn committed with its results: the two are taken out together.
    const records = [
      at(1, { meta: meta('r', { interactive: true }) }),
      at(2, assistant(0, [], 'first')),
      at(3, { user: { message: { role: 'user', content: [{ text: { text: 'typed between' } }] } } }),
      at(4, assistant(1, [], 'second')),
      at(5, assistant(2, ['c'], '')),
      at(6, toolResult('c')),
    ];
    const run = shown(records, new ShownConversation());
    expect(run.state.messages.length).toBe(2);
    const text = summary(run);
    expect(text).toContain('last typed turn\n  typed between\n');
    expect(text).toBe(summary(shown(records)));
  });
});
