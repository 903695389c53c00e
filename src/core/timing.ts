/**
 * When a run's steps happened: a pure projection of its records and of the
 * times kept beside its journal (never in it). Every duration logbook shows or
 * exports (session show, the exports, OpenTelemetry spans, the web view) is
 * derived here, by one rule:
 *
 * - each record after the meta ends a step, which began when the record
 *   before it became durable, or when a writer took the run up again after
 *   that record (a resume), whichever is later;
 * - an assistant record ends a model call, a tool_result record a tool call:
 *   tools of a batch run one at a time, in order, so the first call of a batch
 *   is timed from the batch start (its assistant record) and each next one
 *   from the result before it; a user record ends a wait for the operator;
 * - a step whose start is unknown has no duration: after a terminal record
 *   the run stood still until some resume, and without a mark of that resume
 *   nothing says when it began; a record without a kept time has none either.
 *   Nothing is invented: a run without times (written by the reference, or
 *   before times were kept) shows none.
 */
import { RecordOutline } from './record-outline.js';
import type { JournalRecord, PayloadKind } from './records.js';

/** The times kept beside a run, in milliseconds since the epoch. */
export interface RunTimes {
  /** When each record became durable, by seq. */
  readonly records: ReadonlyMap<number, number>;
  /** When a writer took the run up again right after the record with this seq (a resume). */
  readonly resumed: ReadonlyMap<number, number>;
}

/** A run with no times kept. */
export const NO_TIMES: RunTimes = Object.freeze({ records: new Map<number, number>(), resumed: new Map<number, number>() });

/**
 * Times without those of the records up to `seq`: the times a copy's records
 * got as it was made, not their own. A resume after the last of them is the copy's own.
 */
export function timesAfter(times: RunTimes, seq: number): RunTimes {
  if (seq <= 0) return times;
  const from = (m: ReadonlyMap<number, number>, first: number): Map<number, number> => new Map([...m].filter(([s]) => s >= first));
  return { records: from(times.records, seq + 1), resumed: from(times.resumed, seq) };
}

/** A span of time, in milliseconds since the epoch. */
export interface Interval {
  start: number;
  end: number;
}

/** What a step of a run waited on: the model, a tool, a person typing, or the end. */
export type StepKind = 'model' | 'tool' | 'input' | 'end';

/** One step of a run: what the record at `seq` ended, and when it ran, where that is known. */
export interface Step {
  /** The record that ended the step. */
  seq: number;
  kind: StepKind;
  /** The model turn the step belongs to: the count of assistant records before it (a model call's own, from 0). */
  turn: number;
  /** For a tool step: the call it answered. */
  callId?: string;
  /** When it began and ended; absent when either is unknown. */
  time?: Interval;
}

/** A run's steps, each with when it started and ended, derived from the times kept beside its records. */
export interface RunTimings {
  /** One step per record after the meta, in journal order. */
  steps: Step[];
  /** When the run was created (its meta record became durable), where kept. */
  started?: number;
  /** When its last record became durable, where kept. */
  lastDurable?: number;
}

/** How long an interval lasted, in milliseconds. */
export const lasted = (i: Interval): number => i.end - i.start;

/** What a record of this kind ends. */
function stepKind(kind: PayloadKind): StepKind {
  if (kind === 'assistant') return 'model';
  if (kind === 'tool_result') return 'tool';
  if (kind === 'user') return 'input';
  return 'end';
}

/**
 * When the step after `previous` began: when a writer took the run up after it,
 * else when it became durable, unless it is a terminal record (the run then
 * stood still until a resume nothing marks).
 */
export function stepStart(previous: JournalRecord, times: RunTimes): number | undefined {
  return stepStartAfter(previous.seq, 'terminal' in previous, times);
}

/** stepStart, knowing of the record before only its seq and whether it is a terminal record (a live follower's view). */
export function stepStartAfter(seq: number, terminal: boolean, times: RunTimes): number | undefined {
  const resumed = times.resumed.get(seq);
  if (resumed !== undefined) return resumed;
  if (terminal) return undefined;
  return times.records.get(seq);
}

/**
 * The steps of a run's records, with the times kept for them; with `from`,
 * only the steps of the records from that seq on (their turns counted from the
 * run's start), for a part of a long run at the cost of a pass over its
 * records. Pure.
 */
export function runTimings(records: Iterable<JournalRecord>, times: RunTimes, options: { from?: number } = {}): RunTimings {
  return outlineTimings(RecordOutline.of(records), times, options);
}

/** runTimings, from the run's outline (what a load that drops its records keeps of them). */
export function outlineTimings(outline: RecordOutline, times: RunTimes, options: { from?: number } = {}): RunTimings {
  const from = options.from ?? 0;
  const { seqs, kinds, answers } = outline;
  const steps: Step[] = [];
  let turn = -1;
  const timings: RunTimings = { steps };
  for (let i = 0; i < seqs.length; i++) {
    const seq = seqs[i]!;
    const kind = kinds[i]!;
    if (i > 0 && seq < from) {
      if (kind === 'assistant') turn++;
      continue;
    }
    const at = times.records.get(seq);
    if (i === 0) {
      if (at !== undefined) timings.started = at;
    } else {
      const ends = stepKind(kind);
      if (ends === 'model') turn++;
      const step: Step = { seq, kind: ends, turn: Math.max(turn, 0) };
      if (kind === 'tool_result') step.callId = answers[i]!;
      const start = stepStartAfter(seqs[i - 1]!, kinds[i - 1] === 'terminal', times);
      if (start !== undefined && at !== undefined && at >= start) step.time = { start, end: at };
      steps.push(step);
    }
    if (at !== undefined) timings.lastDurable = at;
  }
  return timings;
}

/**
 * The durations of a run's model calls (by model turn) and tool calls (by turn
 * and call id), as the renderings look them up: only steps with a known time.
 */
export interface CallDurations {
  /** Model call duration by turn (0 is the first assistant record). */
  model: Map<number, number>;
  /** Tool call duration by `turn:callId` (the first answer of a repeated id). */
  tools: Map<string, number>;
}

/** The key of a tool call in CallDurations: its model turn and its id (ids may repeat across turns). */
export const toolKey = (turn: number, callId: string): string => `${turn}:${callId}`;

/** Each model call's latency and each tool call's duration, by the record that ended it. */
export function callDurations(timings: RunTimings): CallDurations {
  const model = new Map<number, number>();
  const tools = new Map<string, number>();
  for (const step of timings.steps) {
    if (step.time === undefined) continue;
    if (step.kind === 'model') model.set(step.turn, lasted(step.time));
    else if (step.kind === 'tool' && step.callId !== undefined && !tools.has(toolKey(step.turn, step.callId))) {
      tools.set(toolKey(step.turn, step.callId), lasted(step.time));
    }
  }
  return { model, tools };
}

/** Totals over a run's timed calls, for a summary. */
export interface TimeSummary {
  model: { calls: number; timed: number; ms: number; slowest?: { turn: number; ms: number } };
  tools: { calls: number; timed: number; ms: number; slowest?: { callId: string; name: string; ms: number } };
}

/** The sums of a run's model and tool call durations, and the slowest of each. */
export function timeSummary(records: readonly JournalRecord[], timings: RunTimings): TimeSummary {
  return outlineTimeSummary(RecordOutline.of(records), timings);
}

/** timeSummary, from the run's outline (what a load that drops its records keeps of them). */
export function outlineTimeSummary(outline: RecordOutline, timings: RunTimings): TimeSummary {
  const names = new Map<string, string>();
  for (let i = 0; i < outline.callIds.length; i++) names.set(outline.callIds[i]!, outline.callNames[i]!);
  // A call refused without running took no tool time, and is no tool call here.
  const unrun = outline.neverRun;
  const summary: TimeSummary = { model: { calls: 0, timed: 0, ms: 0 }, tools: { calls: 0, timed: 0, ms: 0 } };
  for (const step of timings.steps) {
    if (step.kind === 'model') {
      summary.model.calls++;
      if (step.time === undefined) continue;
      const ms = lasted(step.time);
      summary.model.timed++;
      summary.model.ms += ms;
      if (summary.model.slowest === undefined || ms > summary.model.slowest.ms) summary.model.slowest = { turn: step.turn, ms };
    } else if (step.kind === 'tool' && !unrun.has(step.seq)) {
      summary.tools.calls++;
      if (step.time === undefined) continue;
      const ms = lasted(step.time);
      summary.tools.timed++;
      summary.tools.ms += ms;
      const callId = step.callId ?? '';
      if (summary.tools.slowest === undefined || ms > summary.tools.slowest.ms) summary.tools.slowest = { callId, name: names.get(callId) ?? '?', ms };
    }
  }
  return summary;
}
