import { describe, expect, it } from 'vitest';
import { encodeRecord, recordSchema, validateRecord } from '../../src/index.js';
import { PAYLOAD_KINDS } from '../../src/core/index.js';
import { assistant, completed, meta, toolResult } from '../helpers/records.js';

describe('record schemas', () => {
  it('ship one JSON Schema 2020-12 document per record kind plus common definitions', () => {
    for (const kind of [...PAYLOAD_KINDS, 'common'] as const) {
      expect(recordSchema(kind).$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    }
  });

  it('accept what the encoder writes', () => {
    const records = [{ seq: 1, meta: meta('s1', { interactive: true }) }, { seq: 2, ...assistant(0, ['a']) }, { seq: 3, ...toolResult('a') }, { seq: 4, ...completed }];
    for (const r of records) expect(validateRecord(encodeRecord(r as never))).toEqual({ valid: true });
  });

  it('accept fields they do not know and a terminal reason this build does not write, as readers do', () => {
    const line = encodeRecord({ seq: 4, ...completed });
    const newer = [
      line.replace('completed', 'handed_off'),
      line.replace('"terminal":{', '"terminal":{"extra":1,'),
      line.replace('{"seq":4,', '{"seq":4,"trace":{"id":"x"},'),
      encodeRecord({ seq: 1, meta: meta('s1') }).replace('"max_iterations":', '"temperature":0.5,"max_iterations":'),
    ];
    for (const l of newer) expect(validateRecord(l), l).toEqual({ valid: true });
  });

  it('refuse records that break the envelope or a payload', () => {
    const line = encodeRecord({ seq: 4, ...completed });
    const bad = [
      line.replace('"seq":4', '"seq":0'),
      line.replace('"reason":"completed"', '"reason":7'),
      line.replace('"terminal":{"reason":"completed"}', '"terminal":{"message":"no reason"}'),
      line.replace('}}', '},"user":{"message":{"role":"user","content":null}}}'),
      line.replace('.terminal"', '.user"'),
      '{"seq":1}',
      'not json',
    ];
    for (const l of bad) expect(validateRecord(l).valid, l).toBe(false);
    const m = encodeRecord({ seq: 1, meta: meta('s1') });
    expect(validateRecord(m.replace('"version":3', '"version":4')).valid).toBe(false);
    expect(validateRecord(m.replace(/"system_hash":"[0-9a-f]+"/, '"system_hash":"XYZ"')).valid).toBe(false);
  });
});
