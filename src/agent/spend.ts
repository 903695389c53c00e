/**
 * What runs spent, in USD: every model call priced on its own (prices.ts),
 * from the usage its assistant record keeps, and summed. A run's spend is its
 * own calls' (a fork's copied records are its origin's: lineage.ts ownFrom),
 * when it was compacted its summary call's (kept in its compaction note,
 * run-notes.ts), and the paid calls its journal does not hold (stopped,
 * failed, refused or cut by a crash: call-notes.ts); a conversation's is the
 * sum over every run of its lineage.
 * Nothing is stored: spend is derived from the records and notes each time.
 */
import { modelCallOf, tokenParts, type JournalRecord, type UsageCounts } from '../core/index.js';
import { listLineage, ownFrom } from '../store/lineage.js';
import { COMPACTION_NOTE, parseCompaction } from '../store/run-notes.js';
import type { LoadedState, RunInfo, Store } from '../store/store.js';
import { unheldCalls } from './call-notes.js';
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
  /** Of the calls counted, those the conversation does not hold (call-notes.ts). */
  unheld: UnheldSpend;
}

/** The paid calls a spend counts that no record holds: stopped, failed, refused, or cut by a crash. */
export interface UnheldSpend {
  /** Those whose usage is known (priced or not: they are in `calls` or `unpriced`). */
  calls: number;
  /** Their part of `usd`. */
  usd: number;
  /** Those whose cost is unknown (no usage was reported): in neither `calls` nor `usd`. */
  unknown: number;
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
  return { usd: 0, calls: 0, unpriced: 0, unpricedModels: [], sources: [], unheld: { calls: 0, usd: 0, unknown: 0 } };
}

/** Sums of spend, in place into `into`. */
export function addSpend(into: Spend, more: Spend): Spend {
  into.usd += more.usd;
  into.calls += more.calls;
  into.unpriced += more.unpriced;
  into.unheld.calls += more.unheld.calls;
  into.unheld.usd += more.unheld.usd;
  into.unheld.unknown += more.unheld.unknown;
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

/** Adds a paid call no record holds to `spend`: its usage priced as addCall does, or, when unknown (null), counted as such. */
export function addUnheldCall(spend: Spend, book: PriceBook | null, provider: string, model: string, usage: UsageCounts | null): void {
  if (usage === null) {
    spend.unheld.unknown++;
    return;
  }
  const before = spend.usd;
  addCall(spend, book, provider, model, usage);
  spend.unheld.calls++;
  spend.unheld.usd += spend.usd - before;
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
  /** Its record's iteration, when it has one. */
  iteration?: number;
  /** A paid call no record holds (call-notes.ts): `unknown` when its usage is not known (then `usage` counts nothing). */
  unheld?: 'known' | 'unknown';
}

/**
 * A run's model calls as its records go by (a load's, so that pricing them
 * reads nothing again), each with the provider and model its meta record names.
 */
export class CallTally {
  readonly calls: CallUsage[] = [];
  private provider = '';
  private model = '';

  /** Takes in `record`: its meta names the provider and model of the calls after it; an assistant record is a call. */
  add(record: JournalRecord): void {
    if ('meta' in record) {
      this.provider = record.meta.fingerprint.provider;
      this.model = record.meta.fingerprint.model;
    } else {
      const call = modelCallOf(record);
      if (call !== null) this.calls.push({ provider: this.provider, model: this.model, seq: call.seq, iteration: call.iteration, usage: call.usage });
    }
  }

  /** Takes in the calls a load gave (LoadedState.calls: read, or from the run's checkpoint), of the provider and model its meta names. */
  addLoaded(loaded: LoadedState): void {
    this.provider = loaded.state.fingerprint.provider;
    this.model = loaded.state.fingerprint.model;
    for (const { seq, iteration, usage } of loaded.calls ?? []) this.calls.push({ provider: this.provider, model: this.model, usage, seq, iteration });
  }

  /** The provider and model of the run's meta record (empty before it). */
  get made(): { provider: string; model: string } {
    return { provider: this.provider, model: this.model };
  }
}

/** Adds each call to `spend`, priced from `book`. */
export function addCalls(spend: Spend, book: PriceBook | null, calls: readonly CallUsage[]): Spend {
  for (const c of calls) {
    if (c.unheld === undefined) addCall(spend, book, c.provider, c.model, c.usage);
    else addUnheldCall(spend, book, c.provider, c.model, c.unheld === 'unknown' ? null : c.usage);
  }
  return spend;
}

/**
 * Run `id`'s own model calls (from seq `from` on, after what a fork copied)
 * and the summary call of its compaction, if it was compacted. `records`: the
 * run's records when they are at hand (a loaded run's, or its calls as a load
 * tallied them), so they are not read again; else they are streamed from the store.
 * `noteKeys`: the run's note keys as listed (Store.noteKeys), when they are.
 */
export async function runCalls(store: Store, id: string, from = 1, records?: readonly JournalRecord[] | CallTally, noteKeys?: readonly string[]): Promise<CallUsage[]> {
  let tally: CallTally;
  if (records instanceof CallTally) tally = records;
  else {
    tally = new CallTally();
    if (records !== undefined) for (const record of records) tally.add(record);
    else for await (const { record } of store.records(id, { select: mayBeAssistant })) tally.add(record);
  }
  // One pass over what may be a long run's every call, no array made per call.
  const calls: CallUsage[] = [];
  const iterations = new Set<number>();
  for (const c of tally.calls) {
    if (c.seq === undefined || c.seq >= from) calls.push(c);
    if (c.iteration !== undefined) iterations.add(c.iteration);
  }
  const compaction = parseCompaction(await store.getNote(id, COMPACTION_NOTE).catch(() => null));
  if (compaction !== null) calls.push({ ...tally.made, usage: compaction.usage });
  for (const call of await unheldCalls(store, id, { iterations, ...(compaction !== null ? { summaryAt: compaction.at } : {}) }, noteKeys)) {
    calls.push({ ...tally.made, usage: call.usage ?? { in_tokens: 0, out_tokens: 0 }, unheld: call.usage === null ? 'unknown' : 'known' });
  }
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

/** The spend of a listed run: its own records only (ownFrom); `records` as runCalls's. */
export async function listedRunSpend(store: Store, run: Pick<RunInfo, 'runId' | 'forkedFrom' | 'noteKeys'>, book: PriceBook | null, records?: readonly JournalRecord[] | CallTally): Promise<Spend> {
  return addCalls(noSpend(), book, await runCalls(store, run.runId, ownFrom(run), records, run.noteKeys));
}

/**
 * Each listed run's own spend and their sum: what the runs of a conversation
 * spent. A run that cannot be read has none (null) and adds nothing; `strict`
 * makes a failed read of a run listed as readable an error instead, for a cap
 * that must not count less than was spent. `tallied`: the calls of runs read
 * just before (a load's CallTally), by run id, so those are not read again.
 */
export async function runsSpend(
  store: Store,
  runs: readonly Pick<RunInfo, 'runId' | 'forkedFrom' | 'status' | 'noteKeys'>[],
  book: PriceBook | null,
  strict = false,
  tallied: ReadonlyMap<string, CallTally> = new Map(),
): Promise<{ each: (Spend | null)[]; total: Spend }> {
  const total = noSpend();
  const each: (Spend | null)[] = [];
  for (const run of runs) {
    const read = run.status === 'unreadable' ? null : listedRunSpend(store, run, book, tallied.get(run.runId));
    const spend = read === null ? null : strict ? await read : await read.catch(() => null);
    if (spend !== null) addSpend(total, spend);
    each.push(spend);
  }
  return { each, total };
}

/** What a conversation spent: every run of run `id`'s lineage (those in `except` left out), and how many runs that is. */
export function lineageSpend(store: Store, id: string, book: PriceBook | null, except: ReadonlySet<string> = new Set()): Promise<{ spend: Spend; runs: number }> {
  return lineageSpendTallied(store, id, book, except, new Map());
}

/** lineageSpend, with the calls of runs read just before (`tallied`, as runsSpend's). */
export async function lineageSpendTallied(
  store: Store,
  id: string,
  book: PriceBook | null,
  except: ReadonlySet<string>,
  tallied: ReadonlyMap<string, CallTally>,
  /** The lineage's runs as listLineage gives them, when the caller listed them. */
  listed: Promise<RunInfo[]> = listLineage(store, id),
): Promise<{ spend: Spend; runs: number }> {
  const runs = await listed;
  const { total } = await runsSpend(store, runs.filter((run) => !except.has(run.runId)), book, true, tallied);
  return { spend: total, runs: runs.length };
}
