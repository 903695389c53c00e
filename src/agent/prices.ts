/**
 * What a model call costs, and how long a model's context window is: from the
 * prices agent.yaml gives for a model (`prices:`, USD per million tokens),
 * else from the table of @pydantic/genai-prices, which ships its data and is
 * read offline (it is never asked to fetch newer prices). Every price shown or
 * capped names where it came from.
 *
 * A call is priced on its own, as providers bill it: a table price with tiers
 * (more per token past 200,000 input tokens) applies to the calls past the
 * tier, never to a run's sums.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { readFileSync } from 'node:fs';
import type { TokenParts } from '../core/index.js';

/** A model's prices as agent.yaml gives them, USD per million tokens; a cache price left out is the input price. */
export interface PriceOverride {
  input: number;
  output: number;
  cache_read?: number;
  cache_write?: number;
}

/** What one model's calls cost. */
export interface ModelPrices {
  /** Where the prices come from, for people: `prices in agent.yaml`, `@pydantic/genai-prices 0.1.8 (claude-sonnet-4-5)`. */
  readonly source: string;
  /** USD of one call that used these tokens. */
  callUsd(tokens: TokenParts): number;
}

/** Prices and context windows by provider and model: agent.yaml's `prices:` first, then the price table. */
export interface PriceBook {
  /** The prices of a provider's model, or null when neither agent.yaml nor the table knows it. */
  prices(provider: string, model: string): ModelPrices | null;
  /** The model's context window in tokens, as the table knows it; undefined when it does not. */
  contextWindow(provider: string, model: string): number | undefined;
}

/** What loadPriceBook reads. */
export interface PriceBookOptions {
  /** agent.yaml's `prices:`, by model name. */
  overrides?: Readonly<Record<string, PriceOverride>>;
  /** The API base URL in use, which tells a compatible provider (DeepSeek's, Groq's) by its address. */
  baseUrl?: string;
  /** Whether to read the price table (about 0.8 MB of data, loaded once); without it only the overrides price. */
  table?: boolean;
}

/** Where the overrides' prices are said to come from. */
export const OVERRIDE_SOURCE = 'prices in agent.yaml';

const PER_MILLION = 1_000_000;

function overridePrices(p: PriceOverride): ModelPrices {
  const cacheRead = p.cache_read ?? p.input;
  const cacheWrite = p.cache_write ?? p.input;
  return {
    source: OVERRIDE_SOURCE,
    callUsd: (t) => (t.input * p.input + t.output * p.output + t.cacheRead * cacheRead + t.cacheWrite * cacheWrite) / PER_MILLION,
  };
}

type GenaiPrices = typeof import('@pydantic/genai-prices');

/** The table's package version, for the source a price names. */
function tableVersion(): string {
  try {
    const entry = createRequire(import.meta.url).resolve('@pydantic/genai-prices');
    const pkg = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as { version?: unknown };
    return typeof pkg.version === 'string' ? ` ${pkg.version}` : '';
  } catch {
    return '';
  }
}

/** The table's provider id for logbook's provider: a compatible API is told by its address, else it is the provider itself. */
function tableProvider(table: GenaiPrices, provider: string, baseUrl: string | undefined): string {
  if (baseUrl !== undefined) {
    const found = table.findProvider({ providerApiUrl: baseUrl });
    if (found !== undefined) return found.id;
  }
  return provider;
}

class Book implements PriceBook {
  private readonly cache = new Map<string, ModelPrices | null>();
  private readonly version: string;

  constructor(
    private readonly overrides: Readonly<Record<string, PriceOverride>>,
    private readonly table: GenaiPrices | null,
    private readonly baseUrl: string | undefined,
  ) {
    this.version = table === null ? '' : tableVersion();
  }

  prices(provider: string, model: string): ModelPrices | null {
    const key = `${provider}\u0000${model}`;
    let found = this.cache.get(key);
    if (found === undefined) {
      const override = Object.hasOwn(this.overrides, model) ? this.overrides[model] : undefined;
      found = override !== undefined ? overridePrices(override) : this.fromTable(provider, model);
      this.cache.set(key, found);
    }
    return found;
  }

  contextWindow(provider: string, model: string): number | undefined {
    return this.lookUp(provider, model)?.model.context_window;
  }

  private lookUp(provider: string, model: string): ReturnType<GenaiPrices['calcPrice']> {
    if (this.table === null || provider === 'script') return null;
    return this.table.calcPrice({ input_tokens: 0, output_tokens: 0 }, model, { providerId: tableProvider(this.table, provider, this.baseUrl) });
  }

  private fromTable(provider: string, model: string): ModelPrices | null {
    const table = this.table;
    const found = this.lookUp(provider, model);
    if (table === null || found === null) return null;
    const providerId = found.provider.id;
    return {
      source: `@pydantic/genai-prices${this.version} (${found.model.id})`,
      callUsd: (t) =>
        table.calcPrice(
          {
            // The table's input_tokens is the whole input, its cached parts counted in it.
            input_tokens: t.input + t.cacheRead + t.cacheWrite,
            output_tokens: t.output,
            ...(t.cacheRead > 0 ? { cache_read_tokens: t.cacheRead } : {}),
            ...(t.cacheWrite > 0 ? { cache_write_tokens: t.cacheWrite } : {}),
          },
          model,
          { providerId },
        )?.total_price ?? 0,
    };
  }
}

/** A price book over agent.yaml's prices and, unless `table: false`, the price table (loaded here, once). */
export async function loadPriceBook(options: PriceBookOptions = {}): Promise<PriceBook> {
  const table = options.table === false ? null : await import('@pydantic/genai-prices');
  return new Book(options.overrides ?? {}, table, options.baseUrl);
}

/** USD as people read it: to four places under a dollar (a cap of $0.05 is told from $0.0450), two under $100, whole dollars past. */
export function usdText(usd: number): string {
  if (usd === 0) return '$0.00';
  if (usd < 1) return `$${usd.toFixed(4)}`;
  if (usd < 100) return `$${usd.toFixed(2)}`;
  return `$${Math.round(usd).toLocaleString('en-US')}`;
}
