/**
 * What to do with a run whose model request the API refused for good
 * (`provider_refused`: a 4xx that is not a rate limit). A resume would send the
 * same request and be refused again, so the way on is a fork from before the
 * refused turn. One text for the run's own end and for `session show`, so the
 * two say the same.
 */
import { committedTurns, isContinuationPrompt, shellQuote, type RunState } from '../core/index.js';
import { storeArguments, type ResumeFlags } from './resume-command.js';

/**
 * The fork that goes on without the turn the refused request ended on: the
 * model turns before it, when that turn was typed (a follow-up, a chat's turn)
 * and is not the prompt the run began with, which every fork keeps; else null.
 */
export function forkBeforeRefusal(state: RunState): number | null {
  const turns = committedTurns(state);
  const last = state.messages[state.messages.length - 1];
  const typed = last?.role === 'user' && last.content.some((b) => 'text' in b);
  if (!typed || (turns === 0 && state.prompt !== '')) return null;
  return turns;
}

/** `; a resume would ... ; to go on without ...`: what follows the refusal's message. */
export function refusedRequestAdvice(state: RunState, flags: Pick<ResumeFlags, 'config' | 'stateDir'> = {}): string {
  const turn = forkBeforeRefusal(state);
  const fork = (n: string): string => shellQuote(['logbook', 'session', 'fork', state.run_id, '--turn', n, ...storeArguments(flags)]);
  const way =
    turn !== null
      ? `to go on without the refused turn: ${fork(String(turn))}, then continue the fork`
      : committedTurns(state) > 0
        ? `start a new run, or go on from an earlier model turn: ${fork('N')}`
        : 'the refused request is the prompt itself: start a new run';
  return `a resume would send the same request and be refused again, so none is offered; ${way}`;
}

/**
 * What to do with a run whose first request the API refused as longer than
 * the context window by itself (no model call made, and not a compaction's
 * continuation, whose own message says how to cut it again): a resume sends
 * the same request, and there is nothing to compact. Null for any other run.
 */
export function firstRequestTooLongAdvice(state: RunState): string | null {
  if (state.counters.llm_calls > 0 || isContinuationPrompt(state.prompt)) return null;
  return 'a resume would send the same request, longer than the context window, and be refused again, so none is offered; start a new run with a shorter prompt, or use a model with a larger context window';
}
