/** What an assistant record's usage counts, per provider, and the fold's last request size from it. */
import { describe, expect, it } from 'vitest';
import { fold, requestInputTokens, tokenParts } from '../../src/index.js';
import { assistant, at, meta } from '../helpers/records.js';

describe('usage', () => {
  it("counts the Messages API's cache apart from its input, and Chat Completions' inside it", () => {
    const usage = { in_tokens: 100, out_tokens: 7, cache_read_tokens: 40, cache_create_tokens: 10 };
    expect(tokenParts('anthropic', usage)).toEqual({ input: 100, cacheRead: 40, cacheWrite: 10, output: 7 });
    expect(requestInputTokens('anthropic', usage)).toBe(150);
    expect(tokenParts('openai', usage)).toEqual({ input: 50, cacheRead: 40, cacheWrite: 10, output: 7 });
    expect(requestInputTokens('openai', usage)).toBe(100);
  });

  it("folds the last request's input, cached part included, from the last assistant record", () => {
    const first = assistant(0) as unknown as { assistant: Record<string, unknown> };
    const second = assistant(1) as unknown as { assistant: Record<string, unknown> };
    const records = [
      at(1, { meta: meta('r') }),
      at(2, { assistant: { ...first.assistant, in_tokens: 10, out_tokens: 1 } } as never),
      at(3, { assistant: { ...second.assistant, in_tokens: 30, out_tokens: 1, cache_read_tokens: 500 } } as never),
    ];
    expect(fold(records.slice(0, 1)).last_input_tokens).toBe(0);
    expect(fold(records.slice(0, 2)).last_input_tokens).toBe(10);
    expect(fold(records).last_input_tokens).toBe(530);
  });
});
