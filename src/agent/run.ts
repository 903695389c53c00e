/**
 * Starting and resuming a run, for the CLI and for programs that embed logbook:
 * two calls, `startRun` (or `resumeRun`) and then `execute`. A resume reads and
 * gates without holding the run, then holds it, so inspecting a run never blocks
 * on its writer and a refused resume never disturbs one.
 */
import {
  LogbookError,
  VERSION,
  checkResume,
  encodeRecord,
  toolSetManifest,
  formatTimestamp,
  initialState,
  validateId,
  type Fingerprint,
  type MetaPayload,
  type ResumableRun,
  type ResumeRequest,
  type RunState,
  type ToolSetManifest,
} from '../core/index.js';
import { forkRun } from '../store/fork.js';
import type { Journal, LoadedState, RunPlace, Store } from '../store/store.js';
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
import { Recorder } from './recorder.js';
import { keepRemoteOrigins } from './remote-origins.js';
import { awaitsInput, runLoop, type LoopOptions, type RunResult, type ToolCall } from './runner.js';

export function newRunMeta(runId: string, fingerprint: Fingerprint, prompt: string, interactive: boolean, now = new Date()): MetaPayload {
  const meta: MetaPayload = { version: VERSION, run_id: runId, created: formatTimestamp(now), fingerprint, prompt };
  if (interactive) meta.interactive = true;
  return meta;
}

/** A run id from the clock and some randomness: sortable, unique enough, valid everywhere. */
export function generateRunId(now = new Date()): string {
  const stamp = formatTimestamp(now).replace(/[-:]/g, '').replace(/\..*$|Z$/, '').replace('T', '-');
  return `${stamp}-${Math.random().toString(36).slice(2, 8)}`;
}

/** How a run goes on: LoopOptions, and the answer for the call a stop may have left running. */
export interface ExecuteOptions extends LoopOptions {
  /** Asked first when the run has an interrupted call with side effects and no choice was made for it (resolveInterruptedCall). */
  onInterruptedCall?: OnInterruptedCall;
}

/**
 * A run ready to go on: started (startRun), resumed (resumeRun) or followed up
 * (followUpRun), and held, so no other writer can append to it, until
 * `execute` ends or `close` lets it go.
 */
export class AgentRun {
  private closed = false;
  private interruption: InterruptionChoice | undefined;

  /** Made by startRun, resumeRun and followUpRun. @internal */
  constructor(
    private readonly agent: Agent,
    /** The run's meta record as stored (the first line a reader of the journal sees). */
    readonly metaLine: string,
    /** The run's state: the fold of its records so far. */
    readonly state: RunState,
    private readonly journal: Journal | null,
    /** Whether it continues a journaled run (the model is then told results may be stale). */
    readonly resumed: boolean,
    /** What the operator should know before the run goes on. */
    readonly warnings: string[] = [],
    /** A user turn to begin with (a follow-up to a resumed run). */
    private readonly followUp?: string,
    /** The completed run this one continues, when followUpRun made it as a fork of that run. */
    readonly continuedFrom?: string,
  ) {}

  /** The run's id. */
  get id(): string {
    return this.state.run_id;
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
   * a result, not an error); the journal is let go at the end. Rejects, having
   * written nothing, when the run has an interrupted call with side effects
   * and no choice for it (`interrupted_call`).
   */
  async execute(options: ExecuteOptions = {}): Promise<RunResult> {
    if (this.closed) throw new LogbookError('journal_closed', `run ${this.id} was already executed or closed`);
    await this.askInterruption(options);
    const observer = options.observer;
    const recorder = new Recorder(this.state, this.journal, observer?.record?.bind(observer));
    try {
      const setup = {
        agent: this.agent,
        recorder,
        resumed: this.resumed,
        ...(this.followUp !== undefined ? { followUp: this.followUp } : {}),
        ...(this.interruption !== undefined ? { interruption: this.interruption } : {}),
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

  /** Lets the run go without executing it. Safe to call more than once. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.journal?.close();
  }
}

/** What startRun starts. */
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
  const warnings = store === null ? [] : [...(await keepToolSet(store, id, meta.fingerprint.tools_hash, agent)), ...(await keepRemoteOrigins(store, id, agent.tools))];
  if (store !== null && options.place !== undefined) warnings.push(...(await keepPlace(store, id, options.place)));
  return new AgentRun(agent, encodeRecord({ seq: 1, meta }), initialState({ seq: 1, meta }), journal, false, warnings);
}

/** The note beside a run that holds the tool set its fingerprint hashed. */
function toolSetNote(toolsHash: string): string {
  return `tools-${toolsHash.slice(0, 32)}`;
}

/**
 * Keeps the agent's tool set, tool by tool, beside the run, so that a resume
 * refused for a changed tool set can name the tools that changed. It is a
 * convenience: failing to keep it is a warning, not a failure.
 */
async function keepToolSet(store: Store, id: string, toolsHash: string, agent: Agent): Promise<string[]> {
  try {
    await store.putNote(id, toolSetNote(toolsHash), JSON.stringify(toolSetManifest(agent.tools.definitions())));
    return [];
  } catch (err) {
    return [`could not keep the tool set beside run ${id} (${err instanceof Error ? err.message : String(err)}); a resume refused for a changed tool set will not name the tools`];
  }
}

/** Keeps where the run was started beside it: a convenience too, so failing is a warning. */
async function keepPlace(store: Store, id: string, place: RunPlace): Promise<string[]> {
  try {
    await store.markPlace(id, place);
    return [];
  } catch (err) {
    return [`could not keep where run ${id} was started (${err instanceof Error ? err.message : String(err)}); \`logbook run -c\` from here will not find it (\`--resume ${id}\` will)`];
  }
}

/** The tool set the run's fingerprint hashed, when a note of it was kept. */
async function keptToolSet(store: Store, id: string, toolsHash: string): Promise<ToolSetManifest | null> {
  try {
    const text = await store.getNote(id, toolSetNote(toolsHash));
    return text === null ? null : (JSON.parse(text) as ToolSetManifest);
  } catch {
    return null; // without it the refusal just says the tool set changed
  }
}

/** How resumeRun resumes. */
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

/** What resumeRefusal judges a resume with. */
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
export async function resumeRefusal(store: Store, agent: Agent, run: ResumableRun, options: GateOptions = {}): Promise<LogbookError | null> {
  try {
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
 * resume never disturbs its writer.
 */
export function resumeRun(store: Store, agent: Agent, id: string, options: ResumeOptions = {}): Promise<AgentRun> {
  return resume(store, agent, id, options);
}

/** resumeRun, for a run that continues `continuedFrom` (followUpRun's fork). */
async function resume(store: Store, agent: Agent, id: string, options: ResumeOptions, continuedFrom?: string): Promise<AgentRun> {
  if (options.loaded !== undefined && options.loaded.state.run_id !== id) {
    throw new LogbookError('usage', `resumeRun was given run ${options.loaded.state.run_id} as read, to resume run ${id}`);
  }
  const loaded = options.loaded ?? (await store.loadState(id));
  const gates = await resumeRequest(store, agent, loaded.state, {
    ...(options.force !== undefined ? { force: options.force } : {}),
    ...(options.interactive !== undefined ? { interactive: options.interactive } : {}),
  });
  checkResume(loaded.state, gates);
  const journal = await store.open(id, { checkedThrough: loaded.lastSeq });
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
  if (options.followUp !== undefined && !awaitsInput(state)) {
    await journal.close();
    throw new LogbookError(
      'not_at_input',
      state.pending !== null ? `run ${id} is in the middle of a tool batch` : `run ${id} is not waiting for input (a model call is due)`,
      { details: { runId: id } },
    );
  }
  const warnings: string[] = await keepRemoteOrigins(store, id, agent.tools, true);
  if (state.pending === null && state.last_stop_reason === 'pause_turn') {
    warnings.push(
      `run ${id} rests on a paused turn; the server-side state it continues from may have expired, in which case the model starts that step over`,
    );
  }
  return new AgentRun(agent, metaLine, state, journal, true, warnings, options.followUp, continuedFrom);
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
 * and with `not_at_input` while the run is in the middle
 * of a tool batch or owes a model call: resume it first.
 */
export async function followUpRun(store: Store, agent: Agent, id: string, prompt: string, options: FollowUpOptions = {}): Promise<AgentRun> {
  if (prompt.trim() === '') throw new LogbookError('usage', 'a follow-up needs a prompt');
  const loaded = options.loaded ?? (await store.loadState(id));
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
    ...(options.now !== undefined ? { now: options.now } : {}),
    ...(options.place !== undefined ? { place: options.place } : {}),
  });
  try {
    return await resume(store, agent, fork.id, { ...gates, followUp: prompt }, id);
  } catch (err) {
    await store.delete(fork.id).catch(() => false); // a refused follow-up leaves no fork behind
    throw err;
  }
}
