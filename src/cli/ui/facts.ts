/**
 * What a run's page says beside its records, as `session show` and `session
 * show --lineage` say it: what the run spent, where a compaction cut it or the
 * run it continues (each a link on the page), and its conversation: every run
 * of its lineage, oldest first, with how each came from its origin and what
 * it spent, and what the whole conversation spent. All from the records and
 * the notes beside them (api/long-run-facts.ts, agent/spend.ts, store/lineage.ts).
 */
import { usdText, type PriceBook } from '../../agent/prices.js';
import { runsSpend } from '../../agent/spend.js';
import { runFacts, savedText, spendText } from '../../api/long-run-facts.js';
import { sanitizeLine } from '../../render/sanitize.js';
import { lineageOf } from '../../store/lineage.js';
import type { RunInfo, Store } from '../../store/store.js';
import type { RunSnapshot } from './runs.js';

export interface ConversationRun {
  id: string;
  status: string;
  created: string;
  /** How it came from its origin: the first run, a fork, or the continuation of a compacted run. */
  relation: { kind: 'first' } | { kind: 'fork' | 'continuation'; from: string; at: number };
  /** What its own model calls cost, in words; null when it cannot be read. */
  spent: string | null;
}

export interface RunPageFacts {
  /** What the run's own model calls cost, in words (prices and what could not be priced). */
  spent: string;
  /** Where its compaction cut it, and the run its conversation goes on in. */
  compacted?: { at: number; into: string; saved: string };
  /** The compacted run it continues. */
  continues?: { from: string; at: number; saved: string };
  /** Its conversation's runs, oldest first, and what they cost in all; absent for a run alone in its conversation. */
  conversation?: { runs: ConversationRun[]; spent: string };
}

export async function runPageFacts(store: Store, run: RunSnapshot, listing: readonly RunInfo[], prices: PriceBook): Promise<RunPageFacts> {
  const id = run.state.run_id;
  const facts = await runFacts(store, id, run, run.origin, prices);
  const out: RunPageFacts = { spent: spendText(facts.spend) };
  if (facts.compacted !== undefined) out.compacted = { at: facts.compacted.at, into: sanitizeLine(facts.compacted.into), saved: savedText(facts.compacted) };
  if (facts.continues !== undefined) out.continues = { from: sanitizeLine(facts.continues.from), at: facts.continues.at, saved: savedText(facts.continues) };
  const runs = [...lineageOf(listing, id)].sort((a, b) => a.created.localeCompare(b.created) || a.runId.localeCompare(b.runId));
  if (runs.length > 1) {
    const { each, total } = await runsSpend(store, runs, prices);
    out.conversation = {
      spent: usdText(total.usd),
      runs: runs.map((r, i) => ({
        id: sanitizeLine(r.runId),
        status: sanitizeLine(r.status),
        created: sanitizeLine(r.created),
        relation: r.forkedFrom === undefined ? { kind: 'first' } : { kind: r.forkedFrom.compacted ? 'continuation' : 'fork', from: sanitizeLine(r.forkedFrom.from), at: r.forkedFrom.at },
        spent: each[i] === null ? null : spendText(each[i]!),
      })),
    };
  }
  return out;
}
