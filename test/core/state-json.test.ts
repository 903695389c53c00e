/**
 * StateJsonStream: the state's JSON written while the run folds is stateToJson
 * of the whole fold, byte for byte, though the stream takes each message it
 * writes out of the state; and the fold goes on refusing what it refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeLineKeepingOutput, encodeRecord, initialState, step, stateToJson, StateJsonStream, type JournalRecord, type RunState, type StateJsonExtra } from '../../src/core/index.js';
import { journal } from '../helpers/journals.js';

const EXTRA: StateJsonExtra = { created: '2026-01-02T03:04:05Z', updated: 'now', listedStatus: 'interrupted', more: [['last_input_tokens', 7]] };

/**
 * The stream's text for `records`, folded one by one as a load does, and the
 * state it leaves; with `lineOf`, each record read again from that line (by
 * default the encoder's: the line a load reads it from) as `session show
 * --json` reads it, an output in the encoder's exact text kept as its literal.
 */
function streamed(records: readonly JournalRecord[], lineOf: ((record: JournalRecord) => string) | null = encodeRecord): { text: string; state: RunState } {
  const parts: string[] = [];
  const stream = new StateJsonStream((part) => parts.push(part));
  const read = (record: JournalRecord): JournalRecord => (lineOf === null ? record : decodeLineKeepingOutput(lineOf(record), 'journal', 1));
  const state = initialState(read(records[0]!));
  stream.folded(state);
  for (let i = 1; i < records.length; i++) {
    step(state, read(records[i]!));
    stream.folded(state);
  }
  stream.end(state, EXTRA);
  return { text: parts.join(''), state };
}

const plainFold = (records: readonly JournalRecord[]): RunState => {
  const state = initialState(records[0]!);
  for (let i = 1; i < records.length; i++) step(state, records[i]!);
  return state;
};

const meta = (prompt: string): JournalRecord => ({
  seq: 1,
  meta: {
    version: 3,
    run_id: 'r',
    created: '2026-01-02T03:04:05Z',
    fingerprint: { provider: 'anthropic', model: 'm', system_hash: 'a', tools_hash: 'b', thinking_mode: 'off', max_tokens: 10, max_iterations: 10 },
    prompt,
  },
});

/** A turn calling `ids`, at `seq`. */
const turn = (seq: number, iteration: number, ids: string[], text = 'looking'): JournalRecord => ({
  seq,
  assistant: {
    iteration,
    message: { role: 'assistant', content: [{ text: { text } }, ...ids.map((id) => ({ tool_use: { id, name: 'sh', input: { text: '{}' } as never } }))] },
    stop_reason: ids.length > 0 ? 'tool_use' : 'end_turn',
    in_tokens: 1,
    out_tokens: 1,
  },
});
const result = (seq: number, id: string, content: string): JournalRecord => ({ seq, tool_result: { tool_use_id: id, result: { tool_use_id: id, content } } });
const typed = (seq: number, text: string): JournalRecord => ({ seq, user: { message: { role: 'user', content: [{ text: { text } }] } } });

describe('StateJsonStream', () => {
  it('writes stateToJson of the whole fold, for random journals', () => {
    fc.assert(
      fc.property(journal, ({ records }) => {
        const whole = stateToJson(plainFold(records), EXTRA);
        expect(streamed(records).text).toBe(whole);
        expect(streamed(records, null).text).toBe(whole);
      }),
      { numRuns: 200 },
    );
  });

  it('holds back the last message while a typed turn may still merge into it, and terminal controls are escaped as stateToJson escapes them', () => {
    const records = [
      meta('go <now> \u001b[2J'),
      turn(2, 0, ['a', 'b'], 'first \u202e \u2028'),
      result(3, 'a', 'out "a"\n\u009b'),
      result(4, 'b', 'out b \ud800'),
      typed(5, 'and then \u0007?'),
      typed(6, 'more'),
      turn(7, 1, ['c']),
      result(8, 'c', 'pending? no'),
      turn(9, 2, ['d', 'e']),
      result(10, 'd', 'in flight'),
    ];
    const { text, state } = streamed(records);
    expect(text).toBe(stateToJson(plainFold(records), EXTRA));
    expect(JSON.parse(text).messages).toHaveLength(5);
    expect(state.messages.length).toBeLessThanOrEqual(2); // the written messages were let go
  });

  it('writes a run of its meta alone, and one whose prompt is empty', () => {
    for (const records of [[meta('only')], [meta(''), turn(2, 0, [])]]) expect(streamed(records).text).toBe(stateToJson(plainFold(records), EXTRA));
  });

  it('leaves the fold refusing a second result for a committed turn as it did', () => {
    const records = [meta('p'), turn(2, 0, ['a']), result(3, 'a', 'x'), turn(4, 1, ['b']), result(5, 'b', 'y'), result(6, 'b', 'again')];
    const refusal = (fold: () => void): string => {
      try {
        fold();
      } catch (err) {
        return (err as Error).message;
      }
      return 'none';
    };
    expect(refusal(() => streamed(records))).toBe(refusal(() => plainFold(records)));
    expect(refusal(() => streamed(records))).toMatch(/second tool result for b/);
  });
});
