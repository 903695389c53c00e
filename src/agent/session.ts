/**
 * Starting and resuming journaled runs. Resume reads and gates without a lock,
 * then takes the lock, so inspecting a run never blocks on its writer and a
 * refused resume never disturbs one.
 */
import {
  LogbookError,
  VERSION,
  checkResume,
  formatTimestamp,
  promptMessages,
  zeroCounters,
  type Fingerprint,
  type MetaPayload,
  type RunState,
} from '../core/index.js';
import type { Journal, Store } from '../store/store.js';
import type { StartPoint } from './runner.js';

export function newRunMeta(runId: string, fingerprint: Fingerprint, prompt: string, interactive: boolean, now = new Date()): MetaPayload {
  const meta: MetaPayload = { version: VERSION, run_id: runId, created: formatTimestamp(now), fingerprint, prompt };
  if (interactive) meta.interactive = true;
  return meta;
}

/** The start of a fresh run. */
export function freshStart(prompt: string): StartPoint {
  return { messages: promptMessages(prompt), pending: null, iteration: 0, counters: zeroCounters(), lastStopReason: '', resumed: false };
}

/** Where a journaled run continues from: its conversation, pending turn, position and counters. */
export function resumeStart(state: RunState): StartPoint {
  return {
    messages: state.messages,
    pending: state.pending,
    iteration: state.next_iteration,
    counters: { ...state.counters },
    lastStopReason: state.last_stop_reason,
    resumed: true,
  };
}

/** A run id from the clock and some randomness: sortable, unique enough, valid everywhere. */
export function generateRunId(now = new Date()): string {
  const stamp = formatTimestamp(now).replace(/[-:]/g, '').replace(/\..*$|Z$/, '').replace('T', '-');
  return `${stamp}-${Math.random().toString(36).slice(2, 8)}`;
}

export interface ResumeRequestOptions {
  fingerprint: Fingerprint;
  /** Undefined: keep the interactivity the run was journaled with. */
  interactive: boolean | undefined;
  force: boolean;
}

export interface ResumedRun {
  journal: Journal;
  state: RunState;
  /** Things the operator should know before the run continues. */
  warnings: string[];
}

/** The gates, in order, against the current configuration; then the lock. */
export async function resumeRun(store: Store, id: string, request: ResumeRequestOptions): Promise<ResumedRun> {
  const loaded = await store.load(id);
  const gates = { ...request, interactive: request.interactive ?? loaded.state.interactive };
  checkResume(loaded.state, gates);
  const journal = await store.open(id);
  let state = loaded.state;
  try {
    if (journal.lastSeq !== loaded.lastSeq) {
      // Another writer finished between our read and our lock: read again, under the lock.
      const reread = await store.load(id);
      checkResume(reread.state, gates);
      if (reread.lastSeq !== journal.lastSeq) {
        throw new LogbookError('locked', `run ${id} changed while it was being opened; try again`);
      }
      state = reread.state;
    }
  } catch (err) {
    await journal.close();
    throw err;
  }
  const warnings: string[] = [];
  if (state.pending === null && state.last_stop_reason === 'pause_turn') {
    warnings.push(
      `run ${id} rests on a paused turn; the server-side state it continues from may have expired, in which case the model starts that step over`,
    );
  }
  return { journal, state, warnings };
}
