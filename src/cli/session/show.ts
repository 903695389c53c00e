/** `logbook session show ID`: where a run stands, as a block of fields. */
import { awaitedCall, type RunState } from '../../core/index.js';
import { sanitize, sanitizeLine } from '../../render/index.js';
import type { LoadedRun } from '../../store/store.js';
import { count, fields } from '../output.js';

/** The status: `open`, or the reason the journal ends with, and its message. */
export function statusText(state: RunState): string {
  const t = state.terminal;
  if (state.status === 'open' || t === null) return 'open';
  const reason = sanitizeLine(t.reason); // a newer writer's reason is shown as read
  return t.message ? `${reason}: ${sanitizeLine(t.message)}` : reason;
}

export function formatShow(run: LoadedRun): string {
  const { state } = run;
  const c = state.counters;
  const f = state.fingerprint;
  const pairs: [string, string][] = [
    ['run', state.run_id],
    ['status', statusText(state)],
    ['model', `${sanitizeLine(f.model)} (${sanitizeLine(f.provider)})`],
    ['interactive', state.interactive ? 'yes' : 'no'],
    ['created', sanitizeLine(run.created)],
    ['updated', run.updated],
    ['next iteration', String(state.next_iteration)],
    ['LLM calls', count(c.llm_calls)],
    ['tool calls', `${count(c.tool_calls)} (${count(c.remote_tool_calls)} remote)`],
    ['tokens', `${count(c.in_tokens)} in, ${count(c.out_tokens)} out`],
    ['cache', `${count(c.cache_read_tokens)} read, ${count(c.cache_create_tokens)} created`],
  ];
  const p = state.pending;
  if (p !== null) {
    const total = p.assistant.content.filter((b) => 'tool_use' in b).length;
    pairs.push(['note', `an in-flight tool batch (${p.answered.length} of ${total} calls answered) resumes first`]);
  }
  const awaited = awaitedCall(state);
  if (awaited !== undefined) {
    const id = sanitizeLine(awaited.id);
    pairs.push(['awaiting', `approval of call ${id} (${sanitizeLine(awaited.name)}): logbook run --resume ${state.run_id} --approve ${id}, or --deny ${id}`]);
  }
  const prompt = state.prompt === '' ? '  (empty)' : sanitize(state.prompt).replace(/^/gm, '  ');
  return `${fields(pairs)}prompt\n${prompt}\n`;
}
