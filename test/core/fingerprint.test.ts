import { describe, expect, it } from 'vitest';
import {
  computeFingerprint,
  fingerprintDiff,
  sha256Hex,
  systemHash,
  toolsHash,
  type FingerprintInput,
} from '../../src/index.js';

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
