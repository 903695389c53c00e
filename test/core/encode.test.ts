import { describe, expect, it } from 'vitest';
import { PROTOCOL_IDS, RawJson, decodeRecord, encodeRecord, type JournalRecord } from '../../src/index.js';
import { codeOf } from '../helpers/errors.js';
import { metaLine } from '../helpers/records.js';

describe('encodeRecord', () => {
  it('writes keys in format order with no whitespace and omits empty optional fields', () => {
    const rec: JournalRecord = {
      seq: 2,
      assistant: {
        iteration: 0,
        message: { role: 'assistant', content: [{ text: { text: 'hi' } }, { thinking: { signature: 'c2ln' } }] },
        in_tokens: 3,
        out_tokens: 4,
      },
    };
    expect(encodeRecord(rec)).toBe(
      `{"seq":2,"protocol":"${PROTOCOL_IDS.assistant}","assistant":{"iteration":0,"message":{"role":"assistant","content":[{"text":{"text":"hi"}},{"thinking":{"signature":"c2ln"}}]},"in_tokens":3,"out_tokens":4}}`,
    );
  });

  it('escapes <, >, &, U+2028 and U+2029 in strings and in raw JSON, lowercase hex', () => {
    const line = encodeRecord({
      seq: 2,
      assistant: {
        iteration: 0,
        message: {
          role: 'assistant',
          content: [
            { text: { text: 'a<b>&\u2028\u2029\n\t"\\' } },
            { tool_use: { id: 't', name: 'n', input: RawJson.fromText('{ "s" : "<x>" ,\n "n": 1.0 }') } },
          ],
        },
        in_tokens: 0,
        out_tokens: 0,
      },
    });
    expect(line).toContain('"text":"a\\u003cb\\u003e\\u0026\\u2028\\u2029\\n\\t\\"\\\\"');
    expect(line).toContain('"input":{"s":"\\u003cx\\u003e","n":1.0}');
    expect(line).not.toMatch(/[<>&\u2028\u2029]/);
  });

  it('refuses to write a meta of another format version', () => {
    const rec = decodeRecord(metaLine()) as { seq: number; meta: { version: number } };
    expect(codeOf(() => encodeRecord({ ...rec, meta: { ...rec.meta, version: 4 } } as JournalRecord))).toBe('version');
    expect(codeOf(() => encodeRecord({ ...rec, meta: { ...rec.meta, version: 2 } } as JournalRecord))).toBe('version');
  });
});
