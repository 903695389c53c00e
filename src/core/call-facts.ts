/**
 * What the records tell about a tool call besides its result: that it awaits an
 * approval, was denied, was not re-run after an interruption, was stopped by
 * the operator (a chat's Esc while its tools run), or may have
 * started without its result being journaled. The record format has no field
 * for any of these, so each is a fixed text in a field it does have (a
 * suspended terminal record's message, an error result's content), written and
 * recognised here alone.
 */
import type { PendingTurn, RunState } from './fold.js';
import { toolUses, type ToolResultBody, type ToolUseBlock } from './records.js';

type Call = ToolUseBlock['tool_use'];

/** One call of a batch: its position among the calls with its id (1 for the first), and its journaled result if any. */
export interface BatchCall {
  call: Call;
  /** 1 for the id's first call in the turn, 2 for its repeat, ...; a repeat is answered without running. */
  use: number;
  result: ToolResultBody | undefined;
}

/**
 * The turn's calls in order, each with the result the journal holds for it. A
 * result answers the `use`-th call of its id, so a repeated id pairs up in order.
 */
export function batchCalls(turn: PendingTurn): BatchCall[] {
  const seen = new Map<string, number>();
  return toolUses(turn.assistant).map((call) => {
    const use = (seen.get(call.id) ?? 0) + 1;
    seen.set(call.id, use);
    let n = 0;
    const at = turn.answered.findIndex((id) => id === call.id && ++n === use);
    return { call, use, result: at < 0 ? undefined : turn.results[at] };
  });
}

/** The calls of the pending turn that have no result yet and would run (repeats of an id never run). */
export function unansweredCalls(state: RunState): Call[] {
  if (state.pending === null) return [];
  return batchCalls(state.pending)
    .filter((c) => c.result === undefined && c.use === 1)
    .map((c) => c.call);
}

/** The first call of the pending turn without a result: the only one a crash can have caught running. */
function firstUnanswered(state: RunState): BatchCall | undefined {
  return state.pending === null ? undefined : batchCalls(state.pending).find((c) => c.result === undefined);
}

// ---- suspends that name a call ---------------------------------------------

/** The suspended record's message when a run stops before `call` for an approval: the call has not started. */
export function awaitingApprovalMessage(call: Call): string {
  return `awaiting approval of call ${call.id} (${call.name})`;
}

/** The suspended record's message when a signal stopped the run while `call` ran: it may have taken effect. */
export function interruptedCallMessage(call: Call): string {
  return `interrupted during call ${call.id} (${call.name})`;
}

/** Whether the run ends on the suspend before `call` for its approval (a terminal record followed by others no longer counts). */
function isAwaiting(state: RunState, call: Call): boolean {
  return state.status === 'suspended' && state.terminal?.message === awaitingApprovalMessage(call);
}

/** The call the run was suspended before, to be approved: its last record says so. */
export function awaitedCall(state: RunState): Call | undefined {
  const first = firstUnanswered(state);
  return first !== undefined && isAwaiting(state, first.call) ? first.call : undefined;
}

/**
 * The call that may have started without its result being journaled. Tools of
 * a batch run one at a time, in order, so only the first unanswered call can
 * have; it did not when it repeats an id (never run) or when the run's last
 * record is the suspend before it for an approval. Anything else (a crash, a
 * signal, a failed append, an error) leaves it unknown, and unknown counts as
 * started. An approval is not journaled, so a run killed outright after one
 * still ends on that suspend: the resume then asks for the approval again.
 */
export function possiblyStartedCall(state: RunState): Call | undefined {
  const first = firstUnanswered(state);
  if (first === undefined || first.use > 1 || isAwaiting(state, first.call)) return undefined;
  return first.call;
}

// ---- results that were not the tool's --------------------------------------

const DENIED = 'denied by the operator';

const NOT_RERUN = 'not re-run after an interruption; whether it took effect is unknown';

/** What the model reads when the operator refuses a call: an error result, with the reason when one was given. */
export function deniedResult(callId: string, reason?: string): ToolResultBody {
  const why = reason?.trim();
  return { tool_use_id: callId, content: why ? `${DENIED}: ${why}` : DENIED, is_error: true };
}

/** The result of an interrupted call the operator chose not to run again. */
export function notRerunResult(callId: string): ToolResultBody {
  return { tool_use_id: callId, content: NOT_RERUN, is_error: true };
}

const STOPPED = 'stopped by the operator';

/**
 * The result of a call the operator stopped in a chat (Esc while its batch ran):
 * `running`, the call was cut short, and whether it took effect is unknown;
 * else it had not started, and never will.
 */
export function stoppedResult(callId: string, running: boolean): ToolResultBody {
  const content = running ? `${STOPPED} while it ran; whether it took effect is unknown` : `${STOPPED} before it ran; it was not run`;
  return { tool_use_id: callId, content, is_error: true };
}

/** What the model is told when its input for a call is not JSON: the call was not run, and why. */
export function invalidInputMessage(call: Pick<Call, 'name'>, problem: string): string {
  return `${NOT_RUN_CALL} of ${call.name} was not run: ${problem}. Call it again with its input as one JSON object that matches the tool's input_schema`;
}

/** What the model is told when it gives two calls of one turn the same id. */
export function repeatedIdMessage(id: string): string {
  return `${NOT_RUN_CALL} was not run: its id ${id} is the id of an earlier call in the same turn; give every tool call its own id`;
}

const NOT_RUN_CALL = 'this call';

/**
 * How a call was answered without its tool (or was cut short): `denied` by the
 * operator, `not_rerun` after an interruption, `stopped` by the operator in a
 * chat, refused as never run because its input was not JSON (`invalid_input`)
 * or its id repeats an earlier call's (`repeated_id`); undefined for a tool's
 * own result.
 */
export type WithheldKind = 'denied' | 'not_rerun' | 'stopped' | 'invalid_input' | 'repeated_id';

/** Whether a call answered so was never run, nor asked about: refused before its tool, counted apart from the tool calls. */
export function neverRun(kind: WithheldKind | undefined): boolean {
  return kind === 'invalid_input' || kind === 'repeated_id';
}

export function withheldKind(result: ToolResultBody): WithheldKind | undefined {
  if (result.is_error !== true) return undefined;
  if (result.content === DENIED || result.content.startsWith(`${DENIED}: `)) return 'denied';
  if (result.content === NOT_RERUN) return 'not_rerun';
  if (result.content.startsWith(`${STOPPED} `)) return 'stopped';
  if (/^this call (of \S+ )?was not run: /.test(result.content)) return result.content.includes(' is the id of an earlier call in the same turn;') ? 'repeated_id' : 'invalid_input';
  return undefined;
}
