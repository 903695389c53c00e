/**
 * What an export says about a run before its conversation: id, status, model,
 * counters and times, as label and value pairs. Values from the journal are
 * sanitized to one line here; each format escapes them for itself.
 */
import type { CallDurations, RunState, TimeSummary } from '../../core/index.js';
import { formatDuration } from '../durations.js';
import { fileCounts, type ShownFile } from '../file-changes.js';
import { sanitizeLine } from '../sanitize.js';
import { remoteCountText, type ToolAgents } from '../remote-count.js';
import type { SectionOptions } from './sections.js';

/** When the run was made and last changed: from the store, not the folded state. */
export interface RunTimes {
  created?: string;
  updated?: string;
}

/** What the times kept beside a run say of its calls (core runTimings): durations to show beside each, and the totals. */
export interface ExportTiming {
  durations: CallDurations;
  summary: TimeSummary;
}

export interface ExportOptions {
  times?: RunTimes;
  /** Which agent runs each remote tool (the run's remote-tools note), to name it on its calls. */
  agents?: ToolAgents;
  /** Absent, or with no timed call: the export shows no durations (a run without times has none). */
  timing?: ExportTiming;
  /** What the caller knows beside the records (what the run spent, its compactions), shown after the counters. */
  extra?: readonly SummaryField[];
  /**
   * The run's status as `session ls` and `show` list it (store listedStatus:
   * `running` while a writer holds it, `interrupted`, `forked`), which only the
   * store can tell; the folded status when not given.
   */
  status?: string;
  /** Where a fork came from (its forked note): the run and the last seq it took from it. */
  forkedFrom?: { from: string; at: number };
  /** What the run changed in its workspace, span by span (api/workspace.ts runDiff): shown after the transcript. */
  changes?: readonly WorkspaceChanges[];
}

/** One span of a run's workspace changes as an export shows it: who made them, the files, and the diff when asked for. */
export interface WorkspaceChanges {
  heading: string;
  files: readonly ShownFile[];
  /** The unified diff (`session export --diffs`). */
  diff?: string;
}

/** A changed file's line in an export: its status and line counts. */
export function changeCounts(f: WorkspaceChanges['files'][number]): string {
  return `${f.status}, ${fileCounts(f)}`;
}

export interface SummaryField {
  label: string;
  value: string;
  /** Text from the journal (an id, a model name, a time), shown as code; else prose made here. */
  literal: boolean;
}

/** The run's status: as listed when the caller knows it (ExportOptions.status), else `open` or the reason it stopped (a newer writer's included); its terminal message is shown where the run ends. */
export function shownStatus(state: RunState, listed?: string): string {
  return sanitizeLine(listed ?? state.status);
}

const n = (value: number): string => value.toLocaleString('en-US');

/** `2.31 s in 4 calls`, with how many of them were timed when not all were. */
function timeTotal(part: { calls: number; timed: number; ms: number }): string {
  const calls = `${n(part.calls)} call${part.calls === 1 ? '' : 's'}`;
  return part.timed === part.calls ? `${formatDuration(part.ms)} in ${calls}` : `${formatDuration(part.ms)} in ${n(part.timed)} of ${calls} timed`;
}

export function runSummary(state: RunState, options: ExportOptions = {}): SummaryField[] {
  const { times = {}, agents = {}, timing, extra = [] } = options;
  const c = state.counters;
  const f = state.fingerprint;
  const field = (label: string, value: string, literal = false): SummaryField => ({ label, value, literal });
  const fields = [
    field('Status', shownStatus(state, options.status), true),
    field('Model', sanitizeLine(f.model), true),
    field('Provider', sanitizeLine(f.provider), true),
    field('Interactive', state.interactive ? 'yes' : 'no'),
  ];
  if (options.forkedFrom !== undefined) fields.push(field('Forked from', `run ${sanitizeLine(options.forkedFrom.from)}, up to seq ${options.forkedFrom.at}`));
  if (times.created !== undefined) fields.push(field('Created', sanitizeLine(times.created), true));
  if (times.updated !== undefined) fields.push(field('Updated', sanitizeLine(times.updated), true));
  fields.push(
    field('Model calls', n(c.llm_calls)),
    field('Tool calls', `${n(c.tool_calls)} (${remoteCountText(state, agents)})`),
    field('Tokens', `${n(c.in_tokens)} in, ${n(c.out_tokens)} out`),
    field('Cache', `${n(c.cache_read_tokens)} read, ${n(c.cache_create_tokens)} created`),
  );
  const t = timing?.summary;
  if (t !== undefined && t.model.timed + t.tools.timed > 0) {
    if (t.model.calls > 0) fields.push(field('Model time', timeTotal(t.model)));
    if (t.tools.calls > 0) fields.push(field('Tool time', timeTotal(t.tools)));
  }
  for (const f of extra) fields.push({ label: f.label, value: sanitizeLine(f.value), literal: f.literal });
  return fields;
}

/** What the sections of an export are rendered with, from its options. */
export function sectionOptions(options: ExportOptions): SectionOptions {
  return {
    ...(options.agents !== undefined ? { agents: options.agents } : {}),
    ...(options.timing !== undefined ? { durations: options.timing.durations } : {}),
    ...(options.status === 'running' ? { running: true } : {}),
  };
}
