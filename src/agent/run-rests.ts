/**
 * Where a run rests, read from its folded state and its end: what `session show`
 * says of a run and what a resume does with it are decided by these same rules.
 * Pure, and a module of its own, so that reading a run does not load the runner.
 */
import type { RunState } from '../core/index.js';

/** The caps a run stops at before a model call, as agent.yaml names them. */
export type SpendCap = 'budget' | 'budget_usd' | 'lineage_budget_usd';

/**
 * Whether the conversation ends on a user turn the model has not answered
 * (an answer was stopped, or a chat ended before the model replied).
 */
export function awaitsAnswer(state: RunState): boolean {
  return state.pending === null && state.messages[state.messages.length - 1]?.role === 'user';
}

/**
 * Whether the run rests where the next step is a person's: nothing pending and
 * the conversation empty (a chat opened without a prompt) or ending on a
 * finished assistant turn. A paused turn is not finished: the model resumes it.
 */
export function awaitsInput(state: RunState): boolean {
  if (state.pending !== null) return false;
  const last = state.messages[state.messages.length - 1];
  return last === undefined || (last.role === 'assistant' && state.last_stop_reason !== 'pause_turn');
}

/** How the message of a stop at a spend cap begins: it names the cap, which is all a `budget` terminal record keeps of it. */
export const spendCapReached = (cap: Exclude<SpendCap, 'budget'>): string => `spend cap ${cap} reached: `;

/** The cap a run's `budget` end stopped at, read from its message (capReached wrote it): a spend cap it names, else the token budget. */
export function capOfEnd(message: string | undefined): SpendCap {
  for (const cap of ['budget_usd', 'lineage_budget_usd'] as const) if (message?.startsWith(spendCapReached(cap))) return cap;
  return 'budget';
}
