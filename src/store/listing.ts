/** The order runs are listed in, for every listing: the command's and a program's. */
import type { RunInfo } from './store.js';

/** Milliseconds since the epoch; 0 for a time that does not parse (sorts last). */
export const when = (rfc3339: string): number => Date.parse(rfc3339) || 0;

/** Newest first: by last change, then by creation, as times (backends write them differently). */
export function newestFirst(runs: readonly RunInfo[]): RunInfo[] {
  // Times are parsed once per run, not once per comparison.
  const keyed = runs.map((run) => ({ run, updated: when(run.updated), created: when(run.created) }));
  keyed.sort((a, b) => b.updated - a.updated || b.created - a.created || a.run.runId.localeCompare(b.run.runId));
  return keyed.map((k) => k.run);
}
