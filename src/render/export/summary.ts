/**
 * What an export says about a run before its conversation: id, status, model,
 * counters and times, as label and value pairs. Values from the journal are
 * sanitized to one line here; each format escapes them for itself.
 */
import type { RunState } from '../../core/index.js';
import { sanitizeLine } from '../sanitize.js';
import { remoteCountText, type ToolAgents } from '../transcript.js';

/** When the run was made and last changed: from the store, not the folded state. */
export interface RunTimes {
  created?: string;
  updated?: string;
}

export interface ExportOptions {
  times?: RunTimes;
  /** Which agent runs each remote tool (the run's remote-tools note), to name it on its calls. */
  agents?: ToolAgents;
}

export interface SummaryField {
  label: string;
  value: string;
  /** Text from the journal (an id, a model name, a time), shown as code; else prose made here. */
  literal: boolean;
}

/** The run's status: `open`, or the reason it stopped (a newer writer's included); its terminal message is shown where the run ends. */
export function shownStatus(state: RunState): string {
  return sanitizeLine(state.status);
}

const n = (value: number): string => value.toLocaleString('en-US');

export function runSummary(state: RunState, times: RunTimes = {}, agents: ToolAgents = {}): SummaryField[] {
  const c = state.counters;
  const f = state.fingerprint;
  const field = (label: string, value: string, literal = false): SummaryField => ({ label, value, literal });
  const fields = [
    field('Status', shownStatus(state)),
    field('Model', sanitizeLine(f.model), true),
    field('Provider', sanitizeLine(f.provider), true),
    field('Interactive', state.interactive ? 'yes' : 'no'),
  ];
  if (times.created !== undefined) fields.push(field('Created', sanitizeLine(times.created), true));
  if (times.updated !== undefined) fields.push(field('Updated', sanitizeLine(times.updated), true));
  fields.push(
    field('LLM calls', n(c.llm_calls)),
    field('Tool calls', `${n(c.tool_calls)} (${remoteCountText(state, agents)})`),
    field('Tokens', `${n(c.in_tokens)} in, ${n(c.out_tokens)} out`),
    field('Cache', `${n(c.cache_read_tokens)} read, ${n(c.cache_create_tokens)} created`),
  );
  return fields;
}
