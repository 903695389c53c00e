import { describe, expect, it } from 'vitest';
import { CallTally } from '../../src/agent/spend.js';
import { assistant, at, meta, toolResult } from '../helpers/records.js';

describe('the model calls a load tallies', () => {
  it("holds each assistant record's usage, with its meta's provider and model, cache counts only where the record has them", () => {
    const tally = new CallTally();
    const cached = assistant(1);
    Object.assign((cached as { assistant: object }).assistant, { cache_read_tokens: 7, cache_create_tokens: 3 });
    for (const record of [at(1, { meta: meta('r') }), at(2, assistant(0, ['a'])), at(3, toolResult('a')), at(4, cached)]) tally.add(record);
    expect(tally.made).toEqual({ provider: 'script', model: 'test-model' });
    expect(tally.calls).toStrictEqual([
      { provider: 'script', model: 'test-model', usage: { in_tokens: 10, out_tokens: 5 }, seq: 2, iteration: 0 },
      { provider: 'script', model: 'test-model', usage: { in_tokens: 10, out_tokens: 5, cache_read_tokens: 7, cache_create_tokens: 3 }, seq: 4, iteration: 1 },
    ]);
  });
});
