/**
 * The wire as the reference writes and reads it: Go's bytes (key order, zero
 * fields omitted, a block's keys sorted, HTML-safe escapes, trimmed nanosecond
 * times), strict reading (an unknown field, an oversized body, another protocol
 * refused; must_understand honoured), KSUID ids and stamping.
 */
import { describe, expect, it } from 'vitest';
import {
  MAX_MESSAGE_BYTES,
  decodeAnyMessage,
  decodeMessage,
  encodeBlock,
  encodeMessage,
  formatWireTime,
  mintedAt,
  newMessageId,
  normalizeWireTime,
  protocolOf,
  stampReply,
  stampRequest,
  type Header,
  type ToolReplyMessage,
} from '../../src/a2a/index.js';
import { RawJson, isLogbookError } from '../../src/core/index.js';
import { fixtureBodies } from '../helpers/a2a.js';

/** A KSUID's 20 bytes, decoded from its base62 text. */
function ksuidBytes(id: string): Uint8Array {
  const digits = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let n = 0n;
  for (const c of id) n = n * 62n + BigInt(digits.indexOf(c));
  return Uint8Array.from({ length: 20 }, (_, i) => Number((n >> BigInt(8 * (19 - i))) & 0xffn));
}

const header = (kind: Parameters<typeof protocolOf>[0]): Header =>
  ({
    protocol: protocolOf(kind),
    id: 'm1',
    request: 'r1',
    conversation: 'c1',
    sequence: 0,
    time: '2026-12-01T18:15:40.5Z',
    sender: { name: 'a' },
  }) as Header;

const refusal = (fn: () => unknown): string => {
  try {
    fn();
  } catch (err) {
    expect(isLogbookError(err, 'invalid_message')).toBe(true);
    return (err as Error).message;
  }
  throw new Error('not refused');
};

describe("Go's bytes", () => {
  it('omits zero fields and false flags, and keeps the always-written ones', () => {
    const reply: ToolReplyMessage = { ...(header('tool.reply') as ToolReplyMessage), is_error: false, output: '', exec: { command: '', exit_code: 0, truncated: false } };
    expect(encodeMessage({ ...reply, must_understand: false })).toBe(
      '{"protocol":"io.choria.fisk-ai.v1.tool.reply","id":"m1","request":"r1","conversation":"c1","sequence":0,"time":"2026-12-01T18:15:40.5Z","sender":{"name":"a"},"exec":{}}',
    );
    expect(encodeMessage({ ...header('ack'), protocol: protocolOf('ack'), accepted: false })).toMatch(/"sender":\{"name":"a"\},"accepted":false\}$/);
    expect(encodeMessage({ ...header('request'), protocol: protocolOf('request'), prompt: '', tool_hints: [], budget: {}, stream: false })).toMatch(
      /"prompt":"","budget":\{\},"stream":false\}$/,
    );
    expect(encodeMessage({ ...header('error'), protocol: protocolOf('error'), error: '' })).toMatch(/"error":""\}$/);
    expect(encodeMessage({ ...header('result'), protocol: protocolOf('result'), stop_reason: 'end_turn', usage: {} })).toMatch(/"stop_reason":"end_turn","usage":\{\}\}$/);
  });

  it('writes the header in its order, parent, recipient and must_understand where they belong', () => {
    const h = { ...header('cancel'), parent: 'p', recipient: { name: 'b', instance: 'i1' }, must_understand: true, sequence: 7 };
    expect(encodeMessage({ ...h, protocol: protocolOf('cancel'), reason: 'stop' })).toBe(
      '{"protocol":"io.choria.fisk-ai.v1.cancel","id":"m1","request":"r1","conversation":"c1","parent":"p","sequence":7,"time":"2026-12-01T18:15:40.5Z","sender":{"name":"a"},"recipient":{"name":"b","instance":"i1"},"must_understand":true,"reason":"stop"}',
    );
  });

  it("sorts a block's keys and keeps a non-zero exit code, negative ones too", () => {
    expect(encodeBlock({ type: 'status', iteration: 1, phase: 'calling-llm' })).toBe('{"iteration":1,"phase":"calling-llm","type":"status"}');
    expect(encodeBlock({ type: 'status' })).toBe('{"type":"status"}');
    expect(encodeBlock({ type: 'tool_result', call_id: 'c', is_error: true, output: 'x', exec: { command: 'ls', exit_code: -1 } })).toBe(
      '{"call_id":"c","exec":{"command":"ls","exit_code":-1},"is_error":true,"output":"x","type":"tool_result"}',
    );
    expect(encodeBlock({ type: 'tool_call', id: 'i', name: 'n', input: RawJson.fromText('{ "b": 1.0, "a": [1e3] }') })).toBe(
      '{"id":"i","input":{"b":1.0,"a":[1e3]},"name":"n","type":"tool_call"}',
    );
    expect(encodeBlock({ type: 'thinking', text: '', signature: 'sig' })).toBe('{"signature":"sig","text":"","type":"thinking"}');
    expect(encodeBlock({ type: 'agent_call', id: 'i', name: 'n', task: 't' })).toBe('{"id":"i","name":"n","task":"t","type":"agent_call"}');
  });

  it('escapes <, >, &, U+2028 and U+2029, in strings and in raw JSON alike', () => {
    const text = 'a<b>&\u2028\u2029é';
    const message = { ...header('tool.request'), protocol: protocolOf('tool.request'), name: text, input: RawJson.fromText(`{"t": ${JSON.stringify(text)}}`) } as const;
    const body = encodeMessage(message);
    expect(body).toContain('"name":"a\\u003cb\\u003e\\u0026\\u2028\\u2029é"');
    expect(body).toContain('"input":{"t":"a\\u003cb\\u003e\\u0026\\u2028\\u2029é"}');
    expect(encodeMessage(decodeMessage(body, 'tool.request'))).toBe(body);
  });
});

describe('times', () => {
  it('are UTC with nanoseconds, trailing zeros trimmed', () => {
    expect(formatWireTime(1_796_148_940_676_295_213n)).toBe('2026-12-01T18:15:40.676295213Z');
    expect(formatWireTime(1_796_148_940_500_000_000n)).toBe('2026-12-01T18:15:40.5Z');
    expect(formatWireTime(1_796_148_940_000_000_000n)).toBe('2026-12-01T18:15:40Z');
    expect(formatWireTime()).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/);
    expect(Math.abs(Date.parse(formatWireTime()) - Date.now())).toBeLessThan(50); // the wall clock's time
  });

  it('read back as Go writes them: the fraction trimmed, a zero offset as Z', () => {
    expect(normalizeWireTime('2026-12-01T18:15:40.500Z')).toBe('2026-12-01T18:15:40.5Z');
    expect(normalizeWireTime('2026-12-01T18:15:40.000+00:00')).toBe('2026-12-01T18:15:40Z');
    expect(normalizeWireTime('2026-12-01T18:15:40.1234567891+02:00')).toBe('2026-12-01T18:15:40.123456789+02:00');
    for (const bad of ['2026-12-01 18:15:40Z', '2026-02-30T00:00:00Z', '2026-12-01T24:00:00Z', '2026-12-01T18:15:40', 'yesterday']) {
      expect(normalizeWireTime(bad)).toBeNull();
    }
  });
});

describe('reading a body', () => {
  const [discovery, card, toolRequest, toolReply] = fixtureBodies().map((b) => b.body);
  const withField = (body: string, path: string[], extra: Record<string, unknown>): string => {
    const value = JSON.parse(body) as Record<string, any>;
    let at = value;
    for (const p of path) at = at[p];
    Object.assign(at, extra);
    return JSON.stringify(value);
  };

  it('refuses one unknown field anywhere, naming it', () => {
    expect(refusal(() => decodeMessage(withField(toolRequest!, [], { extra: 1 }), 'tool.request'))).toMatch(/field the protocol does not define: "extra"/);
    expect(refusal(() => decodeMessage(withField(toolReply!, ['exec'], { pid: 1 }), 'tool.reply'))).toMatch(/at \/exec: "pid"/);
    expect(refusal(() => decodeMessage(withField(discovery!, ['sender'], { host: 'x' }), 'discovery.request'))).toMatch(/"host"/);
    const tools = JSON.parse(card!) as { tools: Record<string, unknown>[] };
    tools.tools[0]!.tags = ['x'];
    expect(refusal(() => decodeMessage(JSON.stringify(tools), 'discovery.reply'))).toMatch(/\/tools\/0: "tags"/);
    const event = fixtureBodies()[8]!.body;
    expect(refusal(() => decodeMessage(withField(event, ['block'], { extra: true }), 'event'))).toMatch(/\/block: "extra"/);
  });

  it('refuses a body over 768 KiB before reading it', () => {
    const big = `{"protocol":"io.choria.fisk-ai.v1.tool.request", "pad": "${'x'.repeat(MAX_MESSAGE_BYTES)}"`; // not even JSON
    expect(refusal(() => decodeMessage(Buffer.from(big), 'tool.request'))).toMatch(/bytes, over the limit of 786432/);
    const exact = `${toolRequest!.slice(0, -1)}${' '.repeat(MAX_MESSAGE_BYTES - Buffer.byteLength(toolRequest!))}}`;
    expect(decodeMessage(exact, 'tool.request').name).toBe('echo');
  });

  it('refuses another protocol than the one its path carries', () => {
    expect(refusal(() => decodeMessage(discovery!, 'tool.request'))).toMatch(/protocol "io.choria.fisk-ai.v1.discovery.request", where io.choria.fisk-ai.v1.tool.request is expected/);
    expect(refusal(() => decodeMessage(toolRequest!.replace('v1.tool.request', 'v2.tool.request'), 'tool.request'))).toMatch(/v2/);
  });

  it('passes over a protocol it does not know unless it must be understood', () => {
    const unknown = toolRequest!.replace('v1.tool.request', 'v1.tool.progress');
    expect(decodeAnyMessage(unknown)).toEqual({ understood: false, protocol: 'io.choria.fisk-ai.v1.tool.progress' });
    const must = unknown.replace('"recipient"', '"must_understand":true,"recipient"');
    expect(refusal(() => decodeAnyMessage(must))).toMatch(/does not know, and it must be understood/);
    expect(decodeAnyMessage(toolRequest!.replace('"recipient"', '"must_understand":true,"recipient"'))).toMatchObject({ name: 'echo', must_understand: true });
  });

  it('refuses what the schemas or Go refuse: a bad identity, a non-object input, a bad time, not JSON', () => {
    expect(refusal(() => decodeMessage(toolRequest!.replace('"probe-caller"', '"probe caller"'), 'tool.request'))).toMatch(/sender\/name/);
    expect(refusal(() => decodeMessage(toolRequest!.replace('{"text":"hi"}', '[1]'), 'tool.request'))).toMatch(/\/input/);
    expect(refusal(() => decodeMessage(toolRequest!.replace(/"time":"[^"]+"/, '"time":"2026-13-01T00:00:00Z"'), 'tool.request'))).toMatch(/RFC 3339/);
    expect(refusal(() => decodeMessage('{"protocol":', 'tool.request'))).toMatch(/not JSON/);
    expect(refusal(() => decodeMessage('[]', 'tool.request'))).toMatch(/not a JSON object/);
  });

  it('keeps a raw input as it was written', () => {
    const body = toolRequest!.replace('{"text":"hi"}', '{"n":12345678901234567890,"x":1.50}');
    const message = decodeMessage(body, 'tool.request');
    expect(message.input!.text).toBe('{"n":12345678901234567890,"x":1.50}');
    expect(encodeMessage(message)).toBe(body);
  });
});

describe('ids and stamping', () => {
  it('mints KSUIDs the way the reference does', () => {
    // The example of the KSUID specification: timestamp 107608047, 2017-10-10T04:00:47Z.
    expect(mintedAt('0ujtsYcgvSTl8PAuAdqWYSMnLOv')?.toISOString()).toBe('2017-10-10T04:00:47.000Z');
    expect(mintedAt('000000000000000000000000000')?.toISOString()).toBe('2014-05-13T16:53:20.000Z');
    for (const { body } of fixtureBodies()) {
      const { id, time } = JSON.parse(body) as { id: string; time: string };
      expect(Math.abs(mintedAt(id)!.getTime() - Date.parse(time))).toBeLessThan(1000);
    }
    const id = newMessageId();
    expect(id).toMatch(/^[0-9A-Za-z]{27}$/);
    expect(Math.abs(mintedAt(id)!.getTime() - Date.now())).toBeLessThan(2000);
    expect(newMessageId()).not.toBe(id);
    expect(mintedAt('not-a-ksuid')).toBeNull();
  });

  it('mints ids whose random parts are all their own, past many draws of random bytes', () => {
    const ids = Array.from({ length: 2000 }, () => newMessageId());
    expect(new Set(ids).size).toBe(ids.length);
    // The 16 random bytes of each (after the 4 of the time): none repeated, none all zero.
    const payloads = ids.map((id) => Buffer.from(ksuidBytes(id).subarray(4)).toString('hex'));
    expect(new Set(payloads).size).toBe(ids.length);
    expect(payloads).not.toContain('0'.repeat(32));
    for (const id of ids.slice(-3)) expect(Math.abs(mintedAt(id)!.getTime() - Date.now())).toBeLessThan(2000);
  });

  it('stamps a request with one fresh id and a reply with the request copied', () => {
    const request = stampRequest('tool.request', { name: 'echo' }, 'caller', 'probe');
    expect(request).toMatchObject({ protocol: 'io.choria.fisk-ai.v1.tool.request', sequence: 0, sender: { name: 'caller' }, recipient: { name: 'probe' } });
    expect(request.request).toBe(request.id);
    expect(request.conversation).toBe(request.id);
    const reply = stampReply('tool.reply', { output: 'hi' }, request, 'probe');
    expect(reply).toMatchObject({ request: request.id, conversation: request.id, sequence: 0, sender: { name: 'probe' }, recipient: { name: 'caller' }, output: 'hi' });
    expect(reply.id).not.toBe(request.id);
    expect(stampRequest('discovery.request', {}, 'caller')).not.toHaveProperty('recipient');
    expect(encodeMessage(decodeMessage(encodeMessage(reply), 'tool.reply'))).toBe(encodeMessage(reply));
  });
});
