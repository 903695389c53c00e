/** Prices: agent.yaml's over the table's, a call priced on its own, context windows from the table. */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { calcPrice, findProvider } from '@pydantic/genai-prices';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OVERRIDE_SOURCE, loadPriceBook, usdText } from '../../src/agent/prices.js';
import { addCall, noSpend } from '../../src/agent/spend.js';
import { tempDir } from '../helpers/tmp.js';

describe('the price book', () => {
  it("prices a model the table knows, per call, its tiers applied to the call past them", async () => {
    const book = await loadPriceBook();
    const prices = book.prices('anthropic', 'claude-sonnet-4-5')!;
    expect(prices.source).toMatch(/^@pydantic\/genai-prices \d+\.\d+\.\d+ \(claude-sonnet-4-5\)$/);
    expect(prices.callUsd({ input: 100_000, cacheRead: 0, cacheWrite: 0, output: 10_000 })).toBeCloseTo(0.3 + 0.15, 9);
    // Two calls of 150,000 input tokens each are billed at the base price; one of 300,000 at the tier's.
    const small = prices.callUsd({ input: 150_000, cacheRead: 0, cacheWrite: 0, output: 0 });
    const large = prices.callUsd({ input: 300_000, cacheRead: 0, cacheWrite: 0, output: 0 });
    expect(2 * small).toBeCloseTo(0.9, 9);
    expect(large).toBeGreaterThan(2 * small);
  });

  it("prices every call of every model of the table's providers as the table does, its tiers, request fees and hours included", async () => {
    const book = await loadPriceBook();
    const models = ['anthropic', 'openai', 'deepseek', 'google', 'groq'].flatMap((id) => findProvider({ providerId: id })!.models.map((m) => [id, m.id] as const));
    const tokens = fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 2000 }), fc.integer({ min: 0, max: 400_000 }));
    fc.assert(
      fc.property(fc.constantFrom(...models), tokens, tokens, tokens, tokens, ([provider, model], input, cacheRead, cacheWrite, output) => {
        const prices = book.prices(provider, model);
        const t = { input, cacheRead, cacheWrite, output };
        const table = calcPrice(
          { input_tokens: input + cacheRead + cacheWrite, output_tokens: output, ...(cacheRead > 0 ? { cache_read_tokens: cacheRead } : {}), ...(cacheWrite > 0 ? { cache_write_tokens: cacheWrite } : {}) },
          model,
          { providerId: provider },
        );
        expect(prices === null).toBe(table === null);
        if (prices !== null) expect(Math.abs(prices.callUsd(t) - table!.total_price)).toBeLessThanOrEqual(1e-12 + 1e-9 * table!.total_price);
      }),
      { numRuns: 3000 },
    );
  });

  it("knows context windows, and says nothing of a model it does not know", async () => {
    const book = await loadPriceBook();
    expect(book.contextWindow('anthropic', 'claude-sonnet-4-5')).toBe(200_000);
    expect(book.contextWindow('openai', 'gpt-4o')).toBe(128_000);
    expect(book.contextWindow('openai', 'my-local-model')).toBeUndefined();
    expect(book.prices('openai', 'my-local-model')).toBeNull();
    expect(book.prices('script', 'script')).toBeNull();
  });

  it("keeps the windows the table gave in its window file, and answers from it only while the table's file is the one it names", async () => {
    const memo = join(tempDir(), 'context-windows.json');
    const first = await loadPriceBook({ windowMemo: memo, baseUrl: 'http://127.0.0.1:9/' });
    expect(first.contextWindow('anthropic', 'claude-sonnet-4-5')).toBe(200_000);
    expect(first.contextWindow('anthropic', 'my-local-model')).toBeUndefined();
    const kept = JSON.parse(readFileSync(memo, 'utf8')) as { table: string; windows: Record<string, number | null> };
    expect(kept.table).toMatch(/genai-prices.*index\.cjs \d+ \d+ [\d.]+$/);
    expect(Object.values(kept.windows).sort()).toEqual([200_000, null]);

    // A later book answers from the file: a window the file alone holds shows it was read, not the table.
    const key = JSON.stringify(['anthropic', 'claude-sonnet-4-5', 'http://127.0.0.1:9/']);
    writeFileSync(memo, JSON.stringify({ table: kept.table, windows: { ...kept.windows, [key]: 123_456 } }));
    expect((await loadPriceBook({ windowMemo: memo, baseUrl: 'http://127.0.0.1:9/' })).contextWindow('anthropic', 'claude-sonnet-4-5')).toBe(123_456);
    // Another base URL is another key: asked of the table, and kept beside the others.
    expect((await loadPriceBook({ windowMemo: memo })).contextWindow('anthropic', 'claude-sonnet-4-5')).toBe(200_000);
    expect(Object.keys((JSON.parse(readFileSync(memo, 'utf8')) as typeof kept).windows)).toHaveLength(3);

    // Kept for another table's file (or not a window at all): the table answers, and the file is made again for it.
    writeFileSync(memo, JSON.stringify({ table: `${kept.table}0`, windows: { [key]: 123_456 } }));
    expect((await loadPriceBook({ windowMemo: memo, baseUrl: 'http://127.0.0.1:9/' })).contextWindow('anthropic', 'claude-sonnet-4-5')).toBe(200_000);
    expect(JSON.parse(readFileSync(memo, 'utf8'))).toEqual({ table: kept.table, windows: { [key]: 200_000 } });
    writeFileSync(memo, JSON.stringify({ table: kept.table, windows: { [key]: 'a lot' } }));
    expect((await loadPriceBook({ windowMemo: memo, baseUrl: 'http://127.0.0.1:9/' })).contextWindow('anthropic', 'claude-sonnet-4-5')).toBe(200_000);
    writeFileSync(memo, 'not json');
    expect((await loadPriceBook({ windowMemo: memo, baseUrl: 'http://127.0.0.1:9/' })).contextWindow('anthropic', 'claude-sonnet-4-5')).toBe(200_000);

    // A book without the table keeps nothing: only agent.yaml's prices, and no window.
    const none = join(tempDir(), 'context-windows.json');
    expect((await loadPriceBook({ table: false, windowMemo: none })).contextWindow('anthropic', 'claude-sonnet-4-5')).toBeUndefined();
    expect(() => readFileSync(none)).toThrow();
  });

  it('takes a model agent.yaml prices over the table, a cache price left out at the input price', async () => {
    const book = await loadPriceBook({ overrides: { 'gpt-4o': { input: 2, output: 8, cache_write: 3 } } });
    const prices = book.prices('openai', 'gpt-4o')!;
    expect(prices.source).toBe(OVERRIDE_SOURCE);
    expect(prices.callUsd({ input: 1e6, cacheRead: 1e6, cacheWrite: 1e6, output: 1e6 })).toBeCloseTo(2 + 2 + 3 + 8, 9);
  });

  it('reads no table when told not to: only the overrides price', async () => {
    const book = await loadPriceBook({ table: false, overrides: { m: { input: 1, output: 1 } } });
    expect(book.prices('anthropic', 'claude-sonnet-4-5')).toBeNull();
    expect(book.prices('anthropic', 'm')?.source).toBe(OVERRIDE_SOURCE);
  });
});

describe('a sum of calls', () => {
  it("counts the calls without a price apart, naming their models, and the Messages API's cache apart from its input", async () => {
    const book = await loadPriceBook({ table: false, overrides: { m: { input: 1, output: 2, cache_read: 0.5 } } });
    const spend = noSpend();
    addCall(spend, book, 'anthropic', 'm', { in_tokens: 1e6, out_tokens: 1e6, cache_read_tokens: 1e6 });
    addCall(spend, book, 'openai', 'm', { in_tokens: 1e6, out_tokens: 0, cache_read_tokens: 1e6 });
    addCall(spend, book, 'openai', 'other', { in_tokens: 5, out_tokens: 5 });
    // Messages: 1M uncached + 1M cached; Chat Completions: its 1M prompt tokens are the cached ones.
    expect(spend.usd).toBeCloseTo(1 + 2 + 0.5 + 0.5, 9);
    expect(spend).toMatchObject({ calls: 2, unpriced: 1, unpricedModels: ['other'], sources: [OVERRIDE_SOURCE] });
  });

  it('reads as dollars with four places under a dollar', () => {
    expect(usdText(0)).toBe('$0.00');
    expect(usdText(0.045)).toBe('$0.0450');
    expect(usdText(12.345)).toBe('$12.35');
    expect(usdText(1234.5)).toBe('$1,235');
  });
});
