import { describe, expect, it } from 'vitest';
import { canonicalJson, computeFingerprint, fingerprintDiff, nonJsonPart, sha256Hex, systemHash, toolsHash, type FingerprintInput } from '../../src/core/index.js';

const base: FingerprintInput = {
  provider: 'anthropic',
  model: 'a',
  systemPrompt: 'You are careful.',
  tools: [{ name: 'ls', description: 'list', input_schema: { type: 'object', properties: { p: { type: 'string' } } } }],
  thinkingMode: 'off',
  maxTokens: 1,
  maxIterations: 1,
};

describe('fingerprint', () => {
  it('hashes the system prompt as lowercase SHA-256 hex', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(systemHash('abc')).toBe(sha256Hex('abc'));
  });

  it('hashes the tool set independently of declaration order and schema key order', () => {
    const a = { name: 'a', description: 'A', input_schema: { type: 'object', required: ['x'], properties: { x: {} } } };
    const b = { name: 'b', description: 'B', input_schema: { properties: { y: {} }, type: 'object' } };
    const bReordered = { input_schema: { type: 'object', properties: { y: {} } }, description: 'B', name: 'b' };
    expect(toolsHash([a, b])).toBe(toolsHash([bReordered, a]));
    expect(toolsHash([a, b])).not.toBe(toolsHash([a]));
    expect(toolsHash([a, { ...b, description: 'changed' }])).not.toBe(toolsHash([a, b]));
    // array order inside a schema is meaningful and is kept
    const c = { ...a, input_schema: { type: 'object', enum: [1, 2] } };
    const d = { ...a, input_schema: { type: 'object', enum: [2, 1] } };
    expect(toolsHash([c])).not.toBe(toolsHash([d]));
  });

  it('hashes every JSON value a schema can hold, null included, and refuses what is not JSON', () => {
    const nullable = { type: ['string', 'null'], enum: ['a', null], default: null, examples: [[null, true, 1.5, -0, 'x']] };
    const a = { name: 'a', description: 'A', input_schema: { type: 'object', properties: { x: nullable } } };
    expect(toolsHash([a])).toMatch(/^[0-9a-f]{64}$/);
    expect(toolsHash([a])).not.toBe(toolsHash([{ ...a, input_schema: { type: 'object', properties: { x: { ...nullable, default: 'a' } } } }]));
    // As JSON.stringify sends it: an undefined member is absent, an undefined element null.
    expect(toolsHash([{ ...a, input_schema: { type: 'object', properties: { x: nullable }, title: undefined } }])).toBe(toolsHash([a]));
    expect(canonicalJson([undefined, { b: null, a: [] }])).toBe('[null,{"a":[],"b":null}]');
    expect(() => toolsHash([{ ...a, input_schema: { maximum: Infinity } }])).toThrow('cannot serialize Infinity as JSON (at [0].input_schema.maximum)');
    expect(() => canonicalJson({ data: Buffer.from('hi') })).toThrow('cannot serialize a Buffer as JSON (at .data)');
    expect(nonJsonPart({ a: [1, { b: NaN }] })).toEqual({ path: '.a[1].b', what: 'NaN' });
    expect(nonJsonPart({ a: [1, null, 'x', { b: false }] })).toBeNull();
  });

  it('lists each forceable difference in the documented wording, journal value first', () => {
    const recorded = computeFingerprint(base);
    const current = computeFingerprint({
      ...base,
      provider: 'openai',
      model: 'b',
      systemPrompt: 'You are bold.',
      tools: [],
      thinkingMode: 'summarized',
      maxTokens: 2,
      maxIterations: 2,
    });
    expect(fingerprintDiff(recorded, current)).toEqual([
      'model: a -> b',
      'system prompt: changed',
      'tool set: changed',
      'thinking: off -> summarized',
      'max_tokens: 1 -> 2',
      'max_iterations: 1 -> 2',
    ]);
  });

  it('leaves the provider out of equal and diff', () => {
    const recorded = computeFingerprint(base);
    const otherProvider = computeFingerprint({ ...base, provider: 'openai' });
    expect(fingerprintDiff(recorded, otherProvider)).toEqual([]);
    expect(fingerprintDiff(recorded, otherProvider)).toEqual([]);
    expect(fingerprintDiff(recorded, computeFingerprint({ ...base, maxTokens: 9 }))).not.toEqual([]);
  });

  it('never carries the system prompt text', () => {
    const secret = 'the launch codes are 0000';
    const fp = computeFingerprint({ ...base, systemPrompt: secret });
    expect(JSON.stringify(fp)).not.toContain(secret);
  });
});
