/**
 * logbook's schemas and bodies against the reference's field lists (from its Go
 * message types): the schemas allow exactly those fields and require exactly
 * those the reference always writes; the reference's own bodies, and those
 * logbook makes, pass the field-list check; and the check catches what it is for.
 */
import { describe, expect, it } from 'vitest';
import { MESSAGE_KINDS, a2aSchema, encodeMessage, protocolOf, stampReply, stampRequest } from '../../src/a2a/index.js';
import { RawJson } from '../../src/core/index.js';
import { REFERENCE_FIELDS, fieldListProblems, fixtureBodies } from '../helpers/a2a.js';

type Schema = { properties?: Record<string, unknown>; required?: string[]; $defs?: Record<string, Schema> };

describe('the schemas against the reference field lists', () => {
  const common = a2aSchema('common') as Schema;
  const header = common.$defs!.header!;

  it.each(MESSAGE_KINDS.map((k) => [k]))('%s: exactly its fields, required where the reference requires them', (kind) => {
    const schema = a2aSchema(kind) as Schema;
    const fields = [...REFERENCE_FIELDS.header!, ...REFERENCE_FIELDS[kind]!];
    const allowed = new Set([...Object.keys(header.properties!), ...Object.keys(schema.properties!)]);
    expect([...allowed].sort()).toEqual(fields.map((f) => f.slice(0, -1)).sort());
    expect(schema.properties!.protocol).toEqual({ const: protocolOf(kind) });
  });

  it('the header and the nested objects', () => {
    expect(header.required!.sort()).toEqual(['conversation', 'id', 'protocol', 'request', 'sender', 'sequence', 'time']);
    for (const [def, list] of [['identity', 'identity'], ['usage', 'usage'], ['budget', 'budget'], ['exec', 'exec'], ['tool_descriptor', 'tool_descriptor']] as const) {
      expect(Object.keys(common.$defs![def]!.properties!).sort()).toEqual(REFERENCE_FIELDS[list]!.map((f) => f.slice(0, -1)).sort());
    }
    for (const type of ['thinking', 'text', 'tool_call', 'tool_result', 'agent_call', 'status']) {
      const block = common.$defs![`${type}_block`]!;
      expect(Object.keys(block.properties!).sort()).toEqual([...REFERENCE_FIELDS[`block.${type}`]!.map((f) => f.slice(0, -1)), 'type'].sort());
    }
  });
});

describe('bodies against the reference field lists', () => {
  it("the reference's own bodies pass", () => {
    for (const { body } of fixtureBodies()) expect(fieldListProblems(body)).toEqual([]);
  });

  it('the bodies logbook makes pass', () => {
    const request = stampRequest('tool.request', { name: 'echo', input: RawJson.fromText('{"text":"hi"}') }, 'caller', 'probe');
    const bodies = [
      request,
      stampReply('tool.reply', { is_error: false, output: 'hi', exec: { command: 'echo hi', exit_code: 0, truncated: false } }, request, 'probe'),
      stampReply('discovery.reply', { name: 'probe', version: '0.1.0', protocols: ['io.choria.fisk-ai.v1'], tools: [{ name: 'echo', description: 'x', input_schema: RawJson.fromText('{"type":"object"}') }] }, request, 'probe'),
      stampReply('event', { block: { type: 'tool_result', call_id: 'c', exec: { exit_code: 2 } } }, request, 'probe'),
      stampRequest('request', { prompt: 'p', budget: { max_tokens: 10 }, stream: false }, 'caller'),
    ].map(encodeMessage);
    for (const body of bodies) expect(fieldListProblems(body), body).toEqual([]);
  });

  it('the check catches an unknown field, a zero the reference omits, and keys out of order', () => {
    const [, card, toolRequest] = fixtureBodies().map((b) => b.body);
    expect(fieldListProblems(toolRequest!.replace('"name":"echo"', '"name":"echo","extra":1'))).toEqual(['tool.request: extra is not a field of the reference\'s']);
    expect(fieldListProblems(toolRequest!.replace('"recipient":{"name":"probe"}', '"recipient":{"name":"probe"},"must_understand":false'))).toEqual(['tool.request: must_understand is false, which the reference omits']);
    expect(fieldListProblems(card!.replace('"name":"probe","version":"probe-0"', '"version":"probe-0","name":"probe"'))[0]).toMatch(/not in the reference's order/);
    expect(fieldListProblems(fixtureBodies()[8]!.body.replace('{"iteration":1,"phase":"calling-llm","type":"status"}', '{"phase":"calling-llm","iteration":1,"type":"status"}'))[0]).toMatch(/order/);
  });
});
