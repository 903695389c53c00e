/**
 * How a run ended, where its terminal reason alone does not say: a model that
 * refused to answer ends the run as an error, as the reference journals it
 * (reason `error`, this message; the assistant record keeps the stop reason
 * `refusal`), and a canceled task ends it suspended, naming who canceled it;
 * everything that reports the end tells these apart from the records, here alone.
 */
import type { RunState } from './fold.js';
import { messageText, toolUses, type TerminalReason } from './records.js';

/** The terminal record's message for a run the model refused to answer, in the reference's words. */
export const REFUSAL_MESSAGE = 'model refused to respond';

/**
 * Whether the run rests on a turn the model ended by refusing: its last turn
 * stopped for `refusal` and called no tool, so it is the run's last word and
 * no answer.
 */
export function restsOnRefusal(state: RunState): boolean {
  return state.pending === null && state.last_stop_reason === 'refusal' && state.messages.at(-1)?.role === 'assistant';
}

/** Whether a run that ended for `reason`, with `message`, ended on the model's refusal (and not on a failure after it). */
export function endedOnRefusal(state: RunState, reason: TerminalReason, message: string | undefined): boolean {
  return reason === 'error' && message === REFUSAL_MESSAGE && restsOnRefusal(state);
}

const CANCELED = 'canceled by ';

/**
 * The suspended record's message when a task is canceled: who canceled it (an
 * agent's identity) and, when it said, why. The run is resumable like any
 * suspended one; the message alone tells a canceled end from another suspend.
 */
export function canceledMessage(by: string, reason?: string): string {
  const why = reason?.trim();
  return `${CANCELED}${by}${why ? `: ${why}` : ''}`;
}

/** Whether a suspended record's message says the run was canceled (canceledMessage). */
export function isCanceledMessage(message: string | undefined): boolean {
  return message !== undefined && message.startsWith(CANCELED) && message.length > CANCELED.length;
}

/** How a compaction's continuation begins its first turn (agent/compaction.ts continuationPrompt). */
export const CONTINUATION_HEAD = 'This conversation continues run ';

/** Whether a run's prompt is a continuation's first turn, a compaction's summary, rather than a prompt someone gave. */
export function isContinuationPrompt(prompt: string): boolean {
  return prompt.startsWith(CONTINUATION_HEAD);
}

/**
 * What is missing from the final answer a run rests on (its last turn, which
 * called no tool): `cut` when the model stopped at max_tokens, so the answer
 * ends where the limit fell; `empty` when it holds no text at all (a server's
 * `content: null`); null for a whole answer, or when the run does not rest on one.
 */
export function answerShortfall(state: RunState): 'cut' | 'empty' | null {
  const last = state.messages.at(-1);
  if (state.pending !== null || last?.role !== 'assistant' || toolUses(last).length > 0) return null;
  if (state.last_stop_reason === 'max_tokens') return 'cut';
  return messageText(last).trim() === '' && state.last_stop_reason !== 'refusal' ? 'empty' : null;
}

/** The shortfall of an answer in words, one text wherever it is said (`maxTokens`: the limit the run was made with). */
export function shortfallText(kind: 'cut' | 'empty', maxTokens: number): string {
  return kind === 'cut' ? `the model's answer was cut short at max_tokens (${maxTokens.toLocaleString('en-US')})` : "the model's answer was empty";
}
