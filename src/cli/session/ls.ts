/** `logbook session ls`: one row per run, newest first. */
import { sanitizeLine } from '../../render/index.js';
import type { RunInfo, Store } from '../../store/store.js';
import { cellWidth, table, shortTime, truncate, type Cell } from '../output.js';
import type { Terminal } from '../terminal.js';

const STATUS_COLOR: Record<string, string> = { open: '32', completed: '', suspended: '33' };

/** Milliseconds since the epoch; 0 for a time that does not parse (sorts last). */
const when = (rfc3339: string): number => Date.parse(rfc3339) || 0;

/** Newest first: by last change, then by creation, as times (backends write them differently). */
export function newestFirst(runs: RunInfo[]): RunInfo[] {
  // Times are parsed once per run, not once per comparison.
  const keyed = runs.map((run) => ({ run, updated: when(run.updated), created: when(run.created) }));
  keyed.sort((a, b) => b.updated - a.updated || b.created - a.created || a.run.runId.localeCompare(b.run.runId));
  return keyed.map((k) => k.run);
}

export function formatRunList(runs: RunInfo[], term: Pick<Terminal, 'columns' | 'paint'>): string {
  const rows: Cell[][] = newestFirst(runs).map((r) => {
    const code = STATUS_COLOR[r.status] ?? '31';
    return [
      r.runId,
      sanitizeLine(r.model),
      { text: sanitizeLine(r.status), paint: (t) => (code ? term.paint(code, t) : t) },
      shortTime(r.created),
      shortTime(r.updated),
      sanitizeLine(r.status === 'unreadable' ? (r.problem ?? '') : r.prompt),
    ];
  });
  const header: Cell[] = ['ID', 'MODEL', 'STATUS', 'CREATED', 'UPDATED', 'PROMPT'].map((h) => ({ text: h, paint: (t) => term.paint('1', t) }));
  // The prompt takes what the terminal has left; piped, a fixed cut.
  const used = [0, 1, 2, 3, 4].reduce((sum, i) => sum + 2 + [header, ...rows].reduce((w, r) => Math.max(w, cellWidth(r[i]!)), 0), 0);
  const room = term.columns !== undefined ? Math.max(20, term.columns - used - 1) : 60;
  for (const r of rows) r[5] = truncate(r[5] as string, room);
  return table([header, ...rows]);
}

export async function listRuns(store: Store, term: Terminal): Promise<{ out: string; err: string }> {
  const runs = await store.list();
  if (runs.length === 0) return { out: '', err: `no runs in the ${store.location}\n` };
  return { out: formatRunList(runs, term), err: '' };
}
