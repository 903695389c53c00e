/**
 * Whether a tool call runs, decided in one place for the loop, the CLI and
 * programs that embed logbook:
 *   - a call of a tool whose policy says `confirm` runs only once approved; a
 *     denial is journaled as an error result the model reads, an approval is
 *     not journaled (a crash before the result asks again), and with no one to
 *     ask the run suspends before the call;
 *   - the one call a stopped run may have left running (core: possiblyStartedCall)
 *     is not run again when its tool has side effects, unless the resume is told
 *     to re-run it (which also approves it) or to skip it (an error result
 *     saying so).
 */
import {
  LogbookError,
  deniedResult,
  notRerunResult,
  possiblyStartedCall,
  type RunState,
  type ToolResultBody,
} from '../core/index.js';
import type { ToolCall } from './runner.js';
import type { ToolRegistry } from './tools/registry.js';
import type { ToolPolicy } from './tools/tool.js';

/** The policy of a tool that declares none (and of a name no tool has): ask nothing, no side effects. */
export const NO_POLICY: ToolPolicy = { confirm: false, sideEffects: false };

export function policyOf(tools: ToolRegistry, name: string): ToolPolicy {
  return tools.get(name)?.policy ?? NO_POLICY;
}

/** An approval hook's answer for one call. */
export type CallDecision = { action: 'allow' } | { action: 'deny'; reason?: string } | { action: 'suspend' };

/** An approval: the call runs. */
export const allowCall: CallDecision = { action: 'allow' };
/** No answer yet: the run suspends before the call, journaled, for a resume to bring the answer. */
export const suspendCall: CallDecision = { action: 'suspend' };
/** A denial: the call does not run, and the model reads that it was denied, and why when a reason is given. */
export function denyCall(reason?: string): CallDecision {
  return reason === undefined ? { action: 'deny' } : { action: 'deny', reason };
}

/** What an approval hook is told of a call besides the call itself. */
export interface CallContext {
  runId: string;
  /** The iteration of the model turn that made the call (call ids are the model's, and may repeat across turns). */
  iteration: number;
  policy: ToolPolicy;
  /** What the call would run (a resolved command line), when its tool can say. */
  resolved: string | undefined;
  /** What the call, already running, asks to be approved (another agent's task waiting for input); absent before a call. */
  question?: string;
  /** Aborted when the run is being suspended: an answer still awaited is then not used. */
  signal: AbortSignal;
}

/**
 * Asked before each call of a tool whose policy says `confirm`. Without one,
 * such a call suspends the run (terminal record `suspended`, its message naming
 * the call), to be continued by a resume that brings the answer.
 */
export type BeforeToolCall = (call: ToolCall, context: CallContext) => CallDecision | Promise<CallDecision>;

/** What a resume does with an interrupted call that has side effects. */
export type InterruptedCallAction = 'rerun' | 'skip';

/** What an interrupted-call hook is told of the call besides the call itself. */
export interface InterruptedCallContext {
  runId: string;
  policy: ToolPolicy;
  /** What the call would run again (a resolved command line), when its tool can say. */
  resolved: string | undefined;
  /** Aborted when the run is being suspended: an answer still awaited is then not used. */
  signal: AbortSignal;
}

/**
 * Asked, before a resumed run goes on, what to do with the call its stop may
 * have left running, when that call's tool has side effects (AgentRun.interruptedCall):
 * run it again, skip it (the model reads that it was not re-run), or null to
 * decide nothing, and the run does not go on (`interrupted_call`).
 */
export type OnInterruptedCall = (
  call: ToolCall,
  context: InterruptedCallContext,
) => InterruptedCallAction | null | Promise<InterruptedCallAction | null>;

export interface InterruptionChoice {
  callId: string;
  action: InterruptedCallAction;
}

/** What the loop does with a call about to run: run it, answer it without running it, or suspend before it. */
export type Verdict = { run: true } | { answer: ToolResultBody } | { suspend: true };

/** Settles with `answer`, or with null as soon as `signal` aborts. */
export function unlessAborted<T>(answer: Promise<T>, signal: AbortSignal): Promise<T | null> {
  if (signal.aborted) return Promise.resolve(null);
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(null);
    signal.addEventListener('abort', onAbort, { once: true });
    answer.then(
      (v) => (signal.removeEventListener('abort', onAbort), resolve(v)),
      (e: unknown) => (signal.removeEventListener('abort', onAbort), reject(e)),
    );
  });
}

/**
 * The verdict on a call about to run. `choice` is the resume's decision on the
 * interrupted call, when this is that call. A suspend that arrives while an
 * approval is awaited suspends before the call: it has not started.
 */
export async function decideCall(call: ToolCall, context: CallContext, hook: BeforeToolCall | undefined, choice?: InterruptedCallAction): Promise<Verdict> {
  if (choice === 'skip') return { answer: notRerunResult(call.id) };
  if (choice === 'rerun' || !context.policy.confirm) return { run: true };
  if (hook === undefined) return { suspend: true };
  const decision = await unlessAborted(Promise.resolve(hook(call, context)), context.signal);
  if (decision === null || decision.action === 'suspend') return { suspend: true };
  if (decision.action === 'deny') return { answer: deniedResult(call.id, decision.reason) };
  return { run: true };
}

/** The call a resume must not run again unasked: it may have started, and its tool has side effects. */
export function interruptedCall(state: RunState, tools: ToolRegistry): ToolCall | undefined {
  const call = possiblyStartedCall(state);
  return call !== undefined && policyOf(tools, call.name).sideEffects ? call : undefined;
}

/**
 * Refuses to go on from `state` while its interrupted call (if any) has no
 * choice made for it, or the choice names another call.
 */
export function checkInterruption(state: RunState, tools: ToolRegistry, choice: InterruptionChoice | undefined): void {
  const call = interruptedCall(state, tools);
  if (call !== undefined && choice === undefined) {
    throw new LogbookError(
      'interrupted_call',
      `run ${state.run_id} stopped while call ${call.id} (${call.name}) may have been running, and that tool has side effects, ` +
        'so whether it took effect is unknown',
      { details: { runId: state.run_id, callId: call.id } },
    );
  }
  if (choice !== undefined && choice.callId !== call?.id) {
    throw new LogbookError(
      'unknown_call',
      call === undefined
        ? `run ${state.run_id} has no interrupted call with side effects to ${choice.action === 'rerun' ? 're-run' : 'skip'} (${choice.callId})`
        : `call ${choice.callId} is not the interrupted call of run ${state.run_id}: that is ${call.id} (${call.name})`,
    );
  }
}
