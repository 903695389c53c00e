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
import { transcriptGroups, type TranscriptItem, type TranscriptRange } from './transcript.js';

export interface AwaitedApproval {
  callId: string;
  name: string;
  /** The call's arguments, as raw JSON text (sanitized). */
  input: string;
  /** What it runs, when its tool is known and can say. */
  resolved?: string;
}

/** A transcript item as the page gets it: a call with its one line, the model's prose with its HTML. */
export type ViewItem = TranscriptItem & { line?: string; html?: string };

/** The items of one message (TranscriptGroup), as the page gets them. */
export interface ViewGroup {
  at: number;
  items: ViewItem[];
}

/** What the page shows above a run's timeline and transcript: small, whatever the run's length. */
export interface RunHead {
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
  /** The conversation's committed messages: the transcript's groups are keyed 0 to this (then the pending turn and the end). */
  messages: number;
  counters: Counters;
  origin?: { from: string; at: number };
  awaiting?: AwaitedApproval;
}

/**
 * A run's view: its head, its timeline and its transcript, whole or only the
 * parts asked for (RunViewInput.window).
 */
export interface RunView extends RunHead {
  timeline: Timeline;
  /**
   * The transcript's groups; a call's items carry `line`, the one line every
   * rendering shows it as (render/calls.ts), and the model's prose `html`, its
   * Markdown rendered as the HTML export renders it (everything escaped, raw
   * HTML as text, only http(s) and mailto links, an image as a link to it).
   */
  transcript: ViewGroup[];
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

/** Which parts of a long run a view holds: the transcript's groups by message, the timeline's entries by record seq. */
export interface ViewWindow {
  messages?: TranscriptRange;
  records?: { from?: number; to?: number };
}

export function runView(input: RunViewInput, window: ViewWindow = {}): RunView {
  return { ...runHead(input), timeline: timelineView(input, window.records), transcript: transcriptView(input, window.messages) };
}

export function runHead(input: RunViewInput): RunHead {
  const { state } = input;
  const head: RunHead = {
    id: sanitizeLine(state.run_id),
    status: sanitizeLine(input.status),
    model: sanitizeLine(state.fingerprint.model),
    provider: sanitizeLine(state.fingerprint.provider),
    interactive: state.interactive,
    created: sanitizeLine(input.created),
    updated: sanitizeLine(input.updated),
    lastSeq: state.last_seq,
    messages: state.messages.length,
    counters: state.counters,
  };
  if (state.status !== 'open' && state.terminal?.message) head.message = sanitize(state.terminal.message);
  if (input.origin) head.origin = { from: sanitizeLine(input.origin.from), at: input.origin.at };
  const call = awaitedCall(state);
  if (call !== undefined) {
    const awaiting: AwaitedApproval = { callId: sanitizeLine(call.id), name: sanitizeLine(call.name), input: sanitize(call.input.text) };
    const resolved = input.describe?.(call.name, call.input.text);
    if (resolved !== undefined) awaiting.resolved = sanitizeLine(resolved);
    head.awaiting = awaiting;
  }
  return head;
}

/** The timeline's entries of the records in `range` (all by default). */
export function timelineView(input: RunViewInput, range?: { from?: number; to?: number }): Timeline {
  const { records, state, times } = input;
  return runTimeline(records, state, times, { origin: input.origin ?? null, ...(input.held !== undefined ? { held: input.held } : {}), ...(range !== undefined ? { range } : {}) });
}

/** The transcript's groups in `range` (all by default), each item ready for the page. */
export function transcriptView(input: RunViewInput, range?: TranscriptRange): ViewGroup[] {
  const durations = callDurations(runTimings(input.records, input.times, { from: firstSeqOf(input, range?.from ?? 0) }));
  return transcriptGroups(input.state, { durations, ...(range !== undefined ? { range } : {}) }).map((g) => ({
    at: g.at,
    items: g.items.map((item) =>
      item.kind === 'call' ? { ...item, line: callLine(item.name, item.input) } : item.kind === 'text' ? { ...item, html: proseHtml(item.text) } : item,
    ),
  }));
}

/** The seq of the record that wrote message `at`'s model turn or a later one: the timings a part of the transcript needs start there. */
function firstSeqOf(input: RunViewInput, at: number): number {
  if (at <= 0) return 0;
  let turns = 0;
  for (let i = 0; i < at && i < input.state.messages.length; i++) if (input.state.messages[i]!.role === 'assistant') turns++;
  for (const record of input.records) if ('assistant' in record && turns-- === 0) return record.seq;
  return Number.POSITIVE_INFINITY;
}
