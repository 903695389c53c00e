/**
 * The agent loop. Its write order is the durability argument:
 *   - the assistant record is durable before any of its tools runs, so a crash in
 *     the middle of a batch never pays for that model call again;
 *   - one tool_result record is written as each tool completes (tools of a turn
 *     run one at a time, in order), so a crash loses at most one tool;
 *   - a user record only for a free-standing chat follow-up;
 *   - the terminal record once, at the true end.
 * The loop's state is the fold of its durable records (recorder.ts), so a fresh
 * run and a resumed one are the same loop from different states.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import {
  LogbookError,
  REFUSAL_MESSAGE,
  awaitingApprovalMessage,
  redactUrlCredentials,
  timerDelay,
  invalidInputMessage,
  repeatedIdMessage,
  answerShortfall,
  shortfallText,
  restsOnRefusal,
  batchCalls,
  decodeRecord,
  interruptedCallMessage,
  isLogbookError,
  messageText,
  stoppedResult,
  requestInputTokens,
  toolUses,
  type Counters,
  type JournalRecord,
  type Message,
  type PendingTurn,
  type RunState,
  type TerminalReason,
  type ToolResultBody,
  type ToolUseBlock,
} from '../core/index.js';
import { contextWindowOf, RESUME_REMINDER, type Agent } from './agent.js';
import {
  checkInterruption,
  decideCall,
  policyOf,
  type BeforeToolCall,
  type InterruptedCallAction,
  type InterruptionChoice,
  unlessAborted,
} from './approvals.js';
import { compactionSettings, nothingToCompact, nothingToCompactError, type CompactionCause, type Continuation } from './compaction.js';
import type { Store } from '../store/store.js';
import type { LiveTextWriter } from '../store/live-text.js';
import type { SentCall, UnheldWhy } from '../store/run-notes.js';
import { noteCallCost, noteSent, type SentTicket } from './call-notes.js';
import { noteInstructions, withInstructions } from './instructions.js';
import { usdText, type PriceBook } from './prices.js';
import { journalUsage, type ModelResponse, type StreamObserver, type Usage } from './provider.js';
import type { Recorder } from './recorder.js';
import { awaitsAnswer, awaitsInput, spendCapReached, type SpendCap } from './run-rests.js';
import type { SnapshotMoment } from '../store/run-notes.js';
import type { WorkspaceSnapshots } from './workspace.js';
import { addCall, addCalls, addSpend, addUnheldCall, noSpend, type CallUsage, type Spend } from './spend.js';
import { AwaitingApproval, type OperatorAnswer, type ToolProgress } from './tools/tool.js';

/** A tool call as the model made it: `id`, `name`, and `input` as the JSON text it wrote. */
export type ToolCall = ToolUseBlock['tool_use'];

/** Progress, for narration. Every callback is optional. */
export interface RunObserver {
  /**
   * Each record, once it is durable (in order, the same records the journal
   * holds), with the time kept beside the journal for it (Store.times) where
   * the store knows it as it writes: the very value a later read gives.
   */
  record?(record: JournalRecord, time?: number): void;
  /** A model call starts (its iteration). */
  modelStart?(iteration: number): void;
  /**
   * The model's words as they stream. The deltas of one call, joined, are the
   * text of its assistant message as textOf joins it (and the thinking, its
   * non-empty thinking blocks joined by a newline), unless `restart` comes
   * between them, or the call ends in a refusal that the API streams apart
   * (Chat Completions' `refusal`). What is journaled is the message, never these.
   */
  text?(delta: string): void;
  /** A piece of thinking as it streams. */
  thinking?(delta: string): void;
  /** The model call in flight is being made again (a retry): what streamed of it is void. */
  restart?(): void;
  /** What the model call in flight has spent so far, where its provider reports it as it streams (StreamObserver.onUsage). */
  streamUsage?(usage: Usage): void;
  /**
   * The model call's answer has all come, and its record is journaled next:
   * what streamed of it can be shown whole now, not once the record is durable.
   */
  streamEnd?(): void;
  /**
   * A chat's operator stopped the model's answer (ChatInput.answering): nothing
   * of it was journaled, and the chat waits for its next turn.
   */
  answerStopped?(): void;
  /**
   * A model call failed, or gave way to a suspend: what streamed of it is void.
   * `chatGoesOn`: a chat with its operator at hand takes the failure back to its
   * prompt (ChatInput.operator), nothing journaled and the turn unanswered;
   * otherwise the run ends on it.
   */
  modelFailed?(error: unknown, chatGoesOn: boolean): void;
  /** An assistant turn, once it is durable. */
  assistant?(message: Message, usage: Usage, stopReason: string): void;
  /** A tool starts running (`resolved`: what it runs, a command line, when its tool can say). */
  toolStart?(call: ToolCall, resolved: string | undefined): void;
  /** A tool result, once it is durable. */
  toolEnd?(call: ToolCall, result: ToolResultBody): void;
  /** A journaled result reused on resume instead of running the tool again. */
  toolReused?(call: ToolCall, result: ToolResultBody): void;
  /** What a tool reports while it runs (another agent's events, for a call that asks it a task). */
  toolProgress?(call: ToolCall, progress: ToolProgress): void;
  /**
   * A chat's operator stopped the batch's tools (ChatInput.toolsRunning): each
   * call without a result was answered as stopped (its toolEnd came), the batch
   * is whole, and the chat waits for its next turn, which the model reads with
   * the stopped results.
   */
  toolsStopped?(calls: ToolCall[]): void;
  /** A call answered without running its tool (denied, not re-run after an interruption, stopped before it ran); toolEnd follows. */
  toolWithheld?(call: ToolCall, resolved: string | undefined, result: ToolResultBody): void;
  /** Something the operator should know that stops nothing (a turn cut at max_tokens, a call not run). */
  warning?(message: string): void;
  /** A chat waits for its next typed turn. */
  awaitingInput?(): void;
  /** A compaction begins: the summary call is made. */
  compacting?(cause: CompactionCause): void;
  /** The run was compacted: it goes on in its continuation, whose records follow; `from` is the compacted run as it ended. */
  compacted?(compaction: Compaction, from: RunState): void;
  /** What was spent, after each model call and at the start (when anything is priced). */
  spent?(spend: LiveSpend): void;
}

/** A compaction the run went through. */
export interface Compaction {
  /** The compacted run, and the seq of its last record before the cut. */
  from: string;
  at: number;
  /** The continuation, where the run goes on. */
  into: string;
  cause: CompactionCause;
  /** The summary call's input tokens: the conversation's size at the cut. */
  inputBefore: number;
}

/** What a run has spent so far, as it goes. */
export interface LiveSpend {
  /** This run's own calls. */
  run: Spend;
  /** The whole conversation's (every run of its lineage, summary calls included), when it was read. */
  conversation?: Spend;
}

/** What a run has spent when it starts or resumes, to go on counting from (AgentRun reads it). */
export interface SpendSetup {
  /** This run's own calls so far (a fork's copied ones are its origin's). */
  run: Spend;
  /** More of its own calls so far, not priced yet: they are priced with the run's next ones, when a spend is first read. */
  calls?: readonly CallUsage[];
  /** The other runs of its conversation, when they were read (lineage_budget_usd needs them). */
  others?: Spend;
}

/**
 * A chat's next step: a typed turn, `{ retry: true }` to ask the unanswered
 * turn again, `{ compact: true }` to compact the conversation here, or null
 * when the chat is over.
 */
export type ChatTurn = string | { retry: true } | { compact: true } | null;

/** A chat's typed turns, asked for one at a time. */
export interface ChatInput {
  /** The next turn typed, or null at end of input. */
  next(): Promise<ChatTurn>;
  /**
   * Called as each model call of the chat begins: aborting the returned
   * signal stops that call alone, and the run, still held, waits for the next
   * turn. `done` is called once the call has ended, either way.
   */
  answering?(): AnswerControl;
  /**
   * Called as a batch's tools begin to run: aborting the returned signal stops
   * the tool in flight (a command's process group, an MCP or remote call's
   * request) and every call of the batch after it; each is answered as stopped
   * by the operator, and the run, still held, waits for the next turn. `done`
   * is called once the batch has ended, either way.
   */
  toolsRunning?(): AnswerControl;
  /**
   * A person types the turns as the chat goes (a terminal): a model call the
   * API refused, or that kept failing, is then said and the chat waits for the
   * next turn, the failed one unanswered (the next turn joins it, a retry asks
   * it again), rather than ending the run. A scripted chat ends on it, so that
   * its exit code says so.
   */
  readonly operator?: boolean;
}

/** One model call's (or tool batch's) stop, distinct from the run's own signal (which suspends the run). */
export interface AnswerControl {
  /** Aborted to stop this model call alone. */
  readonly signal: AbortSignal;
  /** Told once the call has ended, answered or stopped. */
  done(): void;
}

/** How a run goes on: what observes it, what stops it, what answers it. */
export interface LoopOptions {
  observer?: RunObserver;
  /** Aborting it suspends the run: the record in progress finishes, the model call or tool in flight is dropped. */
  signal?: AbortSignal;
  /** A chat's follow-ups. */
  input?: ChatInput;
  /** Asked before each call of a tool whose policy says confirm; without it such a call suspends the run. */
  beforeToolCall?: BeforeToolCall;
  /**
   * Limits for this execution alone, below the agent's (a task's budget):
   * never above them, never journaled, and outside the fingerprint.
   */
  limits?: ExecutionLimits;
  /** The A2A request this run serves, when it is a task: what a task it starts names as its parent. */
  parentRequest?: string;
  /** Snapshots the run's workspace at each durable moment (workspace.ts); without it nothing is snapshotted. */
  workspace?: WorkspaceSnapshots;
}

/** One execution's limits (LoopOptions.limits): each only lowers the agent's. */
export interface ExecutionLimits {
  /** Model calls: at most the agent's maxIterations. */
  maxIterations?: number;
  /** Tokens (in + out) in all: at most the agent's budget. */
  budget?: number;
  /** How long one model call may take before it fails the run. */
  modelCallTimeoutMs?: number;
}

/**
 * What a run's signal is aborted with to have its suspended record say why (a
 * canceled task names who canceled it); without it a suspend says nothing, or
 * names the call it cut short.
 */
export class SuspendReason extends Error {
  override readonly name = 'SuspendReason';
}

/** How a run ended (each way is a result, not an error), with its state at the end. */
export interface RunResult {
  reason: TerminalReason;
  /** What stopped the run, for reason `error`, `budget` and `max_iterations`, and a suspend by a failure. */
  message?: string;
  /** For reason `error`, and `suspended` by a failure outside the run (a tool server): the error, its cause kept. */
  error?: LogbookError;
  /** True when a signal suspended the run (as opposed to a chat that was ended). */
  interrupted: boolean;
  /** The call the run was suspended before, awaiting its approval. */
  awaiting?: ToolCall;
  /** For reason `budget`: the cap it stopped at (`budget` in tokens, or a spend cap in USD). */
  cap?: SpendCap;
  /** The compactions the run went through, in order: `state` is the last continuation's. */
  compactions: Compaction[];
  /** What was spent (when anything is priced): priced when first read. */
  spend?: LiveSpend;
  /** The prose of the last assistant turn. */
  finalText: string;
  /** The run's state at its end: the fold of its records. */
  state: RunState;
  /** The committed conversation (state.messages). */
  messages: Message[];
  counters: Counters;
}

/** A message's prose: its text blocks, joined by newlines. */
export function textOf(message: Message | undefined): string {
  return messageText(message);
}

/** A meta line's `created`, as written. */
function createdOf(metaLine: string): string {
  const record = decodeRecord(metaLine);
  return 'meta' in record ? record.meta.created : '';
}

function interrupted(): LogbookError {
  return new LogbookError('interrupted', 'run suspended');
}

/** Suspends the run before or during a call, with the message that names it (core: call-facts). */
class CallSuspend extends Error {
  constructor(
    message: string,
    /** Set when the run stops before the call for its approval. */
    readonly awaiting?: ToolCall,
  ) {
    super(message);
  }
}

/** A call's answer, and whether another agent gave it (its record then says `remote`). */
interface Answer {
  result: ToolResultBody;
  remote: boolean;
  /** The operator stopped it (ChatInput.toolsRunning). */
  stopped?: true;
}

interface Ending {
  message?: string | undefined;
  error?: LogbookError;
  awaiting?: ToolCall | undefined;
  cap?: SpendCap;
}

function isAbortError(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || (err as { code?: string }).code === 'ABORT_ERR');
}

/**
 * The failures of a model call a chat with its operator at hand goes on after:
 * the API's refusal (a request too long for the context window that was not
 * compacted among them), or an API that kept failing.
 */
function chatGoesOnAfter(err: unknown): boolean {
  return isLogbookError(err, 'provider_refused') || isLogbookError(err, 'context_exceeded') || isLogbookError(err, 'provider');
}

/**
 * The cap reached, if any, checked before each paid call (a model call, a
 * compaction's summary call): the token budget (`budget`: the agent's, or an
 * execution's lower one), the run's own spend (budget_usd), its
 * conversation's (lineage_budget_usd, when `spend` has it).
 */
export function capReached(agent: Agent, counters: Counters, budget: number | undefined, spend: () => LiveSpend | undefined): { message: string; cap: SpendCap } | null {
  const spent = counters.in_tokens + counters.out_tokens;
  if (budget !== undefined && spent >= budget) {
    return { cap: 'budget', message: `token budget spent: ${spent} of ${budget} tokens` };
  }
  // Read only for a cap on it: a run nobody asks the price of never loads the price table.
  const live = agent.budgetUsd !== undefined || agent.lineageBudgetUsd !== undefined ? spend() : undefined;
  const run = live?.run.usd;
  if (agent.budgetUsd !== undefined && run !== undefined && run >= agent.budgetUsd) {
    return { cap: 'budget_usd', message: `${spendCapReached('budget_usd')}this run spent ${usdText(run)} of ${usdText(agent.budgetUsd)}` };
  }
  const all = live?.conversation?.usd;
  if (agent.lineageBudgetUsd !== undefined && all !== undefined && all >= agent.lineageBudgetUsd) {
    return {
      cap: 'lineage_budget_usd',
      message: `${spendCapReached('lineage_budget_usd')}this conversation spent ${usdText(all)} of ${usdText(agent.lineageBudgetUsd)} over all its runs`,
    };
  }
  return null;
}

/** A compaction refused at a cap, before its summary call was paid (`budget_reached`, `spend_cap_reached`). */
export function capRefusal(reached: { message: string; cap: SpendCap }): LogbookError {
  return new LogbookError(reached.cap === 'budget' ? 'budget_reached' : 'spend_cap_reached', `${reached.message}; nothing was compacted`);
}

/** What was spent as a run goes on: its own, and its conversation's when the rest of it was read. */
export function liveSpendOf(setup: SpendSetup, book: PriceBook | null): LiveSpend {
  const run = setup.calls !== undefined && setup.calls.length > 0 ? addCalls(addSpend(noSpend(), setup.run), book, setup.calls) : setup.run;
  return { run, ...(setup.others !== undefined ? { conversation: addSpend(addSpend(noSpend(), setup.others), run) } : {}) };
}

export interface LoopSetup {
  agent: Agent;
  recorder: Recorder;
  /** A run taken up again from its journal: what changed in its workspace since it stopped is snapshotted before it goes on. */
  resumed: boolean;
  /** A run that goes on after an interruption (run.ts wasInterrupted): the model is told its tool results may be stale. */
  interrupted?: boolean;
  /** A user turn to journal first (the run waits for input; resumeRun checked it). */
  followUp?: string;
  /** What to do with the call a stop may have left running, when its tool has side effects (see approvals.ts). */
  interruption?: InterruptionChoice;
  /**
   * Compacts the run `recorder` holds into its continuation (compaction.ts),
   * letting the compacted run go; without it the run is never compacted.
   */
  compact?: (recorder: Recorder, cause: CompactionCause) => Promise<Continuation>;
  /** The iteration the run's model calls go on from when its own records have none yet (a continuation's: its origin's next). */
  iterationBase?: number;
  /** The compacted run this one continues (its first user turn is a summary of it), and the seq it was cut at. */
  continuation?: { from: string; at: number };
  /** A chat's continuation made at its prompt: it waits for the next typed turn before its first model call. */
  inputFirst?: boolean;
  /** A continuation's first request's input tokens, once it made one: what its summary and kept exchanges fill of the window. */
  firstInput?: number;
  /** What the run had spent when it started (none priced when absent). */
  spend?: SpendSetup;
  /** The run's meta `created`, as written: tools that name a call on the wire derive that name from it. */
  runCreated?: string;
  /** Where the run is journaled: its call notes (call-notes.ts) are kept beside it there. */
  store?: Store | null;
  /** The run's note keys as listed when it was taken up (Store.noteKeys): read by its first look at its notes, before it writes any. */
  noteKeys?: readonly string[];
}

/**
 * Runs until the run completes, stops at a limit, fails, or is suspended; the
 * terminal record is its last. Rejects, writing nothing, when the run may have
 * left a call with side effects running and `interruption` does not say what to
 * do with it (`interrupted_call`), or names another call (`unknown_call`).
 */
export function runLoop(setup: LoopSetup, options: LoopOptions = {}): Promise<RunResult> {
  return new Loop(setup, options).run();
}

/** One execution of a run: its state is the recorder's, the fold of its durable records. */
class Loop {
  private readonly agent: Agent;
  private readonly setup: LoopSetup;
  /** The run being written: a compaction replaces it with its continuation's. */
  private recorder: Recorder;
  private readonly observer: RunObserver;
  private readonly signal: AbortSignal;
  private readonly system: string;
  /** The meta `created` of the run being written (a continuation's once compacted). */
  private runCreated: string;
  /** The agent's limits, lowered by the execution's own. */
  private readonly maxIterations: number;
  private readonly budget: number | undefined;
  /** A chat grows its cap with every typed turn; only the position is journaled. */
  private cap: number;

  private followUpText: string | undefined;
  private interruption: InterruptionChoice | undefined;
  /** The calls of the last model turn whose input was not JSON, with what was wrong (the turn journals `{}` for them). */
  private invalidInputs: ReadonlyMap<string, string> = new Map();
  /** The operator stopped the last model call, or it failed in a chat that goes on: the next step is theirs, though the model has not answered. */
  private answerStopped = false;
  /** The run was compacted where the next step was the operator's: its continuation waits for the next typed turn. */
  private inputFirst: boolean;
  /** A continuation's first request's input: its summary and kept exchanges, which another compaction would not make smaller. */
  private firstInput: number | undefined;
  /** Whether the next request is the first after an interruption, which the resume reminder goes with. */
  private remind = false;
  /** The turn the resume reminder goes after, in every request of this execution (null: none). */
  private remindedTurn: Message | null = null;
  private warnedFull = false;
  /** The snapshots started, in order (snapshotAside); resolves once the last is noted. */
  private snapshotting: Promise<void> = Promise.resolve();
  /** The run and seq a resume's snapshot is owed after (takeResumeSnapshot): taken once the first request is answered. */
  private resumeSnapshotOwed: { runId: string; seq: number } | undefined;
  /** The seq of an answer whose snapshot is owed (snapshotOwedAnswer). */
  private answerSnapshotOwed: number | undefined;
  private warnedNotes = false;
  /** The run's note keys as listed when it was taken up, until its first look at its notes (noteInstructions). */
  private listedNotes: readonly string[] | undefined;
  private iterationBase: number;
  private readonly compactions: Compaction[] = [];
  /**
   * This run's own spend, and the other runs' of its conversation (when read).
   * The run's calls are priced when a spend is read (a cap, an observer of
   * `spent`, the result's `spend`), so that a run nobody asks the price of
   * never loads the price table: `unpriced` holds those not priced yet.
   */
  private runSpend: Spend;
  private readonly unpriced: CallUsage[];
  private othersSpend: Spend | undefined;

  constructor(
    setup: LoopSetup,
    private readonly options: LoopOptions,
  ) {
    this.followUpText = setup.followUp;
    this.interruption = setup.interruption;
    this.setup = setup;
    this.listedNotes = setup.noteKeys;
    this.agent = setup.agent;
    this.recorder = setup.recorder;
    this.observer = options.observer ?? {};
    this.signal = options.signal ?? new AbortController().signal;
    this.system = withInstructions(this.agent.system, this.agent.instructions);
    this.remind = setup.interrupted === true;
    this.iterationBase = setup.iterationBase ?? 0;
    this.inputFirst = setup.inputFirst === true;
    this.firstInput = setup.firstInput;
    this.runCreated = setup.runCreated ?? '';
    const limits = options.limits ?? {};
    this.maxIterations = Math.min(this.agent.maxIterations, limits.maxIterations ?? Infinity);
    this.budget = limits.budget === undefined ? this.agent.budget : Math.min(this.agent.budget ?? Infinity, limits.budget);
    this.cap = this.state.interactive ? this.nextIteration() + this.maxIterations : this.maxIterations;
    this.runSpend = setup.spend?.run ?? noSpend();
    this.unpriced = [...(setup.spend?.calls ?? [])];
    this.othersSpend = setup.spend?.others;
  }

  /**
   * The conversation as a request sends it: the journaled messages, with the
   * resume reminder after the last turn of the first request of an interrupted
   * run, kept on that same turn for every later request, so the prefix the
   * provider caches never changes under it. Never journaled.
   */
  private requestMessages(): Message[] {
    const messages = this.state.messages;
    if (this.remind && this.remindedTurn === null) {
      this.remind = false;
      const last = messages.at(-1);
      if (last?.role === 'user') this.remindedTurn = last;
    }
    const turn = this.remindedTurn;
    if (turn === null) return messages;
    return messages.map((m) => (m === turn ? { ...m, content: [...m.content, { text: { text: RESUME_REMINDER } }] } : m));
  }

  /** What stopped the run when its signal was aborted with a reason to give (SuspendReason). */
  private suspendReason(): string | undefined {
    const reason: unknown = this.signal.reason;
    return reason instanceof SuspendReason ? reason.message : undefined;
  }

  /** The run's state: the fold of the durable records of the run being written. */
  private get state(): RunState {
    return this.recorder.state;
  }

  /** The iteration of the next model call: after the last one journaled, and a continuation's after its origin's. */
  private nextIteration(): number {
    return Math.max(this.state.next_iteration, this.iterationBase);
  }

  /** This run's own spend, every call priced. */
  private get ownSpend(): Spend {
    if (this.unpriced.length > 0) addCalls(this.runSpend, this.agent.prices ?? null, this.unpriced.splice(0));
    return this.runSpend;
  }

  private get liveSpend(): LiveSpend {
    const run = this.ownSpend;
    return {
      run,
      ...(this.othersSpend !== undefined ? { conversation: addSpend(addSpend(noSpend(), this.othersSpend), run) } : {}),
    };
  }

  async run(): Promise<RunResult> {
    const { agent } = this;
    checkInterruption(this.state, agent.tools, this.interruption);
    await this.noteInstructions();
    if (agent.prices !== undefined) this.observer.spent?.(this.liveSpend);
    // What an interrupted tool, or anybody, changed since the run stopped is kept before any tool runs: the
    // snapshot is taken once the first request is answered (a model call changes nothing in the workspace),
    // or before whatever comes first that snapshots or waits for the snapshots (a tool, a typed turn, the end).
    if (this.setup.resumed && this.options.workspace !== undefined) this.resumeSnapshotOwed = { runId: this.state.run_id, seq: this.state.last_seq };
    try {
      for (;;) {
        const state = this.state;
        if (state.pending !== null) await this.completePending(state.pending);
        // A follow-up given to a run that owes an answer (a failed call) joins the unanswered turn, as a chat's next turn does.
        if (awaitsInput(state) || this.answerStopped || this.inputFirst || (this.followUpText !== undefined && awaitsAnswer(state))) {
          if (!state.interactive && this.followUpText === undefined) {
            // A refusal is the model's last word but no answer: the run ends as an error, as the reference journals it.
            return await (restsOnRefusal(state) ? this.finish('error', { message: REFUSAL_MESSAGE }) : this.finish('completed'));
          }
          await this.snapshotOwedAnswer();
          if (!(await this.followUp())) return await this.finish('suspended');
          if (this.inputFirst) continue; // compacted at the operator's word: the continuation waits for the next turn
        }
        if (this.signal.aborted) throw interrupted();
        if (this.nextIteration() >= this.cap) {
          return await this.finish('max_iterations', { message: `stopped after ${this.maxIterations} model calls (max_iterations)` });
        }
        const cap = this.capReached();
        if (cap !== null) return await this.finish('budget', cap);
        if (this.compactionDue()) {
          await this.compactNow('threshold');
          continue;
        }
        await this.callModel();
      }
    } catch (err) {
      if (err instanceof CallSuspend) return this.finish('suspended', { message: this.suspendReason() ?? err.message, awaiting: err.awaiting });
      if (this.isSuspend(err)) return this.finish('suspended', { message: this.suspendReason() });
      // A tool server that stopped answering leaves its call's outcome unknown: the run
      // waits, resumable, for the server to be fixed.
      if (isLogbookError(err, 'tool_server')) return this.finish('suspended', { message: err.message, error: err });
      const error = isLogbookError(err) ? err : new LogbookError('internal', err instanceof Error ? err.message : String(err), { cause: err });
      return this.finish('error', { message: error.message, error });
    }
  }

  /** Whether `err` is the model call or tool in flight giving way to a suspend. */
  private isSuspend(err: unknown): boolean {
    return this.signal.aborted && (isLogbookError(err, 'interrupted') || isAbortError(err));
  }

  private warn(message: string): void {
    this.observer.warning?.(message);
  }

  /** Snapshots the workspace after the last durable record; a failure is a warning (and a note), never the run's end. */
  private async snapshot(moment: SnapshotMoment): Promise<void> {
    this.snapshotAside(moment);
    await this.snapshotsDone();
  }

  /**
   * Starts a snapshot after the last durable record and goes on: what is done
   * meanwhile must not change the workspace (a model call), and snapshotsDone
   * is awaited before anything that may (a tool, a typed turn, the run's end).
   * Snapshots are taken one after the other, each of the seq it was asked at.
   */
  private snapshotAside(moment: SnapshotMoment, at: { runId: string; seq: number } = { runId: this.state.run_id, seq: this.state.last_seq }): void {
    const workspace = this.options.workspace;
    if (workspace === undefined) return;
    if (moment !== 'resume') this.takeResumeSnapshot();
    this.snapshotting = this.snapshotting.then(async () => {
      const warning = await workspace.snapshot(at.runId, at.seq, moment).catch((err: unknown) => String(err));
      if (warning !== null) this.warn(warning);
    });
  }

  /**
   * Begins the next snapshot's git work now, where nothing of the run changes
   * the workspace before that snapshot is asked (its record being written):
   * it is noted after its record, as any snapshot is. In the order of the
   * snapshots asked before it. Resolves a turn of the event loop later: the
   * git work's steps up to its process's spawn are chained promises, which
   * that turn takes, so git runs beside the record's write, whose fsync holds
   * the event loop, instead of being spawned after it.
   */
  private async beginSnapshot(): Promise<void> {
    const workspace = this.options.workspace;
    if (workspace?.begin === undefined) return;
    this.takeResumeSnapshot();
    this.snapshotting = this.snapshotting.then(() => workspace.begin!());
    await nextTurn();
  }

  /** Every snapshot started is noted (or its failure said), the resume's owed one included. */
  private snapshotsDone(): Promise<void> {
    this.takeResumeSnapshot();
    return this.snapshotting;
  }

  /**
   * Starts the resume's snapshot (of the workspace as the run found it, after
   * the seq it resumed at) if it is still owed: kept off the first request's
   * path (its git process and note), and taken before any other snapshot.
   */
  private takeResumeSnapshot(): void {
    const at = this.resumeSnapshotOwed;
    if (at === undefined) return;
    this.resumeSnapshotOwed = undefined;
    this.snapshotAside('resume', at);
  }

  /**
   * The snapshot of an answer that called no tools, owed until the run's next
   * step: when that is the run's end, the terminal record's snapshot is of the
   * same workspace (nothing of the run ran between the two records) and stands
   * for it; when it is waiting for a chat's next turn, it is taken first.
   */
  private async snapshotOwedAnswer(): Promise<void> {
    const seq = this.answerSnapshotOwed;
    this.answerSnapshotOwed = undefined;
    if (seq === undefined || seq !== this.state.last_seq) {
      await this.snapshotsDone();
      return;
    }
    await this.snapshot('answer');
  }

  /**
   * The terminal record, once, at the true end; failing to write it is a warning:
   * the run's work is durable. Its message never holds a URL's credentials: it
   * travels with the journal (copies, exports), wherever an error came from.
   */
  private async finish(reason: TerminalReason, ending: Ending = {}): Promise<RunResult> {
    const { state } = this;
    const { error, awaiting, cap } = ending;
    const message = ending.message === undefined ? undefined : redactUrlCredentials(ending.message);
    await this.beginSnapshot(); // nothing of the run changes the workspace from here: the end's snapshot is made while its record is written
    try {
      await this.recorder.append({ terminal: message ? { reason, message } : { reason } });
    } catch (err) {
      this.warn(`could not journal the run's end (${reason}): ${err instanceof Error ? err.message : String(err)}`);
    }
    // An answer's owed snapshot is this one's: nothing of the run ran between the two records.
    this.answerSnapshotOwed = undefined;
    await this.snapshot('end');
    const lastAssistant = [...state.messages].reverse().find((m) => m.role === 'assistant');
    const result: RunResult = {
      reason,
      interrupted: reason === 'suspended' && this.signal.aborted,
      finalText: textOf(lastAssistant),
      state,
      messages: state.messages,
      counters: state.counters,
      compactions: this.compactions,
    };
    if (message) result.message = message;
    if (error) result.error = error;
    if (awaiting) result.awaiting = awaiting;
    if (cap) result.cap = cap;
    if (this.agent.prices !== undefined) {
      // Priced when read, once: a run whose spend is not asked for prices nothing.
      let spend: LiveSpend | undefined;
      Object.defineProperty(result, 'spend', { enumerable: true, configurable: true, get: () => (spend ??= this.liveSpend) });
    }
    return result;
  }

  /**
   * Runs the pending turn's unanswered tools in order, journaling each; the last
   * result commits the turn. Results the journal holds are reused. In a chat the
   * operator may stop the batch (ChatInput.toolsRunning): the call in flight and
   * every one after it are answered as stopped, so the batch is whole, and the
   * next step is the operator's.
   */
  private async completePending(turn: PendingTurn): Promise<void> {
    await this.snapshotsDone(); // the workspace as the batch's tools find it is kept before the first runs
    const stop = this.state.interactive ? this.options.input?.toolsRunning?.() : undefined;
    const stopped: ToolCall[] = [];
    try {
      for (const { call, use, result: journaled } of batchCalls(turn)) {
        if (journaled !== undefined) {
          this.observer.toolReused?.(call, journaled);
          continue;
        }
        if (this.signal.aborted) throw interrupted();
        const problem = this.invalidInputs.get(call.id);
        const { result, remote, stopped: cut }: Answer =
          use > 1
            ? { result: this.repeatedId(call), remote: false }
            : problem !== undefined
              ? { result: this.invalidInput(call, problem), remote: false }
              : stop?.signal.aborted
                ? this.notStarted(call)
                : await this.answerOrStop(call, turn.iteration, stop?.signal);
        if (cut) stopped.push(call);
        // A tool that finished is journaled even if a suspend arrived meanwhile: its effects happened.
        await this.recorder.append({ tool_result: { tool_use_id: call.id, result, ...(remote ? { remote: true } : {}) } });
        this.observer.toolEnd?.(call, result);
      }
    } finally {
      stop?.done();
    }
    if (stopped.length === 0) return;
    this.answerStopped = true; // the next step is the operator's: the model reads the stopped results with it
    this.observer.toolsStopped?.(stopped);
  }

  /** A call after the one the operator stopped: answered as stopped, never run. */
  private notStarted(call: ToolCall): Answer {
    const result = stoppedResult(call.id, false);
    this.observer.toolWithheld?.(call, this.agent.tools.describe(call.name, call.input), result);
    return { result, remote: false, stopped: true };
  }

  /** The call's answer; answered as stopped when the operator's `stop` cut it short (a suspend still suspends). */
  private async answerOrStop(call: ToolCall, iteration: number, stop: AbortSignal | undefined): Promise<Answer> {
    try {
      return await this.answer(call, iteration, stop);
    } catch (err) {
      if (stop?.aborted !== true || this.signal.aborted || !(isLogbookError(err, 'interrupted') || isAbortError(err))) throw err;
      return { result: stoppedResult(call.id, true), remote: false, stopped: true };
    }
  }

  /** A call whose input was not JSON is not run (nor asked about): it is answered with an error that says what was wrong. */
  private invalidInput(call: ToolCall, problem: string): ToolResultBody {
    this.warn(`the model sent input for ${call.name} (call ${call.id}) that is not JSON; the call was not run and was answered with an error`);
    const result: ToolResultBody = { tool_use_id: call.id, content: invalidInputMessage(call, problem), is_error: true };
    this.observer.toolWithheld?.(call, undefined, result);
    return result;
  }

  /** A call that repeats an earlier call's id in its turn is not run: it is answered with an error that tells the model why. */
  private repeatedId(call: ToolCall): ToolResultBody {
    this.warn(`the model gave two tool calls the id ${call.id}; the repeat was not run and was answered with an error`);
    return { tool_use_id: call.id, content: repeatedIdMessage(call.id), is_error: true };
  }

  /** The call's result: its tool's, or the answer given instead of running it; or a suspend before it, for an approval. */
  private async answer(call: ToolCall, iteration: number, stop: AbortSignal | undefined): Promise<Answer> {
    const { tools } = this.agent;
    const resolved = tools.describe(call.name, call.input);
    const context = { runId: this.state.run_id, iteration, policy: policyOf(tools, call.name), resolved, signal: this.signal };
    const verdict = await decideCall(call, context, this.options.beforeToolCall, this.choiceFor(call));
    if ('suspend' in verdict) throw new CallSuspend(awaitingApprovalMessage(call), call);
    if ('answer' in verdict) {
      this.observer.toolWithheld?.(call, resolved, verdict.answer);
      return { result: verdict.answer, remote: false };
    }
    return this.runTool(call, iteration, resolved, stop);
  }

  /** The resume's choice for its interrupted call, taken once: only the first unanswered call can be it. */
  private choiceFor(call: ToolCall): InterruptedCallAction | undefined {
    const choice = this.interruption;
    if (choice?.callId !== call.id) return undefined;
    this.interruption = undefined;
    return choice.action;
  }

  /**
   * What a running call asks (ToolContext.approve), put to the run's approval
   * hook as its call's approval is: the same answers, flags and question. No
   * hook, no answer now, or a suspend meanwhile: the run suspends awaiting the
   * call's approval (its resume runs the call again, which asks again).
   */
  private async approveWhileRunning(call: ToolCall, iteration: number, resolved: string | undefined, question: string): Promise<OperatorAnswer> {
    const hook = this.options.beforeToolCall;
    const policy = { ...policyOf(this.agent.tools, call.name), confirm: true };
    const context = { runId: this.state.run_id, iteration, policy, resolved, question, signal: this.signal };
    const decision = hook === undefined ? null : await unlessAborted(Promise.resolve(hook(call, context)), this.signal);
    if (decision === null || decision.action === 'suspend') throw new AwaitingApproval(question);
    return decision.action === 'allow' ? { approve: true } : decision.reason === undefined ? { approve: false } : { approve: false, reason: decision.reason };
  }

  /** Runs the call's tool. A suspend while it runs names it: it may have taken effect. */
  private async runTool(call: ToolCall, iteration: number, resolved: string | undefined, stop: AbortSignal | undefined): Promise<Answer> {
    this.observer.toolStart?.(call, resolved);
    const info = {
      runId: this.state.run_id,
      runCreated: this.runCreated,
      callId: call.id,
      ...(this.options.parentRequest !== undefined ? { parentRequest: this.options.parentRequest } : {}),
    };
    let outcome;
    try {
      outcome = await this.agent.tools.run(call.name, call.input, {
        signal: stop === undefined ? this.signal : AbortSignal.any([this.signal, stop]),
        call: info,
        onProgress: (progress) => this.observer.toolProgress?.(call, progress),
        approve: (question) => this.approveWhileRunning(call, iteration, resolved, question),
      });
    } catch (err) {
      if (err instanceof AwaitingApproval) throw new CallSuspend(awaitingApprovalMessage(call), call);
      if (this.isSuspend(err)) throw new CallSuspend(interruptedCallMessage(call));
      throw err;
    }
    const result: ToolResultBody = { tool_use_id: call.id, content: outcome.content };
    if (outcome.isError) result.is_error = true;
    return { result, remote: outcome.remote === true };
  }

  /**
   * Journals the next typed turn as a user record; false when the chat is over
   * (end of input, /exit, or a suspend). A retry journals nothing: the model is
   * asked the unanswered turn again. If the turn cannot be journaled the
   * session ends before it, so the journal stops at a coherent boundary.
   */
  private async followUp(): Promise<boolean> {
    const turn = await this.nextTurn();
    if (turn === null) return false;
    if (typeof turn !== 'string' && 'compact' in turn) {
      // Nothing since the last summary: compacting it again would pay a call to summarize the summary.
      const cap = this.capReached();
      if (nothingToCompact(this.state)) this.warn(`${nothingToCompactError(this.state).message}; type a turn first`);
      else if (cap !== null) this.warn(capRefusal(cap).message);
      else await this.compactNow('asked');
      return true;
    }
    if (typeof turn === 'string') {
      await this.recorder.append({ user: { message: { role: 'user', content: [{ text: { text: turn } }] } } });
      await this.snapshot('input');
    }
    this.answerStopped = false;
    this.inputFirst = false;
    this.cap = this.nextIteration() + this.maxIterations;
    return true;
  }

  /**
   * The next non-empty chat turn, or null when the chat is over; a follow-up
   * given up front comes first. A retry counts only while a turn is unanswered.
   */
  private async nextTurn(): Promise<Exclude<ChatTurn, null> | null> {
    if (this.followUpText !== undefined) {
      const text = this.followUpText;
      this.followUpText = undefined;
      return text;
    }
    const { input } = this.options;
    const { signal } = this;
    if (input === undefined) return null;
    for (;;) {
      this.observer.awaitingInput?.();
      const aborted = new Promise<null>((resolve) => {
        if (signal.aborted) resolve(null);
        signal.addEventListener('abort', () => resolve(null), { once: true });
      });
      const turn = await Promise.race([input.next(), aborted]);
      if (turn === null || signal.aborted) return null;
      if (typeof turn !== 'string') {
        if ('compact' in turn) {
          if (this.setup.compact !== undefined) return turn;
          this.warn('this run cannot be compacted here');
        } else if (awaitsAnswer(this.state)) return turn;
      } else if (turn.trim() !== '') {
        return turn;
      }
    }
  }

  /** The cap the run has reached, if any (capReached). */
  private capReached(): { message: string; cap: SpendCap } | null {
    return capReached(this.agent, this.state.counters, this.budget, () => this.liveSpend);
  }

  /**
   * Whether the last request's input passed `compact_at` of the context
   * window, so the run is compacted before the next. Not a continuation whose
   * first request passed it already: compacting it again would keep the same
   * exchanges and loop, a summary call a turn; that is said once.
   */
  private compactionDue(): boolean {
    const { at } = compactionSettings(this.agent);
    if (this.setup.compact === undefined || at === false || this.state.last_input_tokens === 0) return false;
    const window = contextWindowOf(this.agent);
    if (window === undefined || this.state.last_input_tokens < at * window) return false;
    if (this.firstInput === undefined || this.firstInput < at * window) return true;
    if (!this.warnedFull) {
      this.warnedFull = true;
      this.warn(`run ${this.state.run_id} continues a compacted run whose summary and kept exchanges already fill ${Math.round((100 * this.firstInput) / window)}% of the context window, so it is not compacted again; lower keep_turns`);
    }
    return false;
  }

  /** Compacts the run here and goes on in its continuation. */
  private async compactNow(cause: CompactionCause): Promise<void> {
    const compact = this.setup.compact!;
    const from = this.state;
    this.observer.compacting?.(cause);
    const continuation = await compact(this.recorder, cause);
    const { note } = continuation;
    // The summary call is the compacted run's; the continuation's spend starts from nothing.
    const summary = noSpend();
    addCall(summary, this.agent.prices ?? null, from.fingerprint.provider, from.fingerprint.model, note.usage);
    // From here the conversation is more than the run being written: its spend is counted on, so what is shown is the conversation's.
    this.othersSpend = addSpend(addSpend(this.othersSpend ?? noSpend(), this.ownSpend), summary);
    this.runSpend = noSpend();
    this.recorder = continuation.recorder;
    this.runCreated = createdOf(continuation.metaLine);
    this.iterationBase = note.iteration;
    this.inputFirst = note.input_first === true;
    this.firstInput = undefined;
    this.invalidInputs = new Map();
    const compaction: Compaction = { from: continuation.from, at: note.at, into: note.into, cause, inputBefore: requestInputTokens(from.fingerprint.provider, note.usage) };
    this.compactions.push(compaction);
    this.observer.compacted?.(compaction, from);
    await this.noteInstructions();
    if (this.agent.prices !== undefined) this.observer.spent?.(this.liveSpend);
  }

  /** Notes beside the run which project instructions its model is given from here on, and says a change since it last ran; a note that cannot be kept is said. */
  private async noteInstructions(): Promise<void> {
    const store = this.setup.store;
    if (store == null) return;
    // The listing the run was taken up with holds its notes until it writes one: only the first look takes it.
    const keys = this.listedNotes;
    this.listedNotes = undefined;
    try {
      const changed = await noteInstructions(store, this.state.run_id, this.state.last_seq, this.agent.instructions, keys);
      if (changed !== null) this.warn(changed);
    } catch (err) {
      this.warn(`could not note which project instructions run ${this.state.run_id} is given (${err instanceof Error ? err.message : String(err)})`);
    }
  }

  /** Notes that a call is sent, before it is (call-notes.ts); a note that cannot be kept is said once, and the call goes on. */
  private async noteSent(call: SentCall): Promise<SentTicket | null> {
    const store = this.setup.store;
    if (store == null) return null;
    try {
      return await noteSent(store, this.state.run_id, call);
    } catch (err) {
      this.warnNotes(err);
      return null;
    }
  }

  /**
   * A sent call no record will hold: what it cost (its usage as the provider
   * reported it so far, else unknown) is noted beside the run and counted in
   * its spend, so the caps see it. A failed call the provider reported no
   * usage for cost nothing (call-notes.ts leaves it out).
   */
  private async unheldCall(ticket: SentTicket | null, streamed: Usage | undefined, why: UnheldWhy): Promise<void> {
    const usage = streamed === undefined ? null : journalUsage(streamed);
    if (ticket !== null) await noteCallCost(this.setup.store!, ticket, usage, why).catch((err: unknown) => this.warnNotes(err));
    if (why === 'failed' && usage === null) return;
    const { prices } = this.agent;
    if (prices === undefined) return;
    addUnheldCall(this.runSpend, prices, this.agent.provider.id, this.agent.provider.model, usage);
    this.observer.spent?.(this.liveSpend);
  }

  private warnNotes(err: unknown): void {
    if (this.warnedNotes) return;
    this.warnedNotes = true;
    this.warn(`could not keep a note of a model call beside run ${this.state.run_id} (${err instanceof Error ? err.message : String(err)}); a call stopped or cut may go uncounted in its spend`);
  }

  /**
   * A request refused as longer than the context window: the run is compacted
   * and the request made again, once, in the continuation (the loop goes on
   * there). A run that has made no model call yet (a prompt too long by
   * itself, or a continuation whose summary and kept exchanges are) is not
   * compacted again, which would loop: it fails with `context_exceeded`.
   */
  private async compactForLength(refusal: LogbookError): Promise<void> {
    const { state } = this;
    if (this.setup.compact === undefined) throw refusal;
    if (compactionSettings(this.agent).at === false) {
      // Compaction is off, but the run can be compacted on demand: the run is named, so the command can say how.
      throw new LogbookError('context_exceeded', `${refusal.message}; the config turns compaction off (compact_at: false)`, { cause: refusal, details: { runId: state.run_id } });
    }
    if (state.counters.llm_calls === 0) {
      const cut = this.compactions.at(-1) ?? this.setup.continuation;
      // Its first turn is all it holds, so only a new cut of the compacted run, keeping fewer exchanges, makes it shorter.
      const what =
        cut !== undefined
          ? `run ${state.run_id} continues a compacted run, and its first turn (the summary and the exchanges kept word for word) is itself longer than the context window; lower keep_turns, then fork run ${cut.from} at seq ${cut.at}, where it was compacted, and resume the fork: it is compacted again, keeping fewer exchanges`
          : `the first request of run ${state.run_id} is longer than the context window by itself`;
      throw new LogbookError('context_exceeded', `${what} (${refusal.message})`, { cause: refusal });
    }
    this.warn(`the model API refused the conversation as longer than the context window; compacting run ${state.run_id} and asking again`);
    await this.compactNow('refused');
  }

  /**
   * One model call, its turn made durable before anything acts on it. In a
   * chat the operator may stop the call (ChatInput.answering): then nothing is
   * journaled and the loop goes back to the input, the run still held.
   */
  private async callModel(): Promise<void> {
    // What streams is shown to watchers until the call ends: its record replaces it, or nothing does.
    const live = this.setup.store?.liveText(this.state.run_id) ?? null;
    try {
      await this.callModelShown(live);
    } finally {
      await live?.end();
    }
  }

  private async callModelShown(live: LiveTextWriter | null): Promise<void> {
    const { agent, observer, state } = this;
    const stop = state.interactive ? this.options.input?.answering?.() : undefined;
    const signal = stop === undefined ? this.signal : AbortSignal.any([this.signal, stop.signal]);
    const iteration = this.nextIteration();
    observer.modelStart?.(iteration);
    const deadline = this.options.limits?.modelCallTimeoutMs;
    const timer = deadline === undefined ? null : AbortSignal.timeout(timerDelay(deadline));
    // Nothing of the run changes the workspace until the answer is handled: a process's look at it (the limits
    // walk, before its first `git add`) runs beside the request, its spawn beside the sent call's note's fsync.
    // A resumed run's first request is made without it: the resume's snapshot, owed until the answer begins,
    // looks first. That request is the whole conversation, made in a process holding it, where git's spawn (a
    // fork of that process, waited for until git runs) and git itself would compete with its making.
    if (this.resumeSnapshotOwed === undefined) this.options.workspace?.look?.();
    const ticket = await this.noteSent({ iteration });
    live?.begin(state.last_seq, iteration);
    let streamed: Usage | undefined;
    let response: ModelResponse;
    let readied = false;
    try {
      response = await agent.provider.complete(
        {
          system: this.system,
          messages: this.requestMessages(),
          tools: agent.tools.definitions(),
          maxTokens: agent.maxTokens,
          thinking: agent.thinking,
          promptCache: agent.promptCache,
          signal: timer === null ? signal : AbortSignal.any([signal, timer]),
        },
        joinedStream(
          observer,
          (usage) => {
            streamed = usage;
            if (readied) return;
            readied = true;
            this.options.workspace?.prepare?.(); // the answer has begun: the workspace is readied for the snapshot after its record
          },
          live,
          () => {
            // The request was sent: a long run's checkpoint is kept, and the resume's snapshot taken, while the answer comes.
            this.recorder.keepCheckpoint();
            this.takeResumeSnapshot();
          },
        ),
      );
    } catch (err) {
      const stopped = (stop?.signal.aborted === true || this.signal.aborted) && (isLogbookError(err, 'interrupted') || isAbortError(err));
      await this.unheldCall(ticket, streamed, stopped ? 'stopped' : 'failed');
      if (stop?.signal.aborted && !this.signal.aborted && (isLogbookError(err, 'interrupted') || isAbortError(err))) {
        this.answerStopped = true;
        observer.answerStopped?.();
        return;
      }
      let failure: unknown = err;
      if (isLogbookError(err, 'context_exceeded')) {
        try {
          await this.compactForLength(err);
          return;
        } catch (refused) {
          if (!isLogbookError(refused, 'context_exceeded')) throw refused;
          failure = refused; // not compacted (none is set, or the first request is too long by itself)
        }
      }
      if (timer?.aborted && !this.signal.aborted) {
        failure = new LogbookError('provider', `the model call did not finish within ${timerDelay(deadline!) / 1000} s (the call_timeout asked for)`, { cause: err });
      }
      const goesOn = state.interactive && this.options.input?.operator === true && !this.signal.aborted && chatGoesOnAfter(failure);
      observer.modelFailed?.(failure, goesOn);
      if (!goesOn) throw failure;
      this.answerStopped = true; // the next step is the operator's, the turn unanswered
      return;
    } finally {
      stop?.done();
    }
    observer.streamEnd?.();
    const { usage, message, stopReason } = response;
    this.invalidInputs = response.invalidToolInputs ?? new Map();
    const counts = journalUsage(usage);
    // A one-shot run ends on an answer that calls no tools: the end's snapshot is begun while its last records are written.
    if (toolUses(message).length === 0 && !state.interactive && this.followUpText === undefined && stopReason !== 'pause_turn') await this.beginSnapshot();
    await this.recorder.append({ assistant: { iteration, message, ...(stopReason ? { stop_reason: stopReason } : {}), ...counts } });
    // Durable, and no tool has run yet: the workspace as the turn's tools find it. An answer's is owed (snapshotOwedAnswer).
    if (toolUses(message).length > 0) await this.snapshot('tools');
    else this.answerSnapshotOwed = this.state.last_seq;
    const continues = this.compactions.length > 0 || this.setup.continuation !== undefined;
    if (continues && this.state.counters.llm_calls === 1) this.firstInput = this.state.last_input_tokens;
    if (agent.prices !== undefined) {
      // Priced as the model it was sent to: the configured one, which a forced resume may have changed since the meta was written.
      this.unpriced.push({ provider: agent.provider.id, model: agent.provider.model, usage: counts });
      if (observer.spent !== undefined) observer.spent(this.liveSpend);
    }
    observer.assistant?.(message, usage, stopReason);
    // A one-shot run ends on its answer, and its end says what the answer lacks; a chat goes on, so it is said here.
    const shortfall = state.interactive ? answerShortfall(state) : null;
    if (shortfall !== null) this.warn(shortfall === 'cut' ? `${shortfallText(shortfall, agent.maxTokens)}; ask for the rest, or raise max_tokens` : `${shortfallText(shortfall, agent.maxTokens)}; ask again`);
    // A chat goes on to the next typed turn, as the reference's does; a one-shot run ends on it (run()).
    if (state.interactive && restsOnRefusal(state)) this.warn('the model refused to respond; say it another way, or end the chat');
  }
}

/**
 * A provider's stream as the observer's text and thinking: the deltas of two
 * blocks are joined by a newline, as textOf joins a message's text blocks, so
 * what streamed is the text the message will hold. `onBegun`: at its first
 * event, once (the request was sent, and the answer is coming).
 */
function joinedStream(observer: RunObserver, onUsage: (usage: Usage) => void, live: LiveTextWriter | null, onBegun: () => void): StreamObserver {
  let textBlock: number | undefined;
  let thinkingBlock: number | undefined;
  let begun = false;
  const begin = (): void => {
    if (begun) return;
    begun = true;
    onBegun();
  };
  const text = (delta: string): void => {
    observer.text?.(delta);
    live?.text(delta);
  };
  const thinking = (delta: string): void => {
    observer.thinking?.(delta);
    live?.thinking(delta);
  };
  return {
    onText(delta, block) {
      begin();
      if (textBlock !== undefined && block !== textBlock) text('\n');
      textBlock = block;
      if (delta !== '') text(delta);
    },
    onThinking(delta, block) {
      begin();
      if (delta === '') return;
      if (thinkingBlock !== undefined && block !== thinkingBlock) thinking('\n');
      thinkingBlock = block;
      thinking(delta);
    },
    onRestart() {
      textBlock = undefined;
      thinkingBlock = undefined;
      observer.restart?.();
      live?.restart();
    },
    onUsage(usage) {
      begin();
      onUsage(usage);
      observer.streamUsage?.(usage);
    },
  };
}
