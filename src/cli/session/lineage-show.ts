/**
 * `session show --lineage`: every run of a run's conversation (lineage.ts),
 * oldest first, each with how it came from its origin (a fork, or a
 * continuation of a compacted run), its status, its own model calls and what
 * it spent; then what the whole conversation spent.
 */
import type { PriceBook } from '../../agent/prices.js';
import { runsSpend, spentUsdText, type Spend } from '../../agent/spend.js';
import { sanitizeLine } from '../../render/sanitize.js';
import { listLineage } from '../../store/lineage.js';
import type { RunInfo, Store } from '../../store/store.js';
import { count } from '../output.js';
import { spendText } from '../../api/long-run-facts.js';

export interface LineageRow {
  run: RunInfo;
  /** Its own model calls' spend (a compacted run's summary call included). */
  spend: Spend | null;
}

export interface LineageRows {
  rows: LineageRow[];
  total: Spend;
}

/** The runs of run `id`'s conversation, oldest first, each with its own spend. */
export async function lineageRows(store: Store, id: string, prices: PriceBook): Promise<LineageRows> {
  const runs = (await listLineage(store, id)).sort((a, b) => a.created.localeCompare(b.created) || a.runId.localeCompare(b.runId));
  const { each, total } = await runsSpend(store, runs, prices);
  return { rows: runs.map((run, i) => ({ run, spend: each[i]! })), total };
}

/** How a run came from its origin. */
function relation(run: RunInfo): string {
  const o = run.forkedFrom;
  if (o === undefined) return 'the first run';
  return o.compacted ? `continues ${sanitizeLine(o.from)} (compacted at seq ${o.at})` : `forked from ${sanitizeLine(o.from)} at seq ${o.at}`;
}

export function formatLineage(lineage: LineageRows, current: string): string {
  const { rows, total } = lineage;
  const lines = rows.map(({ run, spend }) => {
    const calls = spend === null ? '' : `, ${count(spend.calls + spend.unpriced)} model call${spend.calls + spend.unpriced === 1 ? '' : 's'}`;
    const cost = spend === null ? 'cannot be read' : spendText(spend);
    return `${run.runId === current ? '*' : ' '} ${sanitizeLine(run.runId)}  ${sanitizeLine(run.status)}, ${relation(run)}${calls}: ${cost}`;
  });
  return `lineage: ${count(rows.length)} run${rows.length === 1 ? '' : 's'}, ${spentUsdText(total)} in all (* is this one)\n${lines.join('\n')}\n`;
}
