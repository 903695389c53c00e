/**
 * What the web view shows of one run, as one JSON-able value: its summary, its
 * timeline (timeline.ts), its transcript (the items every rendering shares,
 * with durations), and the call it waits on for an approval. A pure projection
 * of the records, their times and what the store says of the run; every string
 * from the journal is sanitized here and set as text by the page.
 */
import {
  awaitedCall,
  callDurations,
  runTimings,
  type Counters,
  type JournalRecord,
  type RunState,
  type RunTimes,
} from '../core/index.js';
import { callLine } from './calls.js';
import { proseHtml } from './export/html.js';
import { sanitize, sanitizeLine } from './sanitize.js';
import { runTimeline, type Timeline } from './timeline.js';
import { transcriptItems, type TranscriptItem } from './transcript.js';

export interface AwaitedApproval {
  callId: string;
  name: string;
  /** The call's arguments, as raw JSON text (sanitized). */
  input: string;
  /** What it runs, when its tool is known and can say. */
  resolved?: string;
}

export interface RunView {
  id: string;
  /** As `session ls` lists it. */
  status: string;
  /** The run's end message, when it ended with one. */
  message?: string;
  model: string;
  provider: string;
  interactive: boolean;
  created: string;
  updated: string;
  lastSeq: number;
  counters: Counters;
  origin?: { from: string; at: number };
  timeline: Timeline;
  /**
   * The transcript's items; a call's carries `line`, the one line every
   * rendering shows it as (render/calls.ts), and the model's prose `html`, its
   * Markdown rendered as the HTML export renders it (everything escaped, raw
   * HTML as text, only http(s) and mailto links, an image as a link to it).
   */
  transcript: (TranscriptItem & { line?: string; html?: string })[];
  awaiting?: AwaitedApproval;
}

export interface RunViewInput {
  records: readonly JournalRecord[];
  state: RunState;
  times: RunTimes;
  /** The listed status (store listedStatus). */
  status: string;
  created: string;
  updated: string;
  held?: boolean;
  origin?: { from: string; at: number } | null;
  /** What a call runs (a command line), where its tool is known. */
  describe?: (name: string, inputJson: string) => string | undefined;
}

export function runView(input: RunViewInput): RunView {
  const { state, records, times } = input;
  const durations = callDurations(runTimings(records, times));
  const view: RunView = {
    id: sanitizeLine(state.run_id),
    status: sanitizeLine(input.status),
    model: sanitizeLine(state.fingerprint.model),
    provider: sanitizeLine(state.fingerprint.provider),
    interactive: state.interactive,
    created: sanitizeLine(input.created),
    updated: sanitizeLine(input.updated),
    lastSeq: state.last_seq,
    counters: state.counters,
    timeline: runTimeline(records, state, times, { origin: input.origin ?? null, ...(input.held !== undefined ? { held: input.held } : {}) }),
    transcript: transcriptItems(state, { durations }).map((item) =>
      item.kind === 'call' ? { ...item, line: callLine(item.name, item.input) } : item.kind === 'text' ? { ...item, html: proseHtml(item.text) } : item,
    ),
  };
  if (state.status !== 'open' && state.terminal?.message) view.message = sanitize(state.terminal.message);
  if (input.origin) view.origin = { from: sanitizeLine(input.origin.from), at: input.origin.at };
  const call = awaitedCall(state);
  if (call !== undefined) {
    const awaiting: AwaitedApproval = { callId: sanitizeLine(call.id), name: sanitizeLine(call.name), input: sanitize(call.input.text) };
    const resolved = input.describe?.(call.name, call.input.text);
    if (resolved !== undefined) awaiting.resolved = sanitizeLine(resolved);
    view.awaiting = awaiting;
  }
  return view;
}
