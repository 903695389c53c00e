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
 *
 * The table (some 0.5 MB of code and data) loads when a price or a context
 * window is first asked for, not with the book: a run that prices nothing
 * never loads it. Its prices are worked out for each call, which takes the
 * table a tenth of a millisecond: a run of thousands of calls took a second
 * to price. Below a model's tiers a call's price is the same sum of its token
 * counts times fixed rates, so the rates are read off the table once, by
 * pricing a call of each kind of token, checked against the table's price of
 * a call of every kind, and used for each call the tiers do not reach (every
 * other call is priced by the table). A resume asks for the model's context
 * window before its first request (to weigh a compaction), and loading the
 * table for it was a tenth of that wait: what the table gave is kept in a file
 * under the table file's identity (windowMemo), so a later process takes it
 * from there until the table changes.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { groupedDigits, type TokenParts } from '../core/index.js';

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
  /**
   * A file that keeps the context windows the table gave, under the identity
   * of the table's file (path, inode, size, modification time): a later book
   * answers a model's window from it without loading the table (a resume
   * weighs a compaction before its first request), and loads the table for a
   * model it does not hold, or when the table's file is not the one it names.
   * A file that cannot be read or written only costs that load.
   */
  windowMemo?: string;
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
type PriceCalculation = NonNullable<ReturnType<GenaiPrices['calcPrice']>>;

const requireCjs = createRequire(import.meta.url);
let loadedTable: GenaiPrices | undefined;

/** The price table, loaded on first use (its CommonJS build: require() is synchronous). */
function priceTable(): GenaiPrices {
  return (loadedTable ??= requireCjs('@pydantic/genai-prices') as GenaiPrices);
}

/** The table's package version, for the source a price names. */
function tableVersion(): string {
  try {
    const entry = requireCjs.resolve('@pydantic/genai-prices');
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

/** The table's usage for one call of logbook's: its input_tokens is the whole input, its cached parts counted in it. */
function tableUsage(t: TokenParts): Parameters<GenaiPrices['calcPrice']>[0] {
  return {
    input_tokens: t.input + t.cacheRead + t.cacheWrite,
    output_tokens: t.output,
    ...(t.cacheRead > 0 ? { cache_read_tokens: t.cacheRead } : {}),
    ...(t.cacheWrite > 0 ? { cache_write_tokens: t.cacheWrite } : {}),
  };
}

const NO_TOKENS: TokenParts = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };
const KINDS = ['input', 'cacheRead', 'cacheWrite', 'output'] as const;

/**
 * A model's price of a call as a fixed part plus a rate for each kind of
 * token, read off the table by pricing one call of each kind; null where the
 * table's price is not that for every call below `limit` input tokens: prices
 * by time of day, or rates that do not add up to the table's price of a call
 * of every kind. `limit`: the input past which the model's tiers begin.
 */
function fixedRates(price: (t: TokenParts) => number, found: PriceCalculation): { limit: number; usd: (t: TokenParts) => number } | null {
  const conditions = Array.isArray(found.model.prices) ? found.model.prices : [];
  if (conditions.some((c) => c.constraint?.type === 'time_of_date')) return null;
  const tiers = Object.values(found.model_price).flatMap((p) => (typeof p === 'object' ? p.tiers.map((t) => t.start) : []));
  const limit = Math.min(Infinity, ...tiers);
  const probe = Math.min(1_000_000, Math.floor(limit / 4));
  if (!(probe >= 1000)) return null;
  const base = price(NO_TOKENS);
  const rates = KINDS.map((kind) => (price({ ...NO_TOKENS, [kind]: probe }) - base) / probe);
  const usd = (t: TokenParts): number => base + t.input * rates[0]! + t.cacheRead * rates[1]! + t.cacheWrite * rates[2]! + t.output * rates[3]!;
  const mixed = { input: 977, cacheRead: probe - 1, cacheWrite: 311, output: 4093 };
  const expected = price(mixed);
  return Math.abs(usd(mixed) - expected) <= 1e-9 * Math.max(1e-6, expected) ? { limit, usd } : null;
}

/** The table's file as it is now (its path, inode, size and modification time), or null when it cannot be found. */
function tableIdentity(): string | null {
  try {
    const entry = requireCjs.resolve('@pydantic/genai-prices');
    const s = statSync(entry);
    return `${entry} ${s.ino} ${s.size} ${s.mtimeMs}`;
  } catch {
    return null;
  }
}

const isWindow = (v: unknown): v is number | null => v === null || (Number.isSafeInteger(v) && (v as number) > 0);

/**
 * The windows the table gave (null: it knows no window for the model), kept in
 * a file under the table's identity (PriceBookOptions.windowMemo); what the
 * file holds under another identity is never read, and is replaced.
 */
class WindowMemo {
  private windows: Record<string, number | null> | undefined;
  private identity: string | null | undefined;

  constructor(private readonly file: string) {}

  /** The window kept for `key`: a number, null (the table knows none), or undefined when none is kept. */
  get(key: string): number | null | undefined {
    const windows = this.read();
    return windows !== null && Object.hasOwn(windows, key) ? windows[key] : undefined;
  }

  /** Keeps what the table gave for `key`; the file is replaced whole, and not at all when the table cannot be named. */
  set(key: string, window: number | null): void {
    const windows = this.read();
    if (windows === null) return;
    windows[key] = window;
    const temp = `${this.file}.${process.pid}.tmp`;
    try {
      writeFileSync(temp, `${JSON.stringify({ table: this.identity, windows })}\n`, { mode: 0o600 });
      renameSync(temp, this.file);
    } catch {
      // Not kept: the next process loads the table, as this one did.
      try {
        rmSync(temp, { force: true });
      } catch {
        // a temporary file left where it could not be written: nothing reads it
      }
    }
  }

  /** The windows the file keeps for the table as it is now ({} when none), or null when the table cannot be named. */
  private read(): Record<string, number | null> | null {
    this.identity ??= tableIdentity();
    if (this.identity === null) return null;
    if (this.windows !== undefined) return this.windows;
    this.windows = Object.create(null) as Record<string, number | null>;
    try {
      const kept = JSON.parse(readFileSync(this.file, 'utf8')) as { table?: unknown; windows?: unknown };
      if (kept.table === this.identity && typeof kept.windows === 'object' && kept.windows !== null) {
        for (const [key, window] of Object.entries(kept.windows)) if (isWindow(window)) this.windows[key] = window;
      }
    } catch {
      // No file yet, or not one this build wrote: nothing is kept.
    }
    return this.windows;
  }
}

class Book implements PriceBook {
  private readonly cache = new Map<string, ModelPrices | null>();
  private version: string | undefined;
  private readonly memo: WindowMemo | undefined;

  constructor(
    private readonly overrides: Readonly<Record<string, PriceOverride>>,
    private readonly withTable: boolean,
    private readonly baseUrl: string | undefined,
    windowMemo: string | undefined,
  ) {
    this.memo = windowMemo !== undefined && withTable ? new WindowMemo(windowMemo) : undefined;
  }

  /** The table, loaded on first use; null when the book was made without it. */
  private get table(): GenaiPrices | null {
    return this.withTable ? priceTable() : null;
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
    if (provider === 'script' || this.memo === undefined) return this.lookUp(provider, model)?.model.context_window;
    const key = JSON.stringify([provider, model, this.baseUrl ?? null]);
    const kept = this.memo.get(key);
    if (kept !== undefined) return kept ?? undefined;
    const window = this.lookUp(provider, model)?.model.context_window;
    this.memo.set(key, window ?? null);
    return window;
  }

  private lookUp(provider: string, model: string): ReturnType<GenaiPrices['calcPrice']> {
    if (provider === 'script') return null; // never priced: asked before the table, which is then never loaded for it
    if (this.table === null) return null;
    return this.table.calcPrice({ input_tokens: 0, output_tokens: 0 }, model, { providerId: tableProvider(this.table, provider, this.baseUrl) });
  }

  private fromTable(provider: string, model: string): ModelPrices | null {
    const found = this.lookUp(provider, model);
    const table = found === null ? null : this.table;
    if (table === null || found === null) return null;
    const { provider: tableProvider } = found;
    const price = (t: TokenParts): number => table.calcPrice(tableUsage(t), model, { provider: tableProvider })?.total_price ?? 0;
    const fixed = fixedRates(price, found);
    this.version ??= tableVersion();
    return {
      source: `@pydantic/genai-prices${this.version} (${found.model.id})`,
      callUsd: fixed === null ? price : (t) => (t.input + t.cacheRead + t.cacheWrite <= fixed.limit ? fixed.usd(t) : price(t)),
    };
  }
}

/** A price book over agent.yaml's prices and, unless `table: false`, the price table (loaded when first asked). */
export async function loadPriceBook(options: PriceBookOptions = {}): Promise<PriceBook> {
  return new Book(options.overrides ?? {}, options.table !== false, options.baseUrl, options.windowMemo);
}

/** USD as people read it: to four places under a dollar (a cap of $0.05 is told from $0.0450), two under $100, whole dollars past. */
export function usdText(usd: number): string {
  if (usd === 0) return '$0.00';
  if (usd < 1) return `$${usd.toFixed(4)}`;
  if (usd < 100) return `$${usd.toFixed(2)}`;
  return `$${groupedDigits(Math.round(usd))}`;
}
