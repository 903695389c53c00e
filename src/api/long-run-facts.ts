/**
 * What `session show`, `session ls --json` and the exports say of a run
 * beside its records: what it spent (its own model calls, priced, and the
 * summary call of its compaction), where a compaction cut it or the run it
 * continues, and how many tokens that saved. All derived from the records and
 * the notes beside them (agent/spend.ts, agent/compaction.ts).
 */
import { compactionOf, firstRequestInput } from '../agent/compaction.js';
import { loadPriceBook, usdText, type PriceBook } from '../agent/prices.js';
import { baseUrlVariable } from '../agent/provider.js';
import { listedRunSpend, type CallTally, type Spend } from '../agent/spend.js';
import type { LogbookConfig } from '../config/config.js';
import { groupedDigits, requestInputTokens } from '../core/index.js';
import { sanitizeLine } from '../render/sanitize.js';
import type { ForkOrigin, LoadedRun, Store } from '../store/store.js';

/** The price book of the config at hand (its prices: and base URL), over the price table. */
export function pricesAtHand(config: LogbookConfig | undefined, env: Readonly<Record<string, string | undefined>>): Promise<PriceBook> {
  const baseUrl = config?.base_url ?? (config === undefined ? undefined : config.provider === 'script' ? undefined : env[baseUrlVariable(config.provider)]);
  return loadPriceBook({ overrides: config?.prices ?? {}, ...(baseUrl !== undefined ? { baseUrl } : {}) });
}

/** A compaction as shown: where it cut, and the conversation's size before (the summary call's input) and after (the continuation's first request's, once made). */
export interface CompactionFacts {
  /** The compacted run, and the continuation. */
  from: string;
  into: string;
  at: number;
  before: number;
  after: number | null;
  /** A chat compacted at its prompt: the continuation waits for the next typed turn (compaction.ts awaitsTypedTurn). */
  input_first?: boolean;
}

export interface RunFacts {
  /** The run's own spend. */
  spend: Spend;
  /** Its compaction, when it was compacted. */
  compacted?: CompactionFacts;
  /** The compaction it continues, when it is a continuation. */
  continues?: CompactionFacts;
}

/** The compaction of run `from` into its continuation, as its note says; null without one. */
async function compactionFacts(store: Store, from: string, provider: string): Promise<CompactionFacts | null> {
  const note = await compactionOf(store, from);
  if (note === null) return null;
  const after = await firstRequestInput(store, note.into).catch(() => null);
  return { from, into: note.into, at: note.at, before: requestInputTokens(provider, note.usage), after, ...(note.input_first === true ? { input_first: true } : {}) };
}

/**
 * What run `id` spent and the compactions it took part in; `loaded.records`: its records, or its calls as a load tallied them (CallTally);
 * `noteKeys`: its note keys as listed (Store.noteKeys), when they are.
 */
export async function runFacts(
  store: Store,
  id: string,
  loaded: Pick<LoadedRun, 'state'> & { records: LoadedRun['records'] | CallTally },
  origin: ForkOrigin | null,
  prices: PriceBook,
  noteKeys?: readonly string[],
): Promise<RunFacts> {
  const provider = loaded.state.fingerprint.provider;
  const run = { runId: id, ...(origin !== null ? { forkedFrom: origin } : {}), ...(noteKeys !== undefined ? { noteKeys } : {}) };
  const spend = await listedRunSpend(store, run, prices, loaded.records);
  const compacted = await compactionFacts(store, id, provider);
  const continues = origin?.compacted ? await compactionFacts(store, origin.from, provider) : null;
  return { spend, ...(compacted !== null ? { compacted } : {}), ...(continues !== null ? { continues } : {}) };
}

const n = groupedDigits;

/** The tokens a compaction saved, in words. */
export function savedText(c: CompactionFacts): string {
  if (c.after === null) return `${n(c.before)} tokens before it; the continuation has made no model call yet`;
  return `${n(c.before)} tokens before it, ${n(c.after)} after: ${n(Math.max(0, c.before - c.after))} saved`;
}

/** What a spend is, in words: the sum and where its prices came from, and what could not be priced. */
export function spendText(spend: Spend): string {
  const parts: string[] = [];
  if (spend.calls > 0 || spend.unpriced === 0) {
    const sources = spend.sources.length > 0 ? ` (prices: ${spend.sources.map(sanitizeLine).join('; ')})` : '';
    parts.push(`${usdText(spend.usd)}${sources}`);
  }
  if (spend.unpriced > 0) {
    const models = spend.unpricedModels.map(sanitizeLine).join(', ');
    parts.push(`${n(spend.unpriced)} model call${spend.unpriced === 1 ? '' : 's'} not priced: no price known for ${models} (prices: in the config gives one)`);
  }
  const unheld = unheldText(spend);
  if (unheld !== null) parts.push(unheld);
  return parts.join('; ');
}

const calls = (count: number): string => `${n(count)} model call${count === 1 ? '' : 's'}`;

/** How much of a spend is calls the conversation does not hold (stopped, failed, refused, cut by a crash), in words; null when none. */
export function unheldText(spend: Spend): string | null {
  const { unheld } = spend;
  const parts: string[] = [];
  if (unheld.calls > 0) parts.push(`${usdText(unheld.usd)} of it for ${calls(unheld.calls)} the conversation does not hold (stopped, failed or refused)`);
  if (unheld.unknown > 0) parts.push(`${calls(unheld.unknown)} the conversation does not hold, of unknown cost (stopped or cut before the provider reported usage), not in the sum`);
  return parts.length === 0 ? null : parts.join('; ');
}

/** The label and value pairs a rendering shows of the facts. */
export function factFields(facts: RunFacts): [string, string][] {
  const out: [string, string][] = [['spent', spendText(facts.spend)]];
  if (facts.continues !== undefined) {
    const c = facts.continues;
    out.push(['continues', `run ${sanitizeLine(c.from)}, compacted at seq ${c.at}; ${savedText(c)}`]);
  }
  if (facts.compacted !== undefined) {
    const c = facts.compacted;
    out.push(['compacted', `at seq ${c.at}, into run ${sanitizeLine(c.into)}; ${savedText(c)}`]);
  }
  return out;
}

/** A spend as JSON: USD, the calls priced and not, the sources of the prices, and what of it the conversation does not hold. */
export function spendJson(spend: Spend): {
  usd: number;
  priced_calls: number;
  unpriced_calls: number;
  sources: string[];
  unheld: { calls: number; usd: number; unknown_cost_calls: number };
} {
  const { unheld } = spend;
  return {
    usd: spend.usd,
    priced_calls: spend.calls,
    unpriced_calls: spend.unpriced,
    sources: spend.sources,
    // The calls counted above that the conversation does not hold, and those of unknown cost (counted nowhere above).
    unheld: { calls: unheld.calls, usd: unheld.usd, unknown_cost_calls: unheld.unknown },
  };
}
