/**
 * StateJsonStream: the state's JSON written while the run folds is stateToJson
 * of the whole fold, byte for byte, though the stream takes each message it
 * writes out of the state; and the fold goes on refusing what it refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeRecord, encodeRecord, initialState, step, stateToJson, StateJsonStream, terminalQuote, type JournalRecord, type RunState, type StateJsonExtra } from '../../src/core/index.js';
import { outputLiteral } from '../../src/core/state-json.js';
import { journal, text } from '../helpers/journals.js';

const EXTRA: StateJsonExtra = { created: '2026-01-02T03:04:05Z', updated: 'now', listedStatus: 'interrupted', more: [['last_input_tokens', 7]] };

/**
 * The stream's text for `records`, folded one by one as a load does, and the
 * state it leaves; with `lineOf`, each record read with that line first (by
 * default the encoder's: the line a load reads it from).
 */
function streamed(records: readonly JournalRecord[], lineOf: ((record: JournalRecord) => string) | null = encodeRecord): { text: string; state: RunState } {
  const parts: string[] = [];
  const stream = new StateJsonStream((part) => parts.push(part));
  const read = (record: JournalRecord): void => {
    if (lineOf !== null) stream.read(record, lineOf(record));
  };
  read(records[0]!);
  const state = initialState(records[0]!);
  stream.folded(state);
  for (let i = 1; i < records.length; i++) {
    read(records[i]!);
    step(state, records[i]!);
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

describe("a tool output's literal in its line", () => {
  /** The tool result of `content` as a load reads it: its line (the encoder's, or `edit` of it) and the record decoded from that line. */
  function read(content: string, edit: (line: string) => string = (line) => line, body: { is_error?: true; remote?: true } = {}) {
    const { remote, ...error } = body;
    const record: JournalRecord = { seq: 12, tool_result: { tool_use_id: 'c<1>', result: { tool_use_id: 'c<1>', content, ...error }, ...(remote ? { remote } : {}) } };
    const line = edit(encodeRecord(record));
    return { line, record: decodeRecord(line) };
  }
  const literalOf = ({ line, record }: { line: string; record: JournalRecord }): string | undefined => outputLiteral(record, line);
  const outputOf = (record: JournalRecord): string => ('tool_result' in record ? record.tool_result.result.content : '');

  it('is the terminal spelling of the output whenever it is taken, for random outputs and lines', () => {
    const wide = fc.string({ unit: fc.oneof(fc.constantFrom('a', ' ', '\n', '\t', '\r', '"', '\\', '/', '<', '&', '\u0000', '\u001b', '\u007f', '\u0085', '\u2028', '\ud800', 'é', '🦜'), fc.string({ maxLength: 1 })), maxLength: 30 });
    const edits: ((line: string) => string)[] = [
      (line) => line,
      (line) => line.replace('"content":"', '"content":"\\/'),
      (line) => line.replace('"content":"', '"content":"\\u0041'),
      (line) => line.replaceAll('\\n', '\\u000a').replaceAll('\\u003c', '\\u003C'),
      (line) => line.replaceAll('\\u003c', '<').replaceAll('\\u0026', '&'),
      (line) => line.replace('"content":"', '"content":"x","content":"'),
      (line) => line.replace('"content":', '"content" :'),
      (line) => line.replace('"result":{', '"result":{"newer":"\\"content\\":1",'),
      (line) => line.replace(/}}$/, ',"is_error":false}}'),
    ];
    fc.assert(
      fc.property(fc.oneof(text, wide), fc.nat(edits.length - 1), fc.boolean(), fc.boolean(), (content, e, error, remote) => {
        const got = read(content, edits[e], { ...(error ? { is_error: true } : {}), ...(remote ? { remote: true } : {}) });
        const literal = literalOf(got);
        if (literal !== undefined) expect(literal).toBe(terminalQuote(outputOf(got.record)));
      }),
      { numRuns: 1000 },
    );
  });

  it("is taken for the encoder's line of printable text with JSON's short escapes, and not for one spelled otherwise", () => {
    const plain = 'line 1\n\tline "2" \\ \r\u0001';
    expect(literalOf(read(plain))).toBe(terminalQuote(plain));
    expect(literalOf(read(plain, undefined, { is_error: true, remote: true }))).toBe(terminalQuote(plain));
    expect(literalOf(read('a <b> & \u2028'))).toBe(terminalQuote('a <b> & \u2028')); // the format's \u escapes, as quote writes them
    for (const other of ['\u007f', '\u009b', 'é']) expect(literalOf(read(`x${other}`))).toBeUndefined(); // a terminal's escapes, or beyond ASCII
    expect(literalOf(read('a/b', (line) => line.replace('a/b', 'a\\/b')))).toBeUndefined();
    expect(literalOf(read('x', (line) => line.replace('"content":"x"', '"content":"y","content":"x"')))).toBeUndefined();
  });
});
