import { describe, expect, it } from 'vitest';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PROTOCOL_IDS, RawJson, decodeRecord, encodeRecord, type JournalRecord } from '../../src/index.js';
import { codeOf } from '../helpers/errors.js';
import { metaLine } from '../helpers/records.js';

describe('decodeRecord', () => {
  it('carries tool input and provider raw as the exact JSON text', () => {
    const input = '{"z":1,"a":1.0,"e":1e3,"big":12345678901234567890,"nested":{"input":[1,{"raw":"x"}]},"s":"\\"input\\":"}';
    const raw = '{"id":"srv","input":{"q":"\\u0041"}}';
    const line = `{"seq":2,"protocol":"${PROTOCOL_IDS.assistant}","assistant":{"iteration":0,"message":{"role":"assistant","content":[{"tool_use":{"id":"t1","name":"calc","input":${input}}},{"provider":{"kind":"server_tool_use","raw":${raw}}},{"tool_use":{"id":"t2","name":"n","input":"str"}}]},"in_tokens":1,"out_tokens":2}}`;
    const rec = decodeRecord(line) as Extract<JournalRecord, { assistant: unknown }>;
    const [a, b, c] = rec.assistant.message.content as unknown as [
      { tool_use: { input: RawJson } },
      { provider: { raw: RawJson } },
      { tool_use: { input: RawJson } },
    ];
    expect(a.tool_use.input.text).toBe(input);
    expect(b.provider.raw.text).toBe(raw);
    expect(c.tool_use.input.text).toBe('"str"');
    expect(encodeRecord(rec)).toBe(line);
  });

  it('accepts insignificant whitespace and writes it back canonical', () => {
    const line = `{ "seq" : 1 , "protocol":"${PROTOCOL_IDS.terminal}", "terminal": { "reason": "completed" } }`.replace('1 ,', '3 ,');
    expect(encodeRecord(decodeRecord(line))).toBe(`{"seq":3,"protocol":"${PROTOCOL_IDS.terminal}","terminal":{"reason":"completed"}}`);
  });

  it.each([
    ['no payload', `{"seq":2,"protocol":"${PROTOCOL_IDS.terminal}"}`],
    ['two payloads', `{"seq":2,"protocol":"${PROTOCOL_IDS.terminal}","terminal":{"reason":"completed"},"user":{"message":{"role":"user","content":[]}}}`],
    ['payload not matching protocol', `{"seq":2,"protocol":"${PROTOCOL_IDS.terminal}","user":{"message":{"role":"user","content":[]}}}`],
    ['unknown protocol', '{"seq":2,"protocol":"io.example.other","terminal":{"reason":"completed"}}'],
    ['seq as a string', `{"seq":"2","protocol":"${PROTOCOL_IDS.terminal}","terminal":{"reason":"completed"}}`],
    ['negative seq', `{"seq":-1,"protocol":"${PROTOCOL_IDS.terminal}","terminal":{"reason":"completed"}}`],
    ['fractional tokens', `{"seq":2,"protocol":"${PROTOCOL_IDS.assistant}","assistant":{"iteration":0,"message":{"role":"assistant","content":[]},"in_tokens":1.5,"out_tokens":1}}`],
    ['a terminal reason that is not a string', `{"seq":2,"protocol":"${PROTOCOL_IDS.terminal}","terminal":{"reason":1}}`],
    ['block with two kinds', `{"seq":2,"protocol":"${PROTOCOL_IDS.user}","user":{"message":{"role":"user","content":[{"text":{"text":"a"},"thinking":{}}]}}}`],
    ['a block of no kind this build knows', `{"seq":2,"protocol":"${PROTOCOL_IDS.user}","user":{"message":{"role":"user","content":[{"image":{}}]}}}`],
    ['content neither an array nor null', `{"seq":2,"protocol":"${PROTOCOL_IDS.user}","user":{"message":{"role":"user","content":{}}}}`],
    ['a signature that is not base64', `{"seq":2,"protocol":"${PROTOCOL_IDS.assistant}","assistant":{"iteration":0,"message":{"role":"assistant","content":[{"thinking":{"signature":"not base64!"}}]},"in_tokens":1,"out_tokens":1}}`],
    ['a signature without its padding', `{"seq":2,"protocol":"${PROTOCOL_IDS.assistant}","assistant":{"iteration":0,"message":{"role":"assistant","content":[{"thinking":{"signature":"c2lnLQ"}}]},"in_tokens":1,"out_tokens":1}}`],
    ['user payload with an assistant message', `{"seq":2,"protocol":"${PROTOCOL_IDS.user}","user":{"message":{"role":"assistant","content":[]}}}`],
    ['tool_use without input', `{"seq":2,"protocol":"${PROTOCOL_IDS.assistant}","assistant":{"iteration":0,"message":{"role":"assistant","content":[{"tool_use":{"id":"t","name":"n"}}]},"in_tokens":1,"out_tokens":1}}`],
    ['is_error not a boolean', `{"seq":2,"protocol":"${PROTOCOL_IDS.tool_result}","tool_result":{"tool_use_id":"t","result":{"tool_use_id":"t","content":"x","is_error":"yes"}}}`],
    ['not JSON', '{"seq":2,'],
    ['an array', '[1,2]'],
  ])('refuses %s as corrupt', (_name, line) => {
    expect(codeOf(() => decodeRecord(line))).toBe('corrupt');
  });

  it('drops optional fields present but empty, so the record re-encodes as the writer would', () => {
    const cases: [string, string][] = [
      [
        `{"seq":2,"protocol":"${PROTOCOL_IDS.assistant}","assistant":{"iteration":0,"message":{"role":"assistant","content":[{"thinking":{"text":"","signature":"c2ln"}}]},"stop_reason":"","in_tokens":1,"out_tokens":2}}`,
        `{"seq":2,"protocol":"${PROTOCOL_IDS.assistant}","assistant":{"iteration":0,"message":{"role":"assistant","content":[{"thinking":{"signature":"c2ln"}}]},"in_tokens":1,"out_tokens":2}}`,
      ],
      [
        `{"seq":3,"protocol":"${PROTOCOL_IDS.tool_result}","tool_result":{"tool_use_id":"t","result":{"tool_use_id":"t","content":"x","is_error":false},"remote":false}}`,
        `{"seq":3,"protocol":"${PROTOCOL_IDS.tool_result}","tool_result":{"tool_use_id":"t","result":{"tool_use_id":"t","content":"x"}}}`,
      ],
      [
        `{"seq":4,"protocol":"${PROTOCOL_IDS.user}","user":{"message":{"role":"user","content":[{"tool_result":{"tool_use_id":"t","content":"x","is_error":false}}]}}}`,
        `{"seq":4,"protocol":"${PROTOCOL_IDS.user}","user":{"message":{"role":"user","content":[{"tool_result":{"tool_use_id":"t","content":"x"}}]}}}`,
      ],
      [`{"seq":5,"protocol":"${PROTOCOL_IDS.terminal}","terminal":{"reason":"error","message":""}}`, `{"seq":5,"protocol":"${PROTOCOL_IDS.terminal}","terminal":{"reason":"error"}}`],
      [metaLine().replace('"prompt":"p"', '"prompt":"p","interactive":false'), metaLine()],
    ];
    for (const [line, canonical] of cases) {
      const rec = decodeRecord(line);
      expect(encodeRecord(rec)).toBe(canonical);
      expect(rec).toEqual(decodeRecord(canonical));
    }
  });

  it('takes raw values only from keys, not from strings that spell them', () => {
    const text = 'quote \\"input\\": and \\\\\\"raw\\": in prose';
    const line = `{"seq":2,"protocol":"${PROTOCOL_IDS.assistant}","assistant":{"iteration":0,"message":{"role":"assistant","content":[{"text":{"text":"${text}"}},{"tool_use":{"id":"input","name":"raw","input":{"raw" : {"input":1}}}},{"provider":{"kind":"k","raw": ["input"]}}]},"in_tokens":1,"out_tokens":2}}`;
    expect(() => JSON.parse(line)).not.toThrow();
    const rec = decodeRecord(line) as Extract<JournalRecord, { assistant: unknown }>;
    const [, use, provider] = rec.assistant.message.content as unknown as [unknown, { tool_use: { input: RawJson } }, { provider: { raw: RawJson } }];
    expect(use.tool_use.input.text).toBe('{"raw":{"input":1}}');
    expect(provider.provider.raw.text).toBe('["input"]');
  });

  it('refuses format versions 2 and 4 with code version', () => {
    expect(codeOf(() => decodeRecord(metaLine(2)))).toBe('version');
    expect(codeOf(() => decodeRecord(metaLine(4)))).toBe('version');
    expect(encodeRecord(decodeRecord(metaLine(3)))).toBe(metaLine(3));
  });
});

describe('what decodeRecord refuses', () => {
  const assistantLine = (content: string) => `{"seq":2,"protocol":"${PROTOCOL_IDS.assistant}","assistant":{"iteration":0,"message":{"role":"assistant","content":${content}},"in_tokens":1,"out_tokens":2}}`;
  const refusal = (line: string) => {
    try {
      decodeRecord(line);
    } catch (err) {
      return (err as Error).message;
    }
    return 'decoded';
  };

  it('names the block, its kind and the field it finds wrong', () => {
    const text = '{"text":{"text":"a"}}';
    expect(refusal(assistantLine(`[${text},{"text":{"text":1}}]`))).toBe('invalid record: assistant.message.content[1].text.text must be a string');
    expect(refusal(assistantLine(`[${text},${text},{"tool_use":{"id":"t","name":"n"}}]`))).toBe('invalid record: assistant.message.content[2].tool_use.input is missing');
    expect(refusal(assistantLine(`[{"tool_use":{"id":7,"name":"n","input":{}}}]`))).toBe('invalid record: assistant.message.content[0].tool_use.id must be a string');
    expect(refusal(assistantLine(`[${text},{"provider":{"kind":null,"raw":{}}}]`))).toBe('invalid record: assistant.message.content[1].provider.kind must be a string');
    expect(refusal(assistantLine(`[{"thinking":{"signature":"not base64!"}}]`))).toBe('invalid record: assistant.message.content[0].thinking.signature must be base64 (standard alphabet, padded)');
    expect(refusal(assistantLine(`[${text},7]`))).toBe('invalid record: assistant.message.content[1] must be an object');
    const user = `{"seq":2,"protocol":"${PROTOCOL_IDS.user}","user":{"message":{"role":"user","content":[${text},{"tool_result":{"tool_use_id":"t","content":false}}]}}}`;
    expect(refusal(user)).toBe('invalid record: user.message.content[1].tool_result.content must be a string');
    const result = `{"seq":3,"protocol":"${PROTOCOL_IDS.tool_result}","tool_result":{"tool_use_id":"t","result":{"tool_use_id":"t","content":"c","is_error":"yes"}}}`;
    expect(refusal(result)).toBe('invalid record: tool_result.result.is_error must be a boolean');
  });
});

describe('what a decoded record keeps', () => {
  it('keeps none of its line: a raw value is a string of its own, so a dropped line is collected', () => {
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    const heap = (): number => {
      collect();
      return process.memoryUsage().heapUsed;
    };
    // Lines of 256 KiB each (their prose), whose one raw value is a few bytes: 32 of them are 8 MiB of text.
    const prose = 'x'.repeat(256 * 1024);
    const line = (i: number): string =>
      encodeRecord({
        seq: i + 2,
        assistant: {
          iteration: i,
          message: {
            role: 'assistant',
            content: [{ text: { text: `${prose}${i}` } }, { tool_use: { id: `t${i}`, name: 'read', input: RawJson.fromValue({ path: `src/file-${i}.ts` }) } }],
          },
          in_tokens: 1,
          out_tokens: 1,
        },
      });
    const before = heap();
    const inputs: RawJson[] = [];
    for (let i = 0; i < 32; i++) {
      const record = decodeRecord(line(i));
      if (!('assistant' in record)) throw new Error('not an assistant record');
      const use = record.assistant.message.content[1]!;
      if (!('tool_use' in use)) throw new Error('not a tool_use block');
      inputs.push(use.tool_use.input);
    }
    const kept = heap() - before;
    expect(inputs.map((input) => input.text)).toContain('{"path":"src/file-31.ts"}');
    expect(kept).toBeLessThan(1024 * 1024);
  });
});
