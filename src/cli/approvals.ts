/**
 * The operator's side of the approval and interruption rules (src/agent/approvals.ts)
 * on the command line. A call that needs an approval is answered by --deny,
 * --approve, --yes, or a question on a terminal; with none of them the run
 * suspends before it. A resume whose interrupted call has side effects goes on
 * by --rerun or --skip, or a question on a terminal; with none of them it is
 * refused. Everything shown comes from the model, so it is sanitized.
 */
import { allowCall, checkInterruption, denyCall, interruptedCall, policyOf, suspendCall, type BeforeToolCall, type CallContext, type CallDecision } from '../agent/approvals.js';
import type { AgentRun } from '../agent/run.js';
import type { ToolCall } from '../agent/runner.js';
import type { ToolRegistry } from '../agent/tools/registry.js';
import { LogbookError, shellQuote, unansweredCalls, type RunState } from '../core/index.js';
import { formatCall, sanitizeLine } from '../render/index.js';
import { keyShown, type Questions } from './questions.js';

export interface ApprovalFlags {
  /** Call ids of the batch in flight to approve, or `all` for every call of it. */
  approve?: string[];
  /** Call ids of the batch in flight to deny, or `all` for every call of it not approved by id. */
  deny?: string[];
  /** Why, for --deny: the model reads it. */
  reason?: string;
  /** Approve every call of this invocation. */
  yes?: boolean;
  /** The interrupted call to run again. */
  rerun?: string;
  /** The interrupted call to skip. */
  skip?: string;
}

function usage(message: string): LogbookError {
  return new LogbookError('usage', message);
}

/** The flags' own consistency; `continuing` when the command resumes a run. */
export function checkApprovalFlags(flags: ApprovalFlags, continuing: boolean): void {
  const resumeOnly = (['approve', 'deny', 'rerun', 'skip'] as const).filter((f) => flags[f] !== undefined);
  if (!continuing && resumeOnly.length > 0) throw usage(`--${resumeOnly[0]} answers a journaled run: use it with --resume or --continue`);
  if (flags.reason !== undefined && flags.deny === undefined) throw usage('--reason goes with --deny CALL_ID');
  if (flags.rerun !== undefined && flags.skip !== undefined) throw usage('--rerun and --skip cannot be combined: the interrupted call is either run again or skipped');
  if (flags.approve?.includes('all') && flags.deny?.includes('all')) throw usage('--approve all and --deny all cannot be combined: name the calls of one of them');
  const both = (flags.approve ?? []).find((id) => flags.deny?.includes(id));
  if (both !== undefined) throw usage(`call ${both} is both approved and denied`);
}

/** --approve and --deny must name calls of the batch in flight that await an approval. */
export function checkApprovalTargets(state: RunState, tools: ToolRegistry, flags: ApprovalFlags): void {
  const open = unansweredCalls(state).filter((c) => policyOf(tools, c.name).confirm);
  const ids = [...(flags.approve ?? []), ...(flags.deny ?? [])].filter((id) => id !== 'all');
  for (const id of ids) {
    if (open.some((c) => c.id === id)) continue;
    const waiting = open.length > 0 ? `; the calls that do: ${open.map((c) => c.id).join(', ')}` : '';
    throw new LogbookError('unknown_call', `run ${state.run_id} has no call ${id} awaiting an approval${waiting}`);
  }
}

/** `--flag VALUE`, or `--flag=VALUE` when the value could be read as an option. */
function flagArg(flag: string, value: string): string[] {
  return value.startsWith('-') ? [`${flag}=${value}`] : [flag, value];
}

/** The commands that approve or deny the awaited call, built on the run's resume command. */
export function approvalCommands(resume: string, call: ToolCall): { approve: string; deny: string } {
  return {
    approve: sanitizeLine(`${resume} ${shellQuote(flagArg('--approve', call.id))}`),
    deny: sanitizeLine(`${resume} ${shellQuote([...flagArg('--deny', call.id), '--reason', 'TEXT'])}`),
  };
}

export function callTitle(call: ToolCall): string {
  return sanitizeLine(`${call.id} (${call.name})`);
}

/** The call as a person checks it before answering: what it runs and its whole input. */
function callDetails(call: ToolCall, resolved: string | undefined): string {
  const runs = resolved !== undefined ? `  runs   ${sanitizeLine(resolved)}\n` : '';
  return `${runs}  input  ${formatCall('', call.input.text).trimStart()}\n`;
}

export interface Presenter {
  /** Writes whole lines to stderr (above a spinner, if any). */
  show(text: string): void;
  /** Stops anything drawn in place (a spinner) before a question. */
  quiet(): void;
}

/** `y, yes, n or no`: the answers a question takes, for a person. */
function answerList(keys: readonly string[]): string {
  return keys.length <= 1 ? (keys[0] ?? '') : `${keys.slice(0, -1).join(', ')} or ${keys[keys.length - 1]}`;
}

/** A question's answers: each a key (one letter) and the word it stands for, which is what it answers. */
type Choices<T extends string> = readonly (readonly [key: string, word: T])[];

/**
 * Asks until one of `choices` is given, or null at end of input or a suspend.
 * On a terminal one key press answers (questions.choose); piped, a line with
 * the key or the word. Anything else is answered with the answers it takes,
 * and asked again.
 */
async function choose<T extends string>(questions: Questions, prompt: string, choices: Choices<T>, signal: AbortSignal, p: Presenter): Promise<T | null> {
  for (;;) {
    if (questions.choose !== undefined) {
      const key = await questions.choose(prompt, signal);
      if (key === null) return null;
      const chosen = choices.find(([k]) => k === key.toLowerCase());
      if (chosen !== undefined) return chosen[1];
      p.show(`${keyShown(key, true)} is none of the answers: press ${answerList(choices.map(([k, word]) => `${k} (${word})`))}\n`);
      continue;
    }
    const line = await questions.ask(prompt, signal);
    if (line === null) return null;
    const typed = line.trim().toLowerCase();
    const chosen = choices.find(([key, word]) => typed === key || typed === word);
    if (chosen !== undefined) return chosen[1];
    p.show(`${JSON.stringify(sanitizeLine(line.trim()))} is not one of the answers: type ${answerList(choices.flatMap(([key, word]) => [key, word]))}\n`);
  }
}

/** A terminal question for one call that needs an approval. */
async function askApproval(call: ToolCall, context: CallContext, questions: Questions, p: Presenter): Promise<CallDecision | 'all'> {
  p.quiet();
  p.show(`approve call ${callTitle(call)}?\n${callDetails(call, context.resolved)}`);
  const answer = await choose(
    questions,
    '[y]es, [n]o, [a]ll (yes for the rest of this run): ',
    [['y', 'yes'], ['n', 'no'], ['a', 'all']] as const,
    context.signal,
    p,
  );
  if (answer === null) return suspendCall;
  if (answer === 'all') return 'all';
  if (answer === 'yes') return allowCall;
  const reason = await questions.ask('reason (optional, told to the model): ', context.signal);
  if (reason === null) return suspendCall;
  return denyCall(reason.trim() === '' ? undefined : reason.trim());
}

/**
 * The approval hook of one invocation. --approve and --deny answer the calls
 * of the batch the run resumed in (call ids are the model's and may come again
 * in later turns), a call named first, then `all`: --deny all with --approve X
 * denies all but X. --yes and the answer "all" approve every call from then on.
 */
export function approvalHook(state: RunState, flags: ApprovalFlags, questions: Questions | null, p: Presenter): BeforeToolCall {
  let approveAll = flags.yes === true;
  const resumedBatch = state.pending?.iteration;
  const approved = new Set(flags.approve ?? []);
  const denied = new Set(flags.deny ?? []);
  return async (call, context) => {
    const flagged = context.iteration === resumedBatch;
    if (flagged && denied.has(call.id)) return denyCall(flags.reason);
    if (flagged && approved.has(call.id)) return allowCall;
    if (flagged && denied.has('all')) return denyCall(flags.reason);
    if (approveAll || (flagged && approved.has('all'))) return allowCall;
    if (questions === null) return suspendCall;
    const answer = await askApproval(call, context, questions, p);
    if (answer !== 'all') return answer;
    approveAll = true;
    return allowCall;
  };
}

/**
 * Applies --rerun or --skip to the run's interrupted call. Without them, and
 * with no terminal to ask on, the resume is refused (`interrupted_call`), before
 * anything is shown or written.
 */
export function applyInterruptionFlags(run: AgentRun, tools: ToolRegistry, flags: ApprovalFlags, canAsk: boolean): void {
  if (flags.rerun !== undefined) run.resolveInterruptedCall(flags.rerun, 'rerun');
  else if (flags.skip !== undefined) run.resolveInterruptedCall(flags.skip, 'skip');
  else if (!canAsk) checkInterruption(run.state, tools, undefined);
}

/**
 * The resume command printed at a run's end, completed with the choice a call
 * with side effects the run may have left running needs (a terminal asks it).
 */
export function withInterruptionChoice(resume: string, state: RunState, tools: ToolRegistry): string {
  const call = interruptedCall(state, tools);
  if (call === undefined) return resume;
  const id = shellQuote([call.id]);
  return `${resume} --rerun ${id}, or --skip ${id} (call ${sanitizeLine(call.id)} (${sanitizeLine(call.name)}) may have taken effect)`;
}

/**
 * On a terminal: run the interrupted call again, skip it, or stop (the resume
 * is then refused as without a terminal). A stop signal or a hang-up at the
 * question leaves the run as it was: `interrupted`.
 */
export async function askInterruption(run: AgentRun, tools: ToolRegistry, questions: Questions, p: Presenter, signal: AbortSignal): Promise<void> {
  const call = run.interruptedCall;
  if (call === undefined) return;
  p.quiet();
  p.show(
    `call ${callTitle(call)} may have been running when the run stopped, and its tool has side effects: whether it took effect is unknown\n` +
      callDetails(call, tools.describe(call.name, call.input)),
  );
  const answer = await choose(
    questions,
    '[r]erun it, [s]kip it (the model is told it was not re-run), or s[t]op: ',
    [['r', 'rerun'], ['s', 'skip'], ['t', 'stop']] as const,
    signal,
    p,
  );
  if (answer === 'rerun' || answer === 'skip') run.resolveInterruptedCall(call.id, answer);
  else if (answer === null && signal.aborted) throw new LogbookError('interrupted', `stopped at the question; run ${sanitizeLine(run.id)} is as it was, and its next resume asks again`);
  else checkInterruption(run.state, tools, undefined);
}
