/**
 * What runs spent, in USD: every model call priced on its own (prices.ts),
 * from the usage its assistant record keeps, and summed. A run's spend is its
 * own calls' (a fork's copied records are its origin's: lineage.ts ownFrom)
 * and, when it was compacted, its summary call's (kept in its compaction note,
 * run-notes.ts); a conversation's is the sum over every run of its lineage.
 * Nothing is stored: spend is derived from the records and notes each time.
 */
import { tokenParts, type JournalRecord, type UsageCounts } from '../core/index.js';
import { listLineage, ownFrom } from '../store/lineage.js';
import { COMPACTION_NOTE, parseCompaction } from '../store/run-notes.js';
import type { RunInfo, Store } from '../store/store.js';
import { usdText, type PriceBook } from './prices.js';

/** A sum of model calls' costs. */
export interface Spend {
  usd: number;
  /** The calls priced. */
  calls: number;
  /** The calls no price was known for: their tokens are not in `usd`. */
  unpriced: number;
  /** The models no price was known for, each once. */
  unpricedModels: string[];
  /** Where the prices came from, each once, in the order first used. */
  sources: string[];
}

/**
 * A spend's USD in words: `unknown` when calls were made and none could be
 * priced (no price is known for the model), never the `$0.00` its sum is.
 */
export function spentUsdText(spend: Pick<Spend, 'usd' | 'calls' | 'unpriced'>): string {
  return spend.calls === 0 && spend.unpriced > 0 ? 'unknown' : usdText(spend.usd);
}

/** Nothing spent: no call, no USD. */
export function noSpend(): Spend {
  return { usd: 0, calls: 0, unpriced: 0, unpricedModels: [], sources: [] };
}

/** Sums of spend, in place into `into`. */
export function addSpend(into: Spend, more: Spend): Spend {
  into.usd += more.usd;
  into.calls += more.calls;
  into.unpriced += more.unpriced;
  for (const m of more.unpricedModels) if (!into.unpricedModels.includes(m)) into.unpricedModels.push(m);
  for (const s of more.sources) if (!into.sources.includes(s)) into.sources.push(s);
  return into;
}

/** Adds one model call to `spend`, priced from `book` (null: nothing is priced). */
export function addCall(spend: Spend, book: PriceBook | null, provider: string, model: string, usage: UsageCounts): void {
  const prices = book?.prices(provider, model) ?? null;
  if (prices === null) {
    spend.unpriced++;
    if (!spend.unpricedModels.includes(model)) spend.unpricedModels.push(model);
    return;
  }
  spend.usd += prices.callUsd(tokenParts(provider, usage));
  spend.calls++;
  if (!spend.sources.includes(prices.source)) spend.sources.push(prices.source);
}

/** A stored line after the meta that may hold an assistant record: the lines worth decoding to price or size a run's model calls. */
export const mayBeAssistant = (line: string): boolean => line.includes('"assistant":');

/** A model call as a price is put on it: the provider and model it was sent to, and its usage. */
export interface CallUsage {
  provider: string;
  model: string;
  usage: UsageCounts;
  /** Its record's seq, when it has one (a summary call has none). */
  seq?: number;
}

/**
 * A run's model calls as its records go by (a load's, so that pricing them
 * reads nothing again), each with the provider and model its meta record names.
 */
export class CallTally {
  readonly calls: CallUsage[] = [];
  private provider = '';
  private model = '';

  add(record: JournalRecord): void {
    if ('meta' in record) {
      this.provider = record.meta.fingerprint.provider;
      this.model = record.meta.fingerprint.model;
    } else if ('assistant' in record) {
      const { in_tokens, out_tokens, cache_read_tokens, cache_create_tokens } = record.assistant;
      const usage: UsageCounts = { in_tokens, out_tokens, ...(cache_read_tokens !== undefined ? { cache_read_tokens } : {}), ...(cache_create_tokens !== undefined ? { cache_create_tokens } : {}) };
      this.calls.push({ provider: this.provider, model: this.model, usage, seq: record.seq });
    }
  }

  /** The provider and model of the run's meta record (empty before it). */
  get made(): { provider: string; model: string } {
    return { provider: this.provider, model: this.model };
  }
}

/** Adds each call to `spend`, priced from `book`. */
export function addCalls(spend: Spend, book: PriceBook | null, calls: readonly CallUsage[]): Spend {
  for (const c of calls) addCall(spend, book, c.provider, c.model, c.usage);
  return spend;
}

/**
 * Run `id`'s own model calls (from seq `from` on, after what a fork copied)
 * and the summary call of its compaction, if it was compacted. `records`: the
 * run's records when they are at hand (a loaded run's, or its calls as a load
 * tallied them), so they are not read again; else they are streamed from the store.
 */
export async function runCalls(store: Store, id: string, from = 1, records?: readonly JournalRecord[] | CallTally): Promise<CallUsage[]> {
  let tally: CallTally;
  if (records instanceof CallTally) tally = records;
  else {
    tally = new CallTally();
    if (records !== undefined) for (const record of records) tally.add(record);
    else for await (const { record } of store.records(id, { select: mayBeAssistant })) tally.add(record);
  }
  const calls = tally.calls.filter((c) => c.seq === undefined || c.seq >= from);
  const compaction = parseCompaction(await store.getNote(id, COMPACTION_NOTE).catch(() => null));
  if (compaction !== null) calls.push({ ...tally.made, usage: compaction.usage });
  return calls;
}

/**
 * What run `id` spent: its own model calls (from seq `from` on, after what a
 * fork copied) and the summary call of its compaction, if it was compacted.
 * `records`: the run's records when they are at hand (a loaded run's), so they
 * are not read again; else they are streamed from the store.
 */
export async function runSpend(store: Store, id: string, book: PriceBook | null, from = 1, records?: readonly JournalRecord[]): Promise<Spend> {
  return addCalls(noSpend(), book, await runCalls(store, id, from, records));
}

/** The spend of a listed run: its own records only (ownFrom); `records` as runSpend's. */
export function listedRunSpend(store: Store, run: Pick<RunInfo, 'runId' | 'forkedFrom'>, book: PriceBook | null, records?: readonly JournalRecord[]): Promise<Spend> {
  return runSpend(store, run.runId, book, ownFrom(run), records);
}

/**
 * Each listed run's own spend and their sum: what the runs of a conversation
 * spent. A run that cannot be read has none (null) and adds nothing; `strict`
 * makes a failed read of a run listed as readable an error instead, for a cap
 * that must not count less than was spent.
 */
export async function runsSpend(
  store: Store,
  runs: readonly Pick<RunInfo, 'runId' | 'forkedFrom' | 'status'>[],
  book: PriceBook | null,
  strict = false,
): Promise<{ each: (Spend | null)[]; total: Spend }> {
  const total = noSpend();
  const each: (Spend | null)[] = [];
  for (const run of runs) {
    const read = run.status === 'unreadable' ? null : listedRunSpend(store, run, book);
    const spend = read === null ? null : strict ? await read : await read.catch(() => null);
    if (spend !== null) addSpend(total, spend);
    each.push(spend);
  }
  return { each, total };
}

/** What a conversation spent: every run of run `id`'s lineage (those in `except` left out), and how many runs that is. */
export async function lineageSpend(store: Store, id: string, book: PriceBook | null, except: ReadonlySet<string> = new Set()): Promise<{ spend: Spend; runs: number }> {
  const runs = await listLineage(store, id);
  const { total } = await runsSpend(store, runs.filter((run) => !except.has(run.runId)), book, true);
  return { spend: total, runs: runs.length };
}
