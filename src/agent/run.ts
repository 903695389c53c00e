/**
 * Starting and resuming a run, for the CLI and for programs that embed logbook:
 * two calls, `startRun` (or `resumeRun`) and then `execute`. A resume reads and
 * gates without holding the run, then holds it, so inspecting a run never blocks
 * on its writer and a refused resume never disturbs one.
 */
import { LogbookError, awaitedCall, checkResume, decodeRecord, encodeRecord, toolSetManifest, initialState, validateId, type ResumableRun, type ResumeRequest, type RunState } from '../core/index.js';
import { forkRun } from '../store/fork.js';
import { listLineage, ownFrom } from '../store/lineage.js';
import type { CompactionNote } from '../store/run-notes.js';
import type { ForkOrigin, Journal, LoadedState, RunInfo, RunPlace, Store } from '../store/store.js';
import { fingerprintOf, type Agent } from './agent.js';
import {
  checkInterruption,
  interruptedCall,
  policyOf,
  unlessAborted,
  type InterruptedCallAction,
  type InterruptionChoice,
  type OnInterruptedCall,
} from './approvals.js';
import {
  CompactedError,
  awaitsTypedTurn,
  compact,
  compactedTerminal,
  compactionOf,
  firstRequestInput,
  handOff,
  inToolBatch,
  type CompactionCause,
  type Continuation,
} from './compaction.js';
import { Recorder } from './recorder.js';
import { keepRemoteOrigins } from './remote-origins.js';
import { generateRunId, keepRunNotes, keptToolSet, newRunMeta } from './run-meta.js';
import { awaitsAnswer, awaitsInput } from './run-rests.js';
import { capReached, capRefusal, liveSpendOf, runLoop, type LoopOptions, type RunObserver, type RunResult, type SpendSetup, type ToolCall } from './runner.js';
import { addCalls, CallTally, lineageSpendTallied, noSpend, runCalls } from './spend.js';

export { generateRunId, newRunMeta } from './run-meta.js';

/** What a run goes on with besides its state, when it has it. */
interface RunSetup {
  /** Where it is journaled, which compacting it needs. */
  store?: Store | null;
  /** A user turn to begin with (a follow-up to a resumed run). */
  followUp?: string;
  /** The iteration its model calls go on from (a continuation's: its origin's next). */
  iterationBase?: number;
  /** What it had spent, when anything is priced. */
  spend?: SpendSetup;
  /** The compacted run it continues, and the seq it was cut at. */
  continuation?: { from: string; at: number };
  /** A chat's continuation made at its prompt, with no turn since: it waits for the next typed turn. */
  inputFirst?: boolean;
  /** A continuation's first request's input tokens, when it made one. */
  firstInput?: number;
  /** The completed run this one continues, when followUpRun made it as a fork of that run. */
  continuedFrom?: string;
  /** It goes on from an interruption (wasInterrupted): the model is reminded its tool results may be stale. */
  interrupted?: boolean;
  /** Its note keys as listed when it was taken up (Store.noteKeys), before it wrote any. */
  noteKeys?: readonly string[];
}

/** How a run goes on: LoopOptions, and the answer for the call a stop may have left running. */
export interface ExecuteOptions extends LoopOptions {
  /** Asked first when the run has an interrupted call with side effects and no choice was made for it (resolveInterruptedCall). */
  onInterruptedCall?: OnInterruptedCall;
}

/**
 * A run ready to go on: started (startRun), resumed (resumeRun) or followed up
 * (followUpRun), and held, so no other writer can append to it, until
 * `execute` ends or `close` lets it go. A run compacted as it goes on
 * continues in its continuation: its state and id are then the continuation's.
 */
export class AgentRun {
  private closed = false;
  private interruption: InterruptionChoice | undefined;

  /** Made by startRun, resumeRun and followUpRun. @internal */
  constructor(
    private readonly agent: Agent,
    /** The run's meta record as stored (the first line a reader of the journal sees). */
    readonly metaLine: string,
    /** The run's state as it was started or resumed. */
    private readonly initial: RunState,
    private readonly journal: Journal | null,
    /** Whether it continues a journaled run (and was not started here). */
    readonly resumed: boolean,
    /** What the operator should know before the run goes on. */
    readonly warnings: string[] = [],
    private readonly setup: RunSetup = {},
  ) {}

  /** The journal held now: the run's, or once it was compacted, its continuation's. */
  private held: Journal | null = null;
  /** The state of the run being written: once it was compacted, its continuation's. */
  private current: RunState | null = null;

  /** The run's state: the fold of its records so far (once it was compacted, its continuation's). */
  get state(): RunState {
    return this.current ?? this.initial;
  }

  /** The run's id: once it was compacted, its continuation's. */
  get id(): string {
    return this.state.run_id;
  }

  /** The completed run this one continues, when followUpRun made it as a fork of that run. */
  get continuedFrom(): string | undefined {
    return this.setup.continuedFrom;
  }

  /**
   * Claims going on with the run (Journal.claim): false when another writer
   * that opened it at the same seq goes on with it; close this run then.
   */
  async claim(): Promise<boolean> {
    return this.journal === null ? true : this.journal.claim();
  }

  /** The run's meta `created`, as written. */
  get created(): string {
    const record = decodeRecord(this.metaLine);
    return 'meta' in record ? record.meta.created : '';
  }

  /**
   * Ends the run without executing it, suspended with `message` (a task whose
   * interrupted call needs an operator: the run waits for one). The journal is
   * let go; the run is resumable as any suspended run.
   */
  async suspend(message: string, observer?: Pick<RunObserver, 'record'>): Promise<RunResult> {
    if (this.closed) throw new LogbookError('journal_closed', `run ${this.id} was already executed or closed`);
    const recorder = new Recorder(this.state, this.journal, observer?.record?.bind(observer));
    try {
      await recorder.append({ terminal: { reason: 'suspended', message } });
      const { state } = this;
      return { reason: 'suspended', message, interrupted: false, finalText: '', state, messages: state.messages, counters: state.counters, compactions: [] };
    } finally {
      await this.close();
    }
  }

  /**
   * The call this run may have left running when it stopped, if its tool has
   * side effects and no choice was made for it yet: execute refuses
   * (`interrupted_call`) until `resolveInterruptedCall` says whether to run it
   * again or skip it.
   */
  get interruptedCall(): ToolCall | undefined {
    return this.interruption === undefined ? interruptedCall(this.state, this.agent.tools) : undefined;
  }

  /**
   * Runs the interrupted call again (which also approves it), or skips it: the
   * model then reads that it was not re-run and whether it took effect is
   * unknown. `unknown_call` when `callId` is not the interrupted call.
   */
  resolveInterruptedCall(callId: string, action: InterruptedCallAction): void {
    const choice = { callId, action };
    checkInterruption(this.state, this.agent.tools, choice);
    this.interruption = choice;
  }

  /**
   * Runs it until it completes, stops at a limit, fails or is suspended (each
   * a result, not an error); the journal is let go at the end. A run compacted
   * on the way goes on in its continuation: the result's state is the last
   * continuation's. Rejects, having written nothing, when the run has an
   * interrupted call with side effects and no choice for it (`interrupted_call`).
   */
  async execute(options: ExecuteOptions = {}): Promise<RunResult> {
    if (this.closed) throw new LogbookError('journal_closed', `run ${this.id} was already executed or closed`);
    await this.askInterruption(options);
    const observer = options.observer;
    const onRecord = observer?.record?.bind(observer);
    const recorder = new Recorder(this.state, this.journal, onRecord);
    this.held = this.journal;
    try {
      const { followUp, iterationBase, spend, continuation, inputFirst, firstInput, noteKeys } = this.setup;
      const setup = {
        agent: this.agent,
        recorder,
        resumed: this.resumed,
        ...(this.setup.interrupted === true ? { interrupted: true } : {}),
        runCreated: this.created,
        store: this.setup.store ?? null,
        compact: (from: Recorder, cause: CompactionCause) => this.compactHeld(from, cause, options.signal, onRecord, (m) => observer?.warning?.(m)),
        ...(followUp !== undefined ? { followUp } : {}),
        ...(this.interruption !== undefined ? { interruption: this.interruption } : {}),
        ...(iterationBase !== undefined ? { iterationBase } : {}),
        ...(spend !== undefined ? { spend } : {}),
        ...(continuation !== undefined ? { continuation } : {}),
        ...(inputFirst === true ? { inputFirst } : {}),
        ...(firstInput !== undefined ? { firstInput } : {}),
        ...(noteKeys !== undefined ? { noteKeys } : {}),
      };
      return await runLoop(setup, options);
    } finally {
      await this.close();
    }
  }

  /** The interrupted call's choice, from the hook when there is one to ask and no choice yet. */
  private async askInterruption(options: ExecuteOptions): Promise<void> {
    const call = this.interruptedCall;
    if (call === undefined || options.onInterruptedCall === undefined) return;
    const signal = options.signal ?? new AbortController().signal;
    const context = { runId: this.id, policy: policyOf(this.agent.tools, call.name), resolved: this.agent.tools.describe(call.name, call.input), signal };
    const action = await unlessAborted(Promise.resolve(options.onInterruptedCall(call, context)), signal);
    if (action !== null) this.resolveInterruptedCall(call.id, action);
  }

  /**
   * Compacts the run at its last record without running it (`logbook session
   * compact`): `in_tool_batch` inside a tool batch. Resolves to the
   * continuation's id; the run and the continuation are let go.
   */
  async compact(options: { signal?: AbortSignal } = {}): Promise<{ into: string; at: number }> {
    if (this.closed) throw new LogbookError('journal_closed', `run ${this.id} was already executed or closed`);
    if (this.state.pending !== null) {
      await this.close();
      throw inToolBatch(this.state);
    }
    // The summary call is paid: the caps are checked before it, as before any model call.
    const { spend } = this.setup;
    const reached = capReached(this.agent, this.state.counters, this.agent.budget, () => (spend === undefined ? undefined : liveSpendOf(spend, this.agent.prices ?? null)));
    if (reached !== null) {
      await this.close();
      throw capRefusal(reached);
    }
    this.held = this.journal;
    try {
      const continuation = await this.compactHeld(new Recorder(this.state, this.journal), 'asked', options.signal);
      // Its writer stops here without running it: it ends suspended, as any run its writer lets go, not interrupted.
      if (continuation.recorder.state.status === 'open') await continuation.recorder.append({ terminal: { reason: 'suspended' } });
      return { into: continuation.note.into, at: continuation.note.at };
    } finally {
      await this.close();
    }
  }

  /** Compacts the run `from` holds; the compacted run's journal is let go, the continuation's held in its place. */
  private async compactHeld(
    from: Recorder,
    _cause: CompactionCause,
    signal: AbortSignal | undefined,
    onRecord?: Parameters<typeof handOff>[2]['onRecord'],
    warn?: (message: string) => void,
  ): Promise<Continuation> {
    const store = this.setup.store ?? null;
    const continuation = await compact(from, {
      agent: this.agent,
      store,
      atPrompt: awaitsInput(from.state),
      ...(signal !== undefined ? { signal } : {}),
      ...(onRecord !== undefined ? { onRecord } : {}),
      ...(warn !== undefined ? { warn } : {}),
    });
    const previous = this.held;
    this.held = continuation.journal;
    this.current = continuation.recorder.state;
    await previous?.close();
    return continuation;
  }

  /** Lets the run go without executing it. Safe to call more than once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await (this.held ?? this.journal)?.close();
    if (this.held !== this.journal) await this.journal?.close();
  }
}

/** How startRun begins a run. */
export interface StartOptions {
  /** The run id; generated from the clock when absent. */
  id?: string;
  prompt: string;
  /** A chat: it asks for follow-ups (a chat may start without a prompt). */
  interactive?: boolean;
  now?: Date;
  /** Where it is started (the directory, the config file), kept beside it so a later `-c` from there finds it. */
  place?: RunPlace;
}

/**
 * Starts a run: its meta record (the agent's fingerprint, the prompt) is durable
 * in `store` before this returns. With a null store the run is not journaled:
 * its records are made and folded all the same, and stored nowhere.
 */
export async function startRun(store: Store | null, agent: Agent, options: StartOptions): Promise<AgentRun> {
  const interactive = options.interactive === true;
  if (options.prompt === '' && !interactive) throw new LogbookError('usage', 'a one-shot run needs a prompt');
  const id = options.id ?? generateRunId(options.now);
  validateId(id);
  const meta = newRunMeta(id, fingerprintOf(agent), options.prompt, interactive, options.now);
  const journal = store === null ? null : await store.create(id, meta);
  const warnings = store === null ? [] : await keepRunNotes(store, meta, agent, options.place);
  // A new run has spent nothing, and is the whole of its conversation.
  const spend = agent.prices !== undefined ? { spend: { run: noSpend(), ...(agent.lineageBudgetUsd !== undefined ? { others: noSpend() } : {}) } } : {};
  return new AgentRun(agent, encodeRecord({ seq: 1, meta }), initialState({ seq: 1, meta }), journal, false, warnings, { store, ...spend });
}

/** How resumeRun takes a run up again. */
export interface ResumeOptions {
  /** Resume despite configuration drift other than a provider change. */
  force?: boolean;
  /** Undefined: the interactivity the run was journaled with; anything else must match it. */
  interactive?: boolean;
  /**
   * A new user turn to continue with: allowed only where the run waits for one
   * (no pending tool batch, the model's turn finished), else `not_at_input`.
   */
  followUp?: string;
  /**
   * The run as the caller has just read it (store.loadState), so that it is
   * not read twice: as with the resume's own read, it is read again only when
   * it changed before the hold.
   */
  loaded?: LoadedState;
}

/** What the gates judge a resume of `run` by: the agent as configured now, and the options. */
async function resumeRequest(store: Store, agent: Agent, run: ResumableRun, options: GateOptions): Promise<ResumeRequest> {
  const fingerprint = fingerprintOf(agent);
  const recordedTools = run.fingerprint.tools_hash;
  return {
    fingerprint,
    interactive: options.interactive ?? run.interactive,
    force: options.force === true,
    ...(options.asNewRun === true ? { asNewRun: true } : {}),
    ...(recordedTools !== fingerprint.tools_hash
      ? { toolSets: { recorded: await keptToolSet(store, run.run_id, recordedTools), current: toolSetManifest(agent.tools.definitions()) } }
      : {}),
  };
}

/** What the resume gates are asked to allow (resumeRefusal, resumeRun). */
export interface GateOptions {
  /** As ResumeOptions.force. */
  force?: boolean;
  /** As ResumeOptions.interactive. */
  interactive?: boolean;
  /** A completed run is to go on as a new run (a follow-up forks it): see ResumeRequest.asNewRun. */
  asNewRun?: boolean;
}

/**
 * Why resumeRun would refuse run `run` with `agent` (the gates, in order, as a
 * resume runs them), or null when they let it through; judged from what a
 * listing reads of the run (RunInfo.fingerprint, foldStatus), without reading
 * it whole or holding it, so a choice among runs can leave out those this
 * configuration cannot go on with, and say why.
 */
export async function resumeRefusal(
  store: Store,
  agent: Agent,
  run: ResumableRun & { last_seq?: number },
  options: GateOptions = {},
): Promise<LogbookError | null> {
  try {
    const note = await compactionOf(store, run.run_id);
    // A compaction whose hand-off was finished refuses: its conversation goes on in the continuation.
    if (note !== null && (run.last_seq !== undefined ? run.last_seq > note.at : run.status !== 'open')) return new CompactedError(run.run_id, note.into, note.at);
    checkResume(run, await resumeRequest(store, agent, run, options));
    return null;
  } catch (err) {
    if (err instanceof LogbookError) return err;
    throw err;
  }
}

/**
 * Resumes a journaled run: the gates, in order, against the agent as
 * configured now (`already_completed`, `interactivity_mismatch`,
 * `provider_changed`, `config_drift`), then the hold (`locked` while another
 * writer has it). The run is read without holding it first, so a refused
 * resume never disturbs its writer. A compacted run is refused (`compacted`,
 * CompactedError: its conversation goes on in its continuation), unless its
 * compaction stopped before its hand-off was done: then the hand-off is
 * finished and the run goes on in its continuation, whose AgentRun this is.
 */
export function resumeRun(store: Store, agent: Agent, id: string, options: ResumeOptions = {}): Promise<AgentRun> {
  return resume(store, agent, id, options);
}

/** resumeRun, for a run that continues `continuedFrom` (followUpRun's fork). */
async function resume(store: Store, agent: Agent, id: string, options: ResumeOptions, continuedFrom?: string, originCalls?: CallTally): Promise<AgentRun> {
  if (options.loaded !== undefined && options.loaded.state.run_id !== id) {
    throw new LogbookError('usage', `resumeRun was given run ${options.loaded.state.run_id} as read, to resume run ${id}`);
  }
  // The calls are tallied as the run is read, so that what they cost is known without reading it again.
  const tally = options.loaded === undefined && agent.prices !== undefined ? new CallTally() : undefined;
  const loaded = options.loaded ?? (await store.loadState(id, { forWriting: true, calls: tally !== undefined }));
  if (options.loaded === undefined) tally?.addLoaded(loaded);
  const note = await compactionOf(store, id);
  if (note !== null && loaded.lastSeq !== note.at) throw new CompactedError(id, note.into, note.at);
  const gates = await resumeRequest(store, agent, loaded.state, {
    ...(options.force !== undefined ? { force: options.force } : {}),
    ...(options.interactive !== undefined ? { interactive: options.interactive } : {}),
  });
  checkResume(loaded.state, gates);
  const { journal, state, metaLine } = await hold(store, id, loaded, gates);
  if (note !== null) return finishHandOff(store, agent, journal, state, note, options);
  // Read again at the hold (another writer finished meanwhile): the tally is of the first read.
  return goOn(store, agent, journal, state, metaLine, options, [], continuedFrom, state.last_seq === loaded.lastSeq ? tally : undefined, originCalls);
}

/** Holds run `id`, read as `loaded`: read again, and judged again, when another writer finished between the read and the hold. */
async function hold(store: Store, id: string, loaded: LoadedState, gates: ResumeRequest): Promise<{ journal: Journal; state: RunState; metaLine: string }> {
  const journal = await store.open(id, { checkedThrough: loaded.lastSeq, ...(loaded.trail !== undefined ? { trail: loaded.trail } : {}) });
  let state = loaded.state;
  let metaLine = loaded.metaLine;
  try {
    if (journal.lastSeq !== loaded.lastSeq) {
      // Another writer finished between our read and our hold: read again, held.
      const reread = await store.loadState(id);
      checkResume(reread.state, gates);
      if (reread.lastSeq !== journal.lastSeq) {
        throw new LogbookError('locked', `run ${id} changed while it was being opened; try again`);
      }
      state = reread.state;
      metaLine = reread.metaLine;
    }
  } catch (err) {
    await journal.close();
    throw err;
  }
  return { journal, state, metaLine };
}

/** The run held, set to go on: a follow-up checked, its notes kept, what it spent read. */
async function goOn(
  store: Store,
  agent: Agent,
  journal: Journal,
  state: RunState,
  metaLine: string,
  options: ResumeOptions,
  warnings: string[] = [],
  continuedFrom?: string,
  tally?: CallTally,
  /** The calls of the run `continuedFrom` names, tallied as it was read (FollowUpOptions.calls). */
  originCalls?: CallTally,
): Promise<AgentRun> {
  const id = state.run_id;
  const origin = await store.forkOrigin(id).catch(() => null);
  const continuation = origin?.compacted === true ? { from: origin.from, at: origin.at } : undefined;
  // A run that owes the model's answer to a turn (its call failed) takes the follow-up too: the two user turns fold into one.
  if (options.followUp !== undefined && !awaitsInput(state) && !awaitsAnswer(state)) {
    await journal.close();
    throw new LogbookError(
      'not_at_input',
      state.pending !== null ? `run ${id} is in the middle of a tool batch` : `run ${id} is not waiting for input (the model's turn is paused)`,
      { details: { runId: id } },
    );
  }
  warnings.push(...(await keepRemoteOrigins(store, id, agent.tools, true)));
  if (state.pending === null && state.last_stop_reason === 'pause_turn') {
    warnings.push(
      `run ${id} rests on a paused turn; the server-side state it continues from may have expired, in which case the model starts that step over`,
    );
  }
  let iterationBase: number | undefined;
  let inputFirst = false;
  let firstInput: number | undefined;
  if (origin !== null && continuation !== undefined) {
    const note = await compactionOf(store, continuation.from);
    if (note !== null) {
      iterationBase = note.iteration;
      inputFirst = awaitsTypedTurn(note, state);
      warnings.push(...(await endOrigin(store, origin, note.into)));
      firstInput = state.counters.llm_calls === 0 ? undefined : ((await firstRequestInput(store, id).catch(() => null)) ?? undefined);
    }
  }
  // The run's notes listed once before its first request: what it spent and what its model was given are read from them.
  // Where its conversation is priced, they come with the listing of its runs.
  const conversation = conversationRuns(store, agent, id, origin);
  const noteKeys = (await conversation?.then((runs) => runs.find((run) => run.runId === id)?.noteKeys, () => undefined)) ?? (await store.noteKeys(id).catch(() => undefined));
  let spend: SpendSetup | undefined;
  try {
    spend = await spentSoFar(store, agent, id, origin, noteKeys, conversation, tally, continuedFrom !== undefined && originCalls !== undefined ? new Map([[continuedFrom, originCalls]]) : undefined);
  } catch (err) {
    await journal.close();
    throw err;
  }
  return new AgentRun(agent, metaLine, state, journal, true, warnings, {
    store,
    ...(noteKeys !== undefined ? { noteKeys } : {}),
    ...(options.followUp === undefined && wasInterrupted(state, origin) ? { interrupted: true } : {}),
    ...(options.followUp !== undefined ? { followUp: options.followUp } : {}),
    ...(iterationBase !== undefined ? { iterationBase } : {}),
    ...(spend !== undefined ? { spend } : {}),
    ...(continuation ? { continuation } : {}),
    ...(inputFirst ? { inputFirst } : {}),
    ...(firstInput !== undefined ? { firstInput } : {}),
    ...(continuedFrom !== undefined ? { continuedFrom } : {}),
  });
}

/**
 * Whether a run stopped in the middle of its work, so that what its journal
 * holds (tool results above all) may be stale when it goes on: a crash, a
 * signal, a failure or a limit. Not a run that rests where its operator left it
 * (a chat at its prompt, a call awaiting approval), nor a fork or a
 * continuation that has run nothing since it was made, nor a follow-up (the
 * caller's own new turn).
 */
function wasInterrupted(state: RunState, origin: ForkOrigin | null): boolean {
  if (origin !== null && state.last_seq === origin.at) return false;
  if (awaitsInput(state) || awaitedCall(state) !== undefined) return false;
  return true;
}

/**
 * The runs of run `id`'s conversation (listLineage), listed where what it
 * spent is priced with theirs (spentSoFar): with lineage_budget_usd, or when it
 * has an origin. Else undefined.
 */
function conversationRuns(store: Store, agent: Agent, id: string, origin: ForkOrigin | null): Promise<RunInfo[]> | undefined {
  if (agent.prices === undefined || (agent.lineageBudgetUsd === undefined && origin === null)) return undefined;
  return listLineage(store, id);
}

/**
 * What run `id` and, with lineage_budget_usd or when it has an origin (a
 * continuation, a fork), the rest of its conversation spent, so what is shown
 * of a continuation is the conversation's; undefined when nothing is priced.
 * The run's own calls (tallied as it was read, when `tally` is given, else
 * read again) are left to be priced when a spend is first read.
 */
async function spentSoFar(
  store: Store,
  agent: Agent,
  id: string,
  origin: ForkOrigin | null,
  noteKeys: readonly string[] | undefined,
  conversation: Promise<RunInfo[]> | undefined,
  tally?: CallTally,
  tallied?: ReadonlyMap<string, CallTally>,
): Promise<SpendSetup | undefined> {
  const prices = agent.prices;
  if (prices === undefined) return undefined;
  const calls = await runCalls(store, id, ownFrom(origin === null ? {} : { forkedFrom: origin }), tally, noteKeys);
  if (conversation === undefined) return { run: noSpend(), calls };
  const run = addCalls(noSpend(), prices, calls);
  const others = lineageSpendTallied(store, id, prices, new Set([id]), tallied ?? new Map(), conversation);
  // Without a cap on it, the conversation's spend is only shown: a run of it that cannot be read does not stop this one.
  if (agent.lineageBudgetUsd === undefined) return others.then(({ spend }) => ({ run, others: spend }), () => ({ run }));
  return { run, others: (await others).spend };
}

/**
 * A compaction that stopped before its hand-off was done: the continuation is
 * made under the id its note names (or taken as made), the compacted run
 * ends, and the run goes on in the continuation.
 */
async function finishHandOff(store: Store, agent: Agent, originJournal: Journal, originState: RunState, note: CompactionNote, options: ResumeOptions): Promise<AgentRun> {
  const id = originState.run_id;
  const origin = new Recorder(originState, originJournal);
  let continuation: Continuation;
  try {
    continuation = await handOff(origin, note, { agent, store });
  } finally {
    await originJournal.close();
  }
  return goOn(store, agent, continuation.journal!, continuation.recorder.state, continuation.metaLine, options, [
    `run ${id} was compacted into run ${note.into} at seq ${note.at} when it stopped; it goes on there`,
  ]);
}

/**
 * Ends a compacted run whose continuation is resumed before the compacted
 * run's terminal record was written (a crash just after the continuation was
 * made): a convenience, so failing is a warning.
 */
async function endOrigin(store: Store, origin: ForkOrigin, into: string): Promise<string[]> {
  try {
    const loaded = await store.loadState(origin.from);
    if (loaded.lastSeq !== origin.at) return [];
    const journal = await store.open(origin.from, { checkedThrough: loaded.lastSeq });
    try {
      await new Recorder(loaded.state, journal).append(compactedTerminal(into));
    } finally {
      await journal.close();
    }
    return [];
  } catch (err) {
    return [`could not end run ${origin.from}, which run ${into} continues compacted (${err instanceof Error ? err.message : String(err)}); resuming it finishes that`];
  }
}

/** How followUpRun follows up. */
export interface FollowUpOptions {
  /** The new run's id when a completed run is continued as one (default: generated); refused for a run that is not completed, which keeps its id. */
  newId?: string;
  /** As ResumeOptions.force. */
  force?: boolean;
  /** As ResumeOptions.interactive. */
  interactive?: boolean;
  /** As ResumeOptions.loaded. */
  loaded?: LoadedState;
  /**
   * The calls of run `id` as `loaded` was read (a CallTally given its calls: CallTally.addLoaded),
   * so that what a completed run's continuation shows of the conversation's
   * spend does not read it again (the CLI's; not part of the public API).
   * @internal
   */
  calls?: CallTally;
  /** Where the new run is started, when a completed run is continued as one (else the original's place, as forkRun keeps it). */
  place?: RunPlace;
  /** When a new run is made: its meta's created time, and its generated id. */
  now?: Date;
}

/**
 * Continues run `id` with a new user turn, `prompt`, as `logbook run --resume
 * ID PROMPT` does. A run that waits for input takes the turn; a completed run is
 * never appended to, so it is forked whole (the original stays as it is) and the
 * fork takes the turn: the run returned is then the new one (`continuedFrom`
 * names the original). Refused as resumeRun refuses, before any fork is made,
 * and with `not_at_input` while the run is in the middle of a tool batch:
 * resume it first. A run that owes the model's answer to its last turn (the
 * call failed) takes the turn too, joined to the unanswered one as the fold
 * joins two user records in a row.
 */
export async function followUpRun(store: Store, agent: Agent, id: string, prompt: string, options: FollowUpOptions = {}): Promise<AgentRun> {
  if (prompt.trim() === '') throw new LogbookError('usage', 'a follow-up needs a prompt');
  // Read here, its calls are tallied as it is read; read by the caller, they are what the caller tallied, if anything.
  const calls = options.loaded !== undefined ? options.calls : agent.prices !== undefined ? new CallTally() : undefined;
  const loaded = options.loaded ?? (await store.loadState(id, { forWriting: true, calls: calls !== undefined }));
  if (options.loaded === undefined) calls?.addLoaded(loaded);
  const gates = {
    ...(options.force !== undefined ? { force: options.force } : {}),
    ...(options.interactive !== undefined ? { interactive: options.interactive } : {}),
  };
  if (loaded.state.status !== 'completed') {
    if (options.newId !== undefined) {
      throw new LogbookError('usage', `run ${id} is not completed, so a follow-up continues it under its own id, not as ${options.newId}`, { details: { runId: id } });
    }
    return resumeRun(store, agent, id, { ...gates, followUp: prompt, loaded });
  }
  // Judged before the fork is made, so a refused follow-up leaves no fork behind.
  const refused = await resumeRefusal(store, agent, loaded.state, { ...gates, asNewRun: true });
  if (refused !== null) throw refused;
  const fork = await forkRun(store, id, {
    id: options.newId ?? generateRunId(options.now),
    // Forced past a change, the follow-up's own calls go to the configuration at hand: its meta says so, so they are priced as sent.
    ...(options.force === true ? { fingerprint: fingerprintOf(agent) } : {}),
    ...(options.now !== undefined ? { now: options.now } : {}),
    ...(options.place !== undefined ? { place: options.place } : {}),
  });
  try {
    return await resume(store, agent, fork.id, { ...gates, followUp: prompt }, id, calls);
  } catch (err) {
    await store.delete(fork.id).catch(() => false); // a refused follow-up leaves no fork behind
    throw err;
  }
}

/**
 * A chat going on with another agent (a chat's /model: another model of the
 * provider): the model is in the fingerprint, so it is never forced past, and
 * never written into run `id` (ended, suspended, by its chat): the
 * conversation goes on in a new run, a fork of `id` whole whose meta carries
 * `agent`'s fingerprint, linked to it as every fork is (one conversation,
 * lineage.ts), and resumed as a chat. Its copied records are `id`'s, priced
 * as they were; its own calls go to `agent`.
 */
export async function continueWithAgent(store: Store, agent: Agent, id: string, options: { place?: RunPlace; now?: Date } = {}): Promise<AgentRun> {
  const fork = await forkRun(store, id, {
    id: generateRunId(options.now),
    fingerprint: fingerprintOf(agent),
    ...(options.now !== undefined ? { now: options.now } : {}),
    ...(options.place !== undefined ? { place: options.place } : {}),
  });
  try {
    return await resume(store, agent, fork.id, { interactive: true }, id);
  } catch (err) {
    await store.delete(fork.id).catch(() => false); // a refused continuation leaves no run behind
    throw err;
  }
}
