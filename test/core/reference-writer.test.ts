/**
 * Byte and meaning compatibility with the reference writer (docs/record-format.md).
 * Every expected line here is written by hand from the spec's rules (Go
 * encoding/json: omitempty fields vanish at zero, byte fields are base64, a nil
 * slice is null, invalid text becomes U+FFFD), never produced by this project's
 * own encoder.
 */
import { describe, expect, it } from 'vitest';
import { RawJson, decodeRecord, encodeRecord, fold, parseJournal, type JournalRecord, type RunState } from '../../src/index.js';
import { checkResume, fromByteField, stateToJson, toByteField } from '../../src/core/index.js';

const P = 'io.choria.fisk-ai.v1.session';
const H = (c: string): string => c.repeat(64);
const FP_TEXT = `{"provider":"script","model":"m","system_hash":"${H('a')}","tools_hash":"${H('b')}","thinking_mode":"off","max_tokens":10,"max_iterations":5}`;
const FP = { provider: 'script', model: 'm', system_hash: H('a'), tools_hash: H('b'), thinking_mode: 'off', max_tokens: 10, max_iterations: 5 };
const META_LINE = `{"seq":1,"protocol":"${P}.meta","meta":{"version":3,"run_id":"r1","created":"2026-11-30T01:02:03.12Z","fingerprint":${FP_TEXT},"prompt":"p"}}`;

type Assistant = Extract<JournalRecord, { assistant: unknown }>;

/** The state of a journal given as its lines. */
const foldLines = (lines: string[]): RunState => fold(parseJournal(`${lines.join('\n')}\n`));

const resumeAs = (state: RunState): void => checkResume(state, { fingerprint: FP, interactive: false, force: false });

describe('thinking signatures are byte fields', () => {
  // A signature as the API sends it: base64-looking text, which is exactly why
  // storing it as is cannot be told apart from storing its bytes.
  const SIGNATURE = 'EqQBCkgIBxABGAIiQHx+/sig==';
  const FIELD = 'RXFRQkNrZ0lCeEFCR0FJaVFIeCsvc2lnPT0='; // base64 of its UTF-8 bytes

  it('the journal holds base64 of the UTF-8 bytes of the string the provider sent, and the provider gets that string back', () => {
    expect(toByteField(SIGNATURE)).toBe(FIELD);
    expect(fromByteField(FIELD)).toBe(SIGNATURE);
    expect(toByteField('sig-\u00e9\u2713')).toBe('c2lnLcOp4pyT'); // two- and three-byte UTF-8
    expect(fromByteField('c2lnLcOp4pyT')).toBe('sig-\u00e9\u2713');
  });

  it('is written as that base64, standard alphabet, padded', () => {
    const line = encodeRecord({
      seq: 2,
      assistant: {
        iteration: 0,
        message: { role: 'assistant', content: [{ thinking: { text: 'hm', signature: toByteField(SIGNATURE) } }, { text: { text: 'ok' } }] },
        stop_reason: 'end_turn',
        in_tokens: 10,
        out_tokens: 5,
      },
    });
    expect(line).toBe(
      `{"seq":2,"protocol":"${P}.assistant","assistant":{"iteration":0,"message":{"role":"assistant","content":[{"thinking":{"text":"hm","signature":"RXFRQkNrZ0lCeEFCR0FJaVFIeCsvc2lnPT0="}},{"text":{"text":"ok"}}]},"stop_reason":"end_turn","in_tokens":10,"out_tokens":5}}`,
    );
  });

  it('unused low bits of the last character are read, as the reference reads them, and written back zero', () => {
    const line = (sig: string): string =>
      `{"seq":2,"protocol":"${P}.assistant","assistant":{"iteration":0,"message":{"role":"assistant","content":[{"thinking":{"signature":"${sig}"}}]},"in_tokens":1,"out_tokens":1}}`;
    expect(encodeRecord(decodeRecord(line('YzJsbh==')))).toBe(line('YzJsbg=='));
    expect(encodeRecord(decodeRecord(line('c2lnLcOp4pyT')))).toBe(line('c2lnLcOp4pyT'));
  });
});

describe('zero-valued optional fields are never written', () => {
  const turn = (extra: Record<string, number>): string =>
    encodeRecord({
      seq: 2,
      assistant: { iteration: 0, message: { role: 'assistant', content: [{ text: { text: 'ok' } }] }, stop_reason: 'end_turn', in_tokens: 10, out_tokens: 5, ...extra },
    });
  const head = `{"seq":2,"protocol":"${P}.assistant","assistant":{"iteration":0,"message":{"role":"assistant","content":[{"text":{"text":"ok"}}]},"stop_reason":"end_turn","in_tokens":10,"out_tokens":5`;

  it('a turn without cache hits writes no cache counters, and each counter is judged on its own', () => {
    expect(turn({ cache_read_tokens: 0, cache_create_tokens: 0 })).toBe(`${head}}}`);
    expect(turn({ cache_read_tokens: 0, cache_create_tokens: 7 })).toBe(`${head},"cache_create_tokens":7}}`);
    expect(turn({ cache_read_tokens: 3, cache_create_tokens: 0 })).toBe(`${head},"cache_read_tokens":3}}`);
    expect(turn({ cache_read_tokens: 3, cache_create_tokens: 7 })).toBe(`${head},"cache_read_tokens":3,"cache_create_tokens":7}}`);
  });

  it('and neither is any other optional field at its zero value', () => {
    expect(
      encodeRecord({ seq: 2, assistant: { iteration: 0, message: { role: 'assistant', content: [{ thinking: { text: '', signature: '' } }] }, stop_reason: '', in_tokens: 0, out_tokens: 0 } }),
    ).toBe(`{"seq":2,"protocol":"${P}.assistant","assistant":{"iteration":0,"message":{"role":"assistant","content":[{"thinking":{}}]},"in_tokens":0,"out_tokens":0}}`);
    expect(encodeRecord({ seq: 3, tool_result: { tool_use_id: 't', result: { tool_use_id: 't', content: '', is_error: false }, remote: false } })).toBe(
      `{"seq":3,"protocol":"${P}.tool_result","tool_result":{"tool_use_id":"t","result":{"tool_use_id":"t","content":""}}}`,
    );
    expect(encodeRecord({ seq: 4, terminal: { reason: 'error', message: '' } })).toBe(`{"seq":4,"protocol":"${P}.terminal","terminal":{"reason":"error"}}`);
    expect(
      encodeRecord({ seq: 1, meta: { version: 3, run_id: 'r1', created: '2026-11-30T01:02:03.12Z', fingerprint: FP, prompt: 'p', interactive: false } }),
    ).toBe(META_LINE);
  });

  it('a zero the reader finds is read as absent and folds as 0', () => {
    const written = `${head},"cache_read_tokens":0,"cache_create_tokens":7}}`;
    const record = decodeRecord(written) as Assistant;
    expect('cache_read_tokens' in record.assistant).toBe(false);
    expect(encodeRecord(record)).toBe(`${head},"cache_create_tokens":7}}`);
    const state = foldLines([META_LINE, written]);
    expect(state.counters.cache_read_tokens).toBe(0);
    expect(state.counters.cache_create_tokens).toBe(7);
  });
});

describe('an empty reply', () => {
  const nullLine = `{"seq":2,"protocol":"${P}.assistant","assistant":{"iteration":0,"message":{"role":"assistant","content":null},"stop_reason":"refusal","in_tokens":10,"out_tokens":0}}`;

  it('is written "content":null', () => {
    expect(
      encodeRecord({ seq: 2, assistant: { iteration: 0, message: { role: 'assistant', content: [] }, stop_reason: 'refusal', in_tokens: 10, out_tokens: 0 } }),
    ).toBe(nullLine);
  });

  it('reads the same from null and from [], and folds as a message with no blocks', () => {
    const emptyLine = nullLine.replace('"content":null', '"content":[]');
    const fromNull = decodeRecord(nullLine) as Assistant;
    expect(fromNull.assistant.message.content).toEqual([]);
    expect(decodeRecord(emptyLine)).toEqual(fromNull);
    expect(encodeRecord(decodeRecord(emptyLine))).toBe(nullLine);
    const state = foldLines([META_LINE, nullLine]);
    expect(state.messages).toEqual([
      { role: 'user', content: [{ text: { text: 'p' } }] },
      { role: 'assistant', content: [] },
    ]);
    expect(stateToJson(state)).toContain(`"messages":[{"role":"user","content":[{"text":{"text":"p"}}]},{"role":"assistant","content":null}]`);
  });

  it('in a user record too', () => {
    const line = `{"seq":3,"protocol":"${P}.user","user":{"message":{"role":"user","content":null}}}`;
    expect(encodeRecord({ seq: 3, user: { message: { role: 'user', content: [] } } })).toBe(line);
    expect((decodeRecord(line) as Extract<JournalRecord, { user: unknown }>).user.message.content).toEqual([]);
  });
});

describe('the last terminal and the status', () => {
  const call = `{"seq":2,"protocol":"${P}.assistant","assistant":{"iteration":0,"message":{"role":"assistant","content":[{"tool_use":{"id":"t1","name":"sh","input":{}}}]},"stop_reason":"tool_use","in_tokens":10,"out_tokens":5}}`;
  const suspended = `{"seq":3,"protocol":"${P}.terminal","terminal":{"reason":"suspended"}}`;
  const result = `{"seq":4,"protocol":"${P}.tool_result","tool_result":{"tool_use_id":"t1","result":{"tool_use_id":"t1","content":"done"}}}`;
  const answer = `{"seq":5,"protocol":"${P}.assistant","assistant":{"iteration":1,"message":{"role":"assistant","content":[{"text":{"text":"ok"}}]},"stop_reason":"end_turn","in_tokens":10,"out_tokens":5}}`;

  it('a suspended run that was resumed and then crashed folds terminal = suspended, status = open', () => {
    const state = foldLines([META_LINE, call, suspended, result, answer]);
    expect(state.terminal).toEqual({ reason: 'suspended' });
    expect(state.status).toBe('open');
    expect(stateToJson(state)).toContain(`"last_stop_reason":"end_turn","terminal":{"reason":"suspended"},"status":"open"}`);
    expect(() => resumeAs(state)).not.toThrow();
  });

  it('the status is the reason of the terminal record the journal ends on', () => {
    const failed = `{"seq":6,"protocol":"${P}.terminal","terminal":{"reason":"error","message":"boom"}}`;
    const state = foldLines([META_LINE, call, suspended, result, answer, failed]);
    expect(state.terminal).toEqual({ reason: 'error', message: 'boom' });
    expect(state.status).toBe('error');
    expect(stateToJson(state)).toContain(`"terminal":{"reason":"error","message":"boom"},"status":"error"}`);
  });

  it('only a completed status refuses a resume, not a completed terminal record that records follow', () => {
    const completed = (seq: number): string => `{"seq":${seq},"protocol":"${P}.terminal","terminal":{"reason":"completed"}}`;
    const ended = foldLines([META_LINE, call, result.replace('"seq":4', '"seq":3'), answer.replace('"seq":5', '"seq":4'), completed(5)]);
    expect(ended.status).toBe('completed');
    expect(() => resumeAs(ended)).toThrow(expect.objectContaining({ code: 'already_completed' }));
    const wentOn = foldLines([META_LINE, completed(2), `{"seq":3,"protocol":"${P}.user","user":{"message":{"role":"user","content":[{"text":{"text":"more"}}]}}}`]);
    expect(wentOn.terminal).toEqual({ reason: 'completed' });
    expect(wentOn.status).toBe('open');
    expect(() => resumeAs(wentOn)).not.toThrow();
  });
});

describe('forward compatibility inside version 3', () => {
  // Every level carries a field this build does not know; some of them hold the
  // very keys ("input", "raw") whose values the decoder cuts out of the line.
  const lines = [
    `{"seq":1,"protocol":"${P}.meta","trace":{"id":"x"},"meta":{"version":3,"run_id":"r1","labels":{"team":"a"},"created":"2026-11-30T01:02:03.12Z","fingerprint":{"provider":"script","model":"m","system_hash":"${H('a')}","tools_hash":"${H('b')}","thinking_mode":"off","temperature":0.5,"max_tokens":10,"max_iterations":5},"prompt":"p"}}`,
    `{"seq":2,"protocol":"${P}.assistant","assistant":{"iteration":0,"service_tier":{"input":"std"},"message":{"id":"msg_1","role":"assistant","content":[{"text":{"text":"a","citations":[{"raw":1}]}},{"cache_control":{"input":{"x":1}},"tool_use":{"caller":{"input":"not this"},"id":"t1","name":"sh","input":{"cmd":"ls","n":1.0}}},{"provider":{"kind":"server_tool_use","extra":{"raw":"nor this"},"raw":{"type":"server_tool_use","input":{"q":12345678901234567890}}}}]},"stop_reason":"tool_use","in_tokens":10,"out_tokens":5,"speed":"fast"}}`,
    `{"seq":3,"protocol":"${P}.tool_result","tool_result":{"tool_use_id":"t1","duration_ms":12,"result":{"tool_use_id":"t1","content":"out","structured":{"input":2}}}}`,
    `{"seq":4,"protocol":"${P}.user","user":{"source":"slack","message":{"role":"user","content":[{"text":{"text":"more","lang":"en"}}]}}}`,
    `{"seq":5,"protocol":"${P}.terminal","terminal":{"reason":"suspended","at":"2026-11-30T01:02:04Z"}}`,
  ];
  // The same records as the reference writes them back: the unknown fields gone.
  const rewritten = [
    META_LINE,
    `{"seq":2,"protocol":"${P}.assistant","assistant":{"iteration":0,"message":{"role":"assistant","content":[{"text":{"text":"a"}},{"tool_use":{"id":"t1","name":"sh","input":{"cmd":"ls","n":1.0}}},{"provider":{"kind":"server_tool_use","raw":{"type":"server_tool_use","input":{"q":12345678901234567890}}}}]},"stop_reason":"tool_use","in_tokens":10,"out_tokens":5}}`,
    `{"seq":3,"protocol":"${P}.tool_result","tool_result":{"tool_use_id":"t1","result":{"tool_use_id":"t1","content":"out"}}}`,
    `{"seq":4,"protocol":"${P}.user","user":{"message":{"role":"user","content":[{"text":{"text":"more"}}]}}}`,
    `{"seq":5,"protocol":"${P}.terminal","terminal":{"reason":"suspended"}}`,
  ];

  it('unknown fields in records, payloads and blocks are read past, and re-encoding drops them', () => {
    lines.forEach((line, i) => {
      const record = decodeRecord(line);
      expect(encodeRecord(record), `line ${i + 1}`).toBe(rewritten[i]);
      // Nothing unknown travels on in memory either.
      expect(record, `line ${i + 1}`).toEqual(decodeRecord(rewritten[i]!));
    });
  });

  it('the raw values are cut from where they sit, not from unknown fields that spell the same keys', () => {
    const record = decodeRecord(lines[1]!) as Assistant;
    const [, use, provider] = record.assistant.message.content as unknown as [unknown, { tool_use: { input: RawJson } }, { provider: { raw: RawJson } }];
    expect(use.tool_use.input.text).toBe('{"cmd":"ls","n":1.0}');
    expect(provider.provider.raw.text).toBe('{"type":"server_tool_use","input":{"q":12345678901234567890}}');
  });

  it('and so are keys spelled with escapes, even beside an unknown field that spells the key plainly', () => {
    const line = `{"seq":2,"protocol":"${P}.assistant","assistant":{"iteration":0,"message":{"role":"assistant","content":[{"tool_use":{"id":"t1","name":"sh","\\u0069nput":{"n":1.0}}}]},"in_tokens":1,"out_tokens":1}}`;
    expect(encodeRecord(decodeRecord(line))).toBe(line.replace('\\u0069nput', 'input'));
    const decoy = line.replace('"name":"sh",', '"name":"sh","caller":{"input":"wrong"},');
    expect(encodeRecord(decodeRecord(decoy))).toBe(line.replace('\\u0069nput', 'input'));
  });

  it('a journal with unknown fields at every level folds as its rewritten self', () => {
    expect(stateToJson(foldLines(lines))).toBe(stateToJson(foldLines(rewritten)));
  });

  it('an unknown terminal reason is accepted, is the status, and does not refuse a resume', () => {
    const ended = `{"seq":5,"protocol":"${P}.terminal","terminal":{"reason":"handed_off","message":"to a person"}}`;
    expect(encodeRecord(decodeRecord(ended))).toBe(ended);
    const state = foldLines([...rewritten.slice(0, 4), ended]);
    expect(state.terminal).toEqual({ reason: 'handed_off', message: 'to a person' });
    expect(state.status).toBe('handed_off');
    expect(() => resumeAs(state)).not.toThrow();
  });
});

describe('lone surrogates', () => {
  it('are written as U+FFFD in every string, as raw UTF-8', () => {
    const line = encodeRecord({ seq: 4, terminal: { reason: 'error', message: 'a\ud800b\udc00c\ud83e\udd9c' } });
    expect(line).toBe(`{"seq":4,"protocol":"${P}.terminal","terminal":{"reason":"error","message":"a\ufffdb\ufffdc\ud83e\udd9c"}}`);
    expect(Buffer.from(line, 'utf8').includes(Buffer.from([0xef, 0xbf, 0xbd]))).toBe(true);
    const result = encodeRecord({ seq: 3, tool_result: { tool_use_id: 't\udfff', result: { tool_use_id: 't\udfff', content: '\ud800' } } });
    expect(result).toBe(`{"seq":3,"protocol":"${P}.tool_result","tool_result":{"tool_use_id":"t\ufffd","result":{"tool_use_id":"t\ufffd","content":"\ufffd"}}}`);
  });

  it('a lone surrogate an older writer escaped is read, and written back as U+FFFD', () => {
    const escaped = `{"seq":4,"protocol":"${P}.terminal","terminal":{"reason":"error","message":"x\\ud800y"}}`;
    expect(encodeRecord(decodeRecord(escaped))).toBe(`{"seq":4,"protocol":"${P}.terminal","terminal":{"reason":"error","message":"x\ufffdy"}}`);
  });

  it('in raw JSON a lone surrogate character becomes U+FFFD, and an escaped one is carried as written', () => {
    expect(RawJson.fromValidText('{"s":"a\ud800"}').text).toBe('{"s":"a\ufffd"}');
    expect(RawJson.fromText('{"s":"a\\ud800"}').text).toBe('{"s":"a\\ud800"}');
  });
});

describe('the fold of an empty prompt', () => {
  it('opens no message (the API refuses empty text blocks; the reference opens one with an empty text block)', () => {
    const state = foldLines([META_LINE.replace('"prompt":"p"', '"prompt":""')]);
    expect(state.prompt).toBe('');
    expect(state.messages).toEqual([]);
  });
});
