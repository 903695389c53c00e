/** A stored run as a document: its journal lines, a Markdown transcript, or one self-contained HTML page. */
import { callDurations, runTimings, timeSummary } from '../core/index.js';
import type { Store } from '../store/store.js';
import type { SessionFormat } from './formats.js';

export { SESSION_FORMATS, type SessionFormat } from './formats.js';

/**
 * Run `id` of `store` in `format`, as `logbook session export` writes it: for
 * `md` and `html`, everything shown comes from the journal (and the notes
 * beside it: when each record became durable, the agents of remote calls),
 * escaped for where it goes: a
 * hostile journal cannot script the page.
 */
export async function exportSession(store: Store, id: string, format: SessionFormat): Promise<string> {
  if (format === 'jsonl') return (await store.lines(id)).map((line) => `${line}\n`).join('');
  const loaded = await store.load(id);
  // The renderers load only for an export; the agents of remote calls only for a run that made some.
  const { exportRun } = await import('../render/export/index.js');
  const agents = loaded.state.remote_calls.length === 0 ? {} : await (await import('../agent/remote-origins.js')).toolAgents(store, id);
  const timings = runTimings(loaded.records, loaded.times); // from the times kept beside the journal; none where none are kept
  const timing = { durations: callDurations(timings), summary: timeSummary(loaded.records, timings) };
  return exportRun(format, loaded.state, { times: { created: loaded.created, updated: loaded.updated }, agents, timing });
}
