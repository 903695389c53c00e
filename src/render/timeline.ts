/**
 * A run as a timeline: its model calls and tool calls as bars with their
 * durations and tokens, the operator's turns, and markers where the run ended,
 * was taken up again or was forked, in journal order. A pure projection of the
 * records and the times kept beside them (core timing: the durations are its),
 * which the web view draws.
 *
 * The model leaves room for what later runs will hold: a marker has a kind of
 * its own (a compaction is one more), and a tool call's entry may carry the
 * timeline of the run it started (`children`, for a sub-agent call).
 */
import {
  runTimings,
  stepStartAfter,
  toolUses,
  unansweredCalls,
  withheldKind,
  type Interval,
  type JournalRecord,
  type RunState,
  type RunTimes,
} from '../core/index.js';
import { sanitize, sanitizeLine } from './sanitize.js';

/** Where a timeline marks something that is not a step. */
export type MarkerKind = 'ended' | 'resumed' | 'forked' | 'interrupted' | (string & {});

export type TimelineEntry =
  | {
      kind: 'model';
      seq: number;
      /** Which model call of the run, from 1. */
      turn: number;
      time?: Interval;
      inTokens: number;
      outTokens: number;
      cacheReadTokens: number;
      cacheCreateTokens: number;
      stopReason: string;
      /** Copied from the run it was forked from, before the fork. */
      inherited?: boolean;
    }
  | {
      kind: 'tool';
      seq: number;
      turn: number;
      callId: string;
      name: string;
      time?: Interval;
      isError: boolean;
      /** Answered without running: denied, or not re-run after an interruption. */
      withheld?: string;
      remote: boolean;
      inherited?: boolean;
      /** The timeline of the run this call started (a sub-agent), when it did. */
      children?: Timeline;
    }
  /** The operator's typed turn (a chat): the wait for it. */
  | { kind: 'input'; seq: number; turn: number; time?: Interval; inherited?: boolean }
  | { kind: 'marker'; marker: MarkerKind; seq: number; label: string; at?: number; message?: string }
  /** The step in flight now: begun at `start` and not yet durable. */
  | { kind: 'inflight'; what: 'model' | 'tool' | 'input'; seq: number; start?: number; callId?: string; name?: string };

export interface Timeline {
  /** From the first kept time to the last (or to now, for a step in flight, which the viewer extends). */
  start?: number;
  end?: number;
  entries: TimelineEntry[];
}

export interface TimelineFacts {
  /** Where the run was forked from, when it was. */
  origin?: { from: string; at: number } | null;
  /** Whether a writer holds it now (undefined: the store cannot tell). */
  held?: boolean;
  /**
   * Only the entries of records from seq `from` up to `to` (excluded; the
   * step in flight counts as the record after the last); start and end are
   * then theirs.
   */
  range?: { from?: number; to?: number };
}

/** The index of the first record with seq `seq` or later (records are in seq order). */
function firstAtOrAfter(records: readonly JournalRecord[], seq: number): number {
  let lo = 0;
  let hi = records.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (records[mid]!.seq < seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The run's timeline. Pure. */
export function runTimeline(records: readonly JournalRecord[], state: RunState, times: RunTimes, facts: TimelineFacts = {}): Timeline {
  const entries: TimelineEntry[] = [];
  const from = facts.range?.from ?? 0;
  const to = facts.range?.to ?? Number.POSITIVE_INFINITY;
  const timings = runTimings(records, times, { from });
  const bySeq = new Map(timings.steps.map((s) => [s.seq, s]));
  const names = new Map<string, string>();
  const forkAt = facts.origin?.at ?? 0;
  const whole = from <= 1 && to === Number.POSITIVE_INFINITY;
  let start = whole ? timings.started : undefined;
  let end = whole ? timings.lastDurable : undefined;
  const take = (i: Interval | undefined): void => {
    if (i === undefined) return;
    start = Math.min(start ?? i.start, i.start);
    end = Math.max(end ?? i.end, i.end);
  };
  // A result answers a call of the turn before it: the walk starts at the last model turn before the range, for the names of its calls.
  let first = firstAtOrAfter(records, from);
  while (first > 0 && (first >= records.length || !('assistant' in records[first]!))) first--;
  for (let i = first; i < records.length; i++) {
    const record = records[i]!;
    if (record.seq < from || record.seq >= to) {
      if ('assistant' in record) for (const t of toolUses(record.assistant.message)) names.set(t.id, t.name);
      continue;
    }
    const resumedAfter = times.resumed.get(record.seq);
    const step = bySeq.get(record.seq);
    const inherited = record.seq <= forkAt ? { inherited: true } : {};
    const time = step?.time !== undefined ? { time: step.time } : {};
    take(step?.time);
    if ('assistant' in record) {
      const a = record.assistant;
      for (const t of toolUses(a.message)) names.set(t.id, t.name);
      entries.push({
        kind: 'model',
        seq: record.seq,
        turn: (step?.turn ?? 0) + 1,
        ...time,
        inTokens: a.in_tokens,
        outTokens: a.out_tokens,
        cacheReadTokens: a.cache_read_tokens ?? 0,
        cacheCreateTokens: a.cache_create_tokens ?? 0,
        stopReason: sanitizeLine(a.stop_reason ?? ''),
        ...inherited,
      });
    } else if ('tool_result' in record) {
      const t = record.tool_result;
      const withheld = withheldKind(t.result);
      entries.push({
        kind: 'tool',
        seq: record.seq,
        turn: (step?.turn ?? 0) + 1,
        callId: sanitizeLine(t.tool_use_id),
        name: sanitizeLine(names.get(t.tool_use_id) ?? '?'),
        ...time,
        isError: t.result.is_error === true && withheld === undefined,
        ...(withheld !== undefined ? { withheld } : {}),
        remote: t.remote === true,
        ...inherited,
      });
    } else if ('user' in record) {
      entries.push({ kind: 'input', seq: record.seq, turn: (step?.turn ?? 0) + 1, ...time, ...inherited });
    } else if ('terminal' in record) {
      const at = times.records.get(record.seq);
      const marker: TimelineEntry = { kind: 'marker', marker: 'ended', seq: record.seq, label: `run ${sanitizeLine(record.terminal.reason)}` };
      if (at !== undefined) marker.at = at;
      if (record.terminal.message !== undefined) marker.message = sanitize(record.terminal.message);
      entries.push(marker);
    }
    if (record.seq === forkAt) entries.push({ kind: 'marker', marker: 'forked', seq: forkAt, label: `forked from run ${sanitizeLine(facts.origin!.from)} at seq ${forkAt}` });
    if (resumedAfter !== undefined) entries.push({ kind: 'marker', marker: 'resumed', seq: record.seq, label: 'taken up again', at: resumedAfter });
  }
  const last = records[records.length - 1];
  if (last !== undefined && state.status === 'open') {
    if (facts.held === false) {
      if (last.seq >= from && last.seq < to) entries.push({ kind: 'marker', marker: 'interrupted', seq: last.seq, label: 'interrupted: its writer stopped without ending it' });
    } else {
      const begun = stepStartAfter(last.seq, false, times);
      const flight: TimelineEntry = { kind: 'inflight', what: 'model', seq: last.seq + 1, ...(begun !== undefined ? { start: begun } : {}) };
      const next = unansweredCalls(state)[0];
      if (next !== undefined) {
        flight.what = 'tool';
        flight.callId = sanitizeLine(next.id);
        flight.name = sanitizeLine(next.name);
      } else if (state.pending === null && state.messages.at(-1)?.role === 'assistant' && state.last_stop_reason !== 'pause_turn') {
        flight.what = 'input';
      }
      if (flight.seq >= from && flight.seq < to) entries.push(flight);
    }
  }
  const timeline: Timeline = { entries };
  if (start !== undefined) timeline.start = start;
  if (end !== undefined) timeline.end = end;
  return timeline;
}
