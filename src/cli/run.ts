/**
 * `logbook run`: a one-shot run or a chat, journaled unless --ephemeral; the
 * continuation of a journaled one (--resume ID, --continue), with a follow-up
 * PROMPT when it waits for one. Argument handling and presentation only: the
 * run itself is startRun/resumeRun and execute.
 */
import { join } from 'node:path';
import { keepFetchParserBaseline } from './fetch-parser.js';
import { growYoungGenerationFaster } from './young-generation.js';
import { promptOf } from './stdio.js';
import { retryPolicyFromText } from '../agent/providers/retry.js';
import { contextWindowOf, fingerprintOf } from '../agent/agent.js';
import { CompactedError, compactionOf } from '../agent/compaction.js';
import { continueWithAgent, followUpRun, generateRunId, resumeRefusal, resumeRun, startRun, type AgentRun } from '../agent/run.js';
import type { Agent } from '../agent/agent.js';
import { WorkspaceTracker } from '../agent/workspace.js';
import { CallTally } from '../agent/spend.js';
import type { RunResult, ToolCall } from '../agent/runner.js';
import type { ToolRegistry } from '../agent/tools/registry.js';
import { apiKeyVariable } from '../agent/providers/settings.js';
import { agentFromConfig, agentWithModel, type AgentEnvironment } from '../config/agent.js';
import { LogbookError, RawJson, answerShortfall, encodeRecord, endedOnRefusal, shortfallText, isLogbookError, isValidId, shellQuote, validateId } from '../core/index.js';
import { resumeNarration, sanitizeLine } from '../render/index.js';
import { lastAlong } from '../store/lineage.js';
import { TASK_NOTE, encodeFailure, failureNoteKey, typedText } from '../store/run-notes.js';
import type { RunPlace, Store } from '../store/store.js';
import {
  applyInterruptionFlags,
  approvalCommands,
  approvalHook,
  askInterruption,
  callTitle,
  checkApprovalFlags,
  withInterruptionChoice,
  checkApprovalTargets,
  type ApprovalFlags,
  type Presenter,
} from './approvals.js';
import { withAdvice } from './advice.js';
import { chatHistory } from './chat-history.js';
import { chatInput, type ClosableChatInput } from './chat-input.js';
import type { RewindChoice, TypedTurn } from './chat-commands.js';
import type { LogbookConfig } from '../config/config.js';
import type { Environment } from './environment.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { StreamedText, type StreamTarget } from './answer.js';
import { liveObserver, type LiveObserver } from './live.js';
import { discoveryLabel, startLabel } from './mcp/start-label.js';
import { runOutput } from './run-output.js';
import { chooseRun, PickerCancelled, type Choosing } from './resume-target.js';
import { withOverrides } from './run-overrides.js';
import { resumeCommand, type ResumeFlags } from './resume-command.js';
import { terminalQuestions, type Questions } from './questions.js';
import { onSuspendSignals } from './signals.js';
import { requireConfig, storeFor } from './store.js';
import { terminalFor, terminalProse, type Terminal } from './terminal.js';
import { prepareTracing } from './tracing.js';
import { messageLine, sdkWarningSink } from './errors.js';
import type { LiveTrace } from '../otel/live.js';

export interface RunFlags extends ResumeFlags, ApprovalFlags {
  checkpoint?: boolean;
  ephemeral?: boolean;
  name?: string;
  /** An id (or a part of it), or true for a choice among the runs. */
  resume?: string | true;
  continue?: boolean;
  /** With --continue: every run of the store, not only those started here. */
  all?: boolean;
  force?: boolean;
  chat?: boolean;
  replay?: string;
  json?: boolean;
  tui?: boolean;
  color?: boolean;
  toolOutput?: boolean;
  verbose?: boolean;
  plain?: boolean;
}

/** The file of the state directory that keeps the price table's context windows (PriceBookOptions.windowMemo). */
const WINDOW_MEMO_FILE = 'context-windows.json';

/** How long /model waits for the provider's list of models. */
const MODEL_LIST_TIMEOUT_MS = 15_000;

function usage(message: string): LogbookError {
  return new LogbookError('usage', message);
}

/** Refuses combinations of flags that make no sense; `followUp`: a PROMPT was given. */
function checkFlags(flags: RunFlags, followUp: boolean): void {
  const continuing = flags.resume !== undefined || flags.continue === true;
  if (flags.resume !== undefined && flags.continue) throw usage('--resume and --continue cannot be combined: --continue picks the newest run');
  if (continuing && flags.name !== undefined && !followUp) {
    throw usage('--name names a new run; a continued run keeps its id (with a follow-up PROMPT, --name names the new run a completed one is continued as)');
  }
  if (continuing && flags.ephemeral) throw usage('--ephemeral runs are not journaled, so they cannot be continued');
  if (!continuing && flags.force) throw usage('--force only applies to --resume or --continue');
  if (flags.all && !flags.continue) throw usage('--all goes with --continue: it widens the runs -c looks at to the whole store');
  if (flags.ephemeral && flags.checkpoint) throw usage('--ephemeral runs are not journaled: drop --checkpoint');
  if (flags.ephemeral && flags.name !== undefined) throw usage('--ephemeral runs are not journaled, so they have no name: drop --name');
  if (flags.replay !== undefined && flags.replay !== 'all' && flags.replay !== 'tail') throw usage(`--replay takes all or tail, not ${flags.replay}`);
  if (typeof flags.resume === 'string' && !isValidId(flags.resume) && /\s/.test(flags.resume)) {
    throw usage(
      `--resume takes a run id (or a unique part of one), and ${JSON.stringify(flags.resume)} is not one: to follow up the newest run, ` +
        `logbook run -c ${JSON.stringify(flags.resume)}; to follow up a given run, logbook run --resume ID ${JSON.stringify(flags.resume)}`,
    );
  }
  if (typeof flags.resume === 'string') validateId(flags.resume);
  if (flags.name !== undefined && !isValidId(flags.name)) {
    try {
      validateId(flags.name);
    } catch (err) {
      throw usage(`--name: ${(err as Error).message}`);
    }
  }
  checkApprovalFlags(flags, continuing);
}

/** Questions can be put to the operator: stdin and stderr are a terminal. */
function onTerminal(): boolean {
  return process.stdin.isTTY === true && process.stderr.isTTY === true;
}

/** Where a run's output goes and whether an operator can be asked: the process's own, or a caller's (the web view continuing a run). */
export interface RunIo {
  /** The answer; with --json, the records. */
  stdout: NodeJS.WriteStream;
  /** Narration, notes, warnings and the one-line ends of a run stopped at a limit. */
  stderr: NodeJS.WriteStream;
  /** Whether questions can be put to an operator on a terminal. */
  canAsk(): boolean;
}

const PROCESS_IO: RunIo = { stdout: process.stdout, stderr: process.stderr, canAsk: onTerminal };

/**
 * Runs, or continues, a run as `logbook run` with these words and flags does.
 * `io` is the process's own unless a caller gives its own (the web view
 * continues a run exactly so, its output to the page).
 */
export async function executeRun(words: string[], flags: RunFlags, environment: Environment, io: RunIo = PROCESS_IO): Promise<ExitCode> {
  checkFlags(flags, words.length > 0);
  const config = withOverrides(requireConfig(flags.config, environment), flags);
  const err = terminalFor(io.stderr, { env: environment.env, ...(flags.color === false ? { color: false } : {}) });
  const output = await runOutput(
    { tui: flags.tui !== false, json: flags.json === true, plain: flags.plain === true, verbose: flags.verbose === true, color: flags.color !== false, env: environment.env },
    err,
    io,
  );
  const { progress } = output;
  const note = (text: string): void => progress.write(`${err.style.faint(text)}\n`);
  const presenter: Presenter = { show: (t) => progress.write(t), quiet: () => progress.stop() };

  let store: Store | null = null;
  let run: AgentRun | null = null;
  let input: ClosableChatInput | null = null;
  /** A chat started here and ended before a turn was typed: it is removed once let go (a run of nothing to continue). */
  let discard: string | undefined;
  let startedHere: string | undefined;
  let trace: LiveTrace | null = null;
  let stopServers = async (): Promise<void> => {};
  const suspend = onSuspendSignals((m) => note(m));
  try {
    // Loaded beside the agent, before the run starts: loading it never delays a step.
    const tracing = prepareTracing(config, environment, (m) => note(`warning: ${messageLine(m)}`)).catch(() => null);
    const agentEnvironment: AgentEnvironment = {
      env: environment.env,
      retry: retryPolicyFromText(environment.maxRetries, 'LOGBOOK_PROVIDER_MAX_RETRIES'),
      onRetry: (message) => note(sanitizeLine(message)),
      onWarning: sdkWarningSink(note, flags.verbose === true),
      ...(environment.scriptLog !== undefined ? { scriptLog: environment.scriptLog } : {}),
      signal: suspend.signal,
      onServers: (p) => progress.start(startLabel(p)),
      onAgents: (p) => (p.ready.length === 0 ? progress.start(discoveryLabel(p)) : progress.label(discoveryLabel(p))),
      // A journaled run keeps the price table's context windows in its state directory, so a resume need not load the table.
      ...(flags.ephemeral ? {} : { windowMemo: join(flags.stateDir ?? environment.defaultStateDir, WINDOW_MEMO_FILE) }),
    };
    const configured = await agentFromConfig(config, agentEnvironment).catch((err: unknown) => {
      if (!isLogbookError(err, 'interrupted')) throw err;
      return null; // stopped while the tool servers started: nothing was journaled
    });
    if (configured === null) {
      note('stopped while the tools were being gathered (MCP servers, other agents); nothing was journaled');
      return EXIT.suspended;
    }
    stopServers = configured.close;
    if (configured.agent.provider.id !== 'script') {
      keepFetchParserBaseline(); // a model over HTTP: see fetch-parser.ts
      // A run it goes on with is read and folded whole: Node's modules the run uses are loaded by now, fetch last (young-generation.ts).
      if (flags.resume !== undefined || flags.continue === true) growYoungGenerationFaster();
    }
    // A chat's /model goes on with another agent (another model), and the commands it advises name that model.
    let { agent } = configured;
    let goOnFlags: RunFlags = flags;
    const traceWith = await tracing;
    progress.stop();
    for (const n of configured.notes) progress.write(`${err.style.note(`note: ${sanitizeLine(n)}`)}\n`);
    // A store waiting for a stream leader says so on the spinner, timing the wait. A journal
    // append ends a model call or a tool run, whose spinner stops right after it anyway.
    const onWait = (waitingFor: string | null): void => (waitingFor === null ? progress.stop() : progress.start(waitingFor));
    if (!flags.ephemeral) store = await storeFor(environment, { config, stateDir: flags.stateDir, onWait });
    const place = { dir: process.cwd(), config: config.path };
    // The tools act where the command runs: that directory (or workspace.dir) is the one snapshotted.
    const workspace = store === null ? null : WorkspaceTracker.for(store, config.workspace, place.dir, environment.env.PATH);
    if (config.instructions) {
      const { findInstructions } = await import('../agent/instructions.js');
      const found = findInstructions(place.dir, (message) => note(`warning: ${message}`));
      if (found !== null) agent.instructions = found;
    }
    if (flags.resume !== undefined || flags.continue) {
      const presentation = { agent, err, note, progress: (t: string) => progress.write(t), presenter, signal: suspend.signal, place, config: config.path, identity: config.a2a.identity, canAsk: io.canAsk() };
      run = await continueRun(store!, flags, words, presentation).catch(async (err: unknown) => {
        if (err instanceof CompactedError) {
          throw new LogbookError('compacted', `${err.message}: ${await goOnCommand(store!, err.into, words, flags)}`, { cause: err, details: err.details });
        }
        if (!(err instanceof PickerCancelled) && (!suspend.signal.aborted || !isLogbookError(err, 'interrupted'))) throw withAdvice(err, { chat: flags.chat === true }); // a refused resume's advice depends on --chat
        note((err as Error).message); // stopped at the picker or a question: nothing was written
        return null;
      });
      if (run === null) return EXIT.suspended;
    } else {
      const interactive = flags.chat === true;
      const prompt = await promptOf(words, !interactive); // a chat reads its turns from stdin
      if (prompt === '' && !interactive) throw usage('no prompt: give it as arguments, pipe it on stdin, or use --chat');
      run = await startRun(store, agent, { prompt, interactive, place, ...(flags.name !== undefined ? { id: flags.name } : {}) });
      startedHere = run.id;
      if (store !== null) note(`run ${run.id} (${store.location})`);
    }
    const interactive = run.state.interactive;
    // run.id is the continuation's once the chat was compacted: what continues it is said when the chat ends.
    const resume = store !== null ? (): string => resumeCommand(run!.id, goOnFlags) : null;
    // The chat's /status reads what the live observer was last told.
    let live: LiveObserver | undefined;
    if (interactive) {
      const current = (): AgentRun => run!;
      const toggleToolOutput = (): void => live?.toggleToolOutput(current().state);
      const terminal =
        output.screen !== undefined
          ? {
              screen: output.screen,
              output: process.stderr,
              prompt: '> ',
              continuation: err.style.faint('\u2026 '),
              history: chatHistory(flags.stateDir ?? environment.defaultStateDir, place.dir, (m) => note(`warning: ${m}`), store !== null),
              toggleToolOutput,
            }
          : undefined;
      input = chatInput({
        ...(terminal !== undefined ? { terminal } : {}),
        write: (text) => progress.write(text),
        onExit: () => resume !== null && !nothingTyped(run!, startedHere) && note(`continue it later with: ${resume()}`),
        chat: {
          state: () => current().state,
          get model() {
            return `${agent.provider.id} ${agent.provider.model}`;
          },
          modelName: () => agent.provider.model,
          // The chat waits for the list: an API that does not answer is given up on, as a model call's stalled stream is.
          ...(agent.provider.listModels !== undefined ? { listModels: () => agent.provider.listModels!(AbortSignal.any([suspend.signal, AbortSignal.timeout(MODEL_LIST_TIMEOUT_MS)])) } : {}),
          store: store?.location ?? null,
          exportTo: (file) => exportChat(store, current(), file),
          spend: () => live?.spend,
          get contextWindow() {
            return contextWindowOf(agent);
          },
          forkNameRefusal: (name) => forkNameRefusal(store, name),
          toggleToolOutput,
          ...(store !== null
            ? {
                typedTurns: () => typedTurns(store!, current().id),
                ask: (question: string) => input!.ask(question, suspend.signal),
                say: (text: string) => progress.write(`${text}\n`),
                rewindFiles: (turn: TypedTurn) => rewindChatFiles(store!, current().id, turn, config, environment.env.PATH),
                rewindPlan: (turn: TypedTurn) => chatRewindPlan(store!, current().id, turn, config, environment.env.PATH),
              }
            : {}),
        },
      });
    }
    if (input !== null && output.screen !== undefined && process.stdin.isTTY) {
      note(`a chat with ${sanitizeLine(agent.provider.model)}: /help lists its commands and keys; Esc stops an answer or a tool, Ctrl-D ends the chat`);
    }
    // A turn given on the command line is shown (and kept for Up) as a typed one is.
    if (input !== null && words.length > 0) input.echo(words.join(' '));
    const questions: Questions | null = !io.canAsk() ? null : (input ?? terminalQuestions());
    const counters = run.state.counters;
    // With --json stdout is the record stream alone: the meta line first (the run's id), then each record as it becomes durable.
    if (flags.json) io.stdout.write(`${run.metaLine}\n`);
    live = liveObserver({
      err,
      progress,
      tools: agent.tools,
      toolOutput: flags.toolOutput === true,
      verbose: flags.verbose === true,
      tokens: counters.in_tokens + counters.out_tokens,
      answer: output.answer,
      ...(output.thinking !== undefined ? { thinking: output.thinking } : {}),
      showSpend: interactive || output.screen !== undefined,
      ...(Object.keys(toolAgentsOf(agent.tools)).length > 0 ? { taskView: (await import('./a2a/task-view.js')).taskView } : {}),
    });
    let result: RunResult;
    for (;;) {
      const started = run;
      let traced = traceWith?.follow(started, store, agent.tools) ?? null;
      trace = traced;
      const endedTraces: Promise<void>[] = [];
      result = await run.execute({
        signal: suspend.signal,
        ...(input !== null ? { input } : {}),
        beforeToolCall: approvalHook(run.state, flags, questions, presenter),
        ...(workspace !== null ? { workspace } : {}),
        observer: {
          ...live,
          record: (record) => {
            traced?.recorded(record, started.state);
            if (flags.json) io.stdout.write(`${encodeRecord(record)}\n`);
          },
          compacted: (compaction, from) => {
            live!.compacted?.(compaction, from);
            // A trace follows one run: the compacted run's ends, the continuation's begins (started is that run now).
            if (traced === null) return;
            endedTraces.push(traced.finish(from));
            traced = traceWith?.follow(started, store, agent.tools) ?? null;
            trace = traced;
          },
        },
      });
      await Promise.all(endedTraces);
      await traced?.finish(result.state);
      const fork = input?.forkRequested;
      if (fork === undefined || store === null || result.reason !== 'suspended' || result.interrupted) break;
      input!.resume();
      if (fork.model !== undefined) {
        const switched = await switchModel({ store, run, agent, startedHere, place, note, write: (t) => progress.write(t) }, () => agentWithModel(config, agentEnvironment, agent, fork.model!));
        run = switched.run;
        startedHere = switched.startedHere;
        if (switched.agent !== agent) {
          agent = switched.agent;
          goOnFlags = { ...goOnFlags, model: agent.provider.model };
        }
        continue;
      }
      // /fork, /drop: the run stays as it is (suspended, resumable), and the chat goes on in a fork of it.
      const from = run.id;
      let goOn = from;
      try {
        if (fork.rewind !== undefined) {
          goOn = await rewindChat(store, from, fork.rewind, fork.name ?? generateRunId(), config, environment.env.PATH, note);
        } else {
          const { forkRun } = await import('../store/fork.js');
          const forked = await forkRun(store, from, { id: fork.name ?? generateRunId(), place, ...(fork.drop ? { beforeTyped: true } : {}) });
          goOn = forked.id;
          note(
            fork.drop
              ? `the chat goes on in ${forked.id}, without the unanswered turn (run ${from} keeps it)`
              : `forked run ${from} as ${forked.id}; the chat goes on in ${forked.id}`,
          );
        }
      } catch (err) {
        if (!isLogbookError(err)) throw err;
        // Said where it was typed; the chat goes on in the run it was typed in.
        progress.write(`${fork.rewind !== undefined ? '/rewind' : fork.drop ? '/drop' : '/fork'}: ${sanitizeLine(err.message)}\n`);
      }
      run = await resumeRun(store, agent, goOn, { interactive: true });
      // The turn gone back to is at the prompt again, to change and send.
      if (fork.rewind !== undefined && goOn !== from) input!.prefill(fork.rewind.turn.text);
    }
    progress.stop();
    if (store !== null && result.reason === 'suspended' && result.awaiting === undefined && nothingTyped(run, startedHere)) {
      discard = run.id;
      note('nothing was typed, so no run is kept');
      return result.interrupted ? EXIT.suspended : EXIT.ok;
    }
    const answer = !interactive && !flags.json && result.reason === 'completed' && result.finalText !== '' && !live.showedLastAnswer;
    if (answer) showAnswer(result.finalText, output.answer);
    const fail = (m: string): void => void io.stderr.write(`logbook: ${m}\n`);
    if (store !== null && result.reason === 'error' && result.error !== undefined) await keepFailure(store, result);
    // A run compacted on the way goes on in its continuation: that is what a resume names.
    const goesOn = store !== null ? resumeCommand(result.state.run_id, goOnFlags) : null;
    const keyVariable = config.provider === 'script' ? undefined : apiKeyVariable(config.provider, config.api_key_env);
    const code = outcome(result, { resume: goesOn, flags, config: config.path, keyVariable, note, tools: agent.tools, fail });
    if (code !== EXIT.ok || !output.answerIsOutput || !live.answerRewritten) return code;
    // The run went well, but what a program reads from stdout is not its answer alone.
    const where = store !== null ? `: logbook session show ${result.state.run_id}` : '';
    fail(`stdout holds the start of an answer that broke off, then the answer; the journal holds the answer alone${where}`);
    return EXIT.error;
  } finally {
    output.close();
    suspend.dispose();
    input?.close();
    if (run !== null) await trace?.finish(run.state);
    await run?.close();
    if (discard !== undefined) await store?.delete(discard).catch(() => false); // at worst an empty run stays listed
    await stopServers();
    await store?.close();
  }
}

/** The turns typed into run `id` (its user records), oldest first, with their seqs. */
async function typedTurns(store: Store, id: string): Promise<TypedTurn[]> {
  const turns: TypedTurn[] = [];
  for await (const { record } of store.records(id)) {
    const text = typedText(record);
    if (text !== null) turns.push({ seq: record.seq, text });
  }
  return turns;
}

/** The files a chat's /rewind would change, listed; the rewind is asked and declined, so nothing changes. */
async function chatRewindPlan(store: Store, id: string, turn: TypedTurn, config: LogbookConfig, path: string | undefined): Promise<string> {
  const [{ rewindRun }, { planLines }] = await Promise.all([import('../api/workspace.js'), import('./session/workspace.js')]);
  let listed = '';
  await rewindRun(store, id, {
    at: turn.seq - 1,
    files: true,
    conversation: false,
    settings: config.workspace,
    heldHere: true,
    ...(path !== undefined ? { searchPath: path } : {}),
    confirm: (plan) => {
      listed = planLines(plan.dir, plan.files, plan.editedSince, id);
      return false;
    },
  });
  return listed;
}

/** A chat's /rewind of its files alone: restored to before `turn`, the conversation left as it is. */
async function rewindChatFiles(store: Store, id: string, turn: TypedTurn, config: LogbookConfig, path: string | undefined): Promise<string> {
  const { rewindRun } = await import('../api/workspace.js');
  const done = await rewindRun(store, id, { at: turn.seq - 1, files: true, conversation: false, settings: config.workspace, heldHere: true, ...(path !== undefined ? { searchPath: path } : {}) });
  return `restored ${done.files.length} file${done.files.length === 1 ? '' : 's'} to before that turn; undo with: logbook session rewind --undo ${id}`;
}

/** A chat's /rewind of its conversation (and files): a fork made before the typed turn, which the chat goes on in. */
async function rewindChat(store: Store, from: string, choice: RewindChoice, forkId: string, config: LogbookConfig, path: string | undefined, note: (m: string) => void): Promise<string> {
  const { rewindRun } = await import('../api/workspace.js');
  const done = await rewindRun(store, from, {
    at: choice.turn.seq - 1,
    files: choice.files,
    conversation: true,
    forkId,
    settings: config.workspace,
    sideEffects: (name) => config.tools.find((t) => t.name === name)?.side_effects === true,
    ...(path !== undefined ? { searchPath: path } : {}),
  });
  const files = choice.files ? `, its files restored (${done.files.length} changed; undo with: logbook session rewind --undo ${from})` : '';
  const effects = done.sideEffects.length > 0 ? `; calls since with side effects, not undone outside the workspace: ${done.sideEffects.map((c) => c.name).join(', ')}` : '';
  note(`the chat goes on in ${done.fork!}, made before that turn${files} (run ${from} keeps everything)${effects}`);
  return done.fork!;
}

/** What a chat's /model switches. */
interface ModelSwitch {
  store: Store;
  /** The run the chat was in, ended (suspended) by the /model typed. */
  run: AgentRun;
  agent: Agent;
  startedHere: string | undefined;
  place: RunPlace;
  note: (text: string) => void;
  /** Where a refusal is said: where /model was typed. */
  write: (text: string) => void;
}

/**
 * /model NAME: the chat goes on with the agent `switched` makes, in a new run
 * of the conversation (continueWithAgent); a chat with nothing typed yet
 * starts again, its empty run let go. A model that cannot be used (no price
 * for a USD cap, the run refused) is said where it was typed, and the chat
 * goes on in its run with the model it had.
 */
async function switchModel(m: ModelSwitch, switched: () => Promise<Agent>): Promise<{ run: AgentRun; agent: Agent; startedHere: string | undefined }> {
  const from = m.run.id;
  const old = m.agent.provider.model;
  try {
    const agent = await switched();
    if (nothingTyped(m.run, m.startedHere)) {
      const run = await startRun(m.store, agent, { prompt: '', interactive: true, place: m.place });
      await m.store.delete(from).catch(() => false); // at worst an empty run stays listed
      m.note(`the chat goes on with ${sanitizeLine(agent.provider.model)} in run ${run.id}`);
      return { run, agent, startedHere: run.id };
    }
    const run = await continueWithAgent(m.store, agent, from, { place: m.place });
    m.note(`the chat goes on with ${sanitizeLine(agent.provider.model)} in run ${run.id}, which continues run ${from} (its turns so far, with ${sanitizeLine(old)})`);
    return { run, agent, startedHere: m.startedHere };
  } catch (err) {
    if (!isLogbookError(err)) throw err;
    m.write(`/model: ${sanitizeLine(err.message)}\n`);
    return { run: await resumeRun(m.store, m.agent, from, { interactive: true }), agent: m.agent, startedHere: m.startedHere };
  }
}

/**
 * Keeps beside the run the code of the failure it ended on, which its
 * terminal record does not hold, so that `session show` says what a resume
 * would meet as the run's end did. A convenience: without it show says less.
 */
async function keepFailure(store: Store, result: RunResult): Promise<void> {
  await store.putNote(result.state.run_id, failureNoteKey(result.state.last_seq), encodeFailure(result.error!.code)).catch(() => {});
}

/** Why /fork NAME cannot make a run NAME: not a valid id, or a run has it already; null when it can. */
async function forkNameRefusal(store: Store | null, name: string): Promise<string | null> {
  if (!isValidId(name)) {
    try {
      validateId(name);
    } catch (err) {
      return (err as Error).message;
    }
  }
  if (store !== null && (await store.has(name))) return `run ${name} already exists; give another name, or none (one is made from the clock)`;
  return null;
}

/**
 * Whether `run` is a chat started by this command (`startedHere`, no prompt
 * given) that holds no turn yet: nothing a resume, `-c` or a listing could
 * offer, so it is not kept.
 */
function nothingTyped(run: AgentRun, startedHere: string | undefined): boolean {
  const { state } = run;
  return state.interactive && state.run_id === startedHere && state.prompt === '' && state.messages.length === 0;
}

/** An answer already journaled (a resume that finds the run answered), shown as a streamed one is. */
function showAnswer(text: string, target: StreamTarget): void {
  const shown = new StreamedText(target);
  shown.add(text);
  shown.end(text);
}

/** /export FILE: the run as it stands, in the format FILE's extension names. */
async function exportChat(store: Store | null, run: AgentRun, file: string): Promise<string> {
  const { exportFormat, writeFileAtomically } = await import('./session/export.js');
  const { exportRun } = await import('../render/export/index.js');
  const format = exportFormat({ output: file });
  if (format === 'otlp') throw new LogbookError('usage', 'a trace is exported with `logbook session export ID --format otlp`; name a .md, .html or .jsonl file');
  let document: string;
  if (store === null) {
    if (format === 'jsonl') throw new LogbookError('usage', 'an --ephemeral run has no journal lines; name a .md or .html file');
    document = exportRun(format, run.state, { status: 'running' }); // this chat is the run's writer
  } else if (format === 'jsonl') {
    document = (await store.lines(run.id)).map((line) => `${line}\n`).join('');
  } else {
    const loaded = await store.load(run.id);
    document = exportRun(format, loaded.state, { times: { created: loaded.created, updated: loaded.updated }, status: 'running' }); // this chat holds the run
  }
  writeFileAtomically(file, document);
  return `wrote run ${run.id} to ${file} (${format})`;
}

interface Presentation {
  agent: Parameters<typeof resumeRun>[1];
  /** Where this command runs, and the config file it uses. */
  place: RunPlace;
  /** The config file in use. */
  config: string;
  /** Its a2a.identity: the agent it serves as. */
  identity: string | undefined;
  err: Terminal;
  note: (text: string) => void;
  progress: (text: string) => void;
  presenter: Presenter;
  /** Aborted by a stop signal. */
  signal: AbortSignal;
  /** Whether questions can be put to an operator on a terminal. */
  canAsk: boolean;
}

/**
 * Resumes the run --resume or --continue names. A PROMPT is a follow-up: a
 * completed run is never appended to, so it is forked first (the original stays
 * as it is) and the fork goes on.
 */
async function continueRun(store: Store, flags: RunFlags, words: string[], p: Presentation): Promise<AgentRun> {
  const followUp = words.length > 0 ? words.join(' ') : undefined;
  const gates = { force: flags.force === true, ...(flags.chat ? { interactive: true } : {}) }; // without --chat the run keeps the interactivity it was journaled with
  const choosing: Choosing = {
    followUp: followUp !== undefined,
    dir: p.place.dir,
    all: flags.all === true,
    note: p.note,
    signal: p.signal,
    fingerprint: fingerprintOf(p.agent),
    refusal: async (info) => {
      if (info.fingerprint === undefined || info.foldStatus === undefined) return new LogbookError('corrupt', `run ${info.runId} cannot be read`);
      const run = {
        run_id: info.runId,
        status: info.foldStatus,
        interactive: info.interactive,
        fingerprint: info.fingerprint,
        ...(info.lastSeq !== undefined ? { last_seq: info.lastSeq } : {}),
      };
      return resumeRefusal(store, p.agent, run, { ...gates, asNewRun: followUp !== undefined });
    },
  };
  const id = await chooseRun(store, flags.continue ? 'newest' : flags.resume!, choosing, p.config);
  await refuseOtherAgentsTask(store, id, p);
  let run: AgentRun;
  if (followUp !== undefined) {
    // Read once to see whether it completed; the follow-up goes on from that read, its calls tallied as it is read.
    const calls = p.agent.prices !== undefined ? new CallTally() : undefined;
    const loaded = await store.loadState(id, { forWriting: true, calls: calls !== undefined });
    calls?.addLoaded(loaded);
    if (flags.name !== undefined && loaded.state.status !== 'completed') {
      throw usage(`--name names the new run a completed run is continued as, and run ${id} is not completed: it keeps its id; drop --name`);
    }
    run = await followUpRun(store, p.agent, id, followUp, { ...gates, loaded, ...(calls !== undefined ? { calls } : {}), place: p.place, ...(flags.name !== undefined ? { newId: flags.name } : {}) });
    if (run.continuedFrom !== undefined) p.note(`continuing completed run ${run.continuedFrom} as new run ${run.id}`);
  } else {
    run = await resumeRun(store, p.agent, id, gates);
  }
  try {
    await settleAnswers(run, flags, p);
  } catch (err) {
    await run.close();
    throw err;
  }
  return run;
}

/**
 * A task's run goes on only with the config of the agent that served it:
 * another agent's tools could say that a call with side effects has none,
 * and the resume would run it again unasked.
 */
async function refuseOtherAgentsTask(store: Store, id: string, p: Presentation): Promise<void> {
  const note = await store.getNote(id, TASK_NOTE);
  if (note === null) return; // no task's run: the tasks' code is not loaded
  const { parseTaskOrigin } = await import('../agent/tasks/origin.js');
  const origin = parseTaskOrigin(note);
  if (origin === null || origin.agent === p.identity) return;
  const whose = p.identity === undefined ? 'names no a2a.identity' : `is agent ${p.identity}'s`;
  throw new LogbookError(
    'config',
    `run ${id} is a task served as agent ${origin.agent}, and ${p.config} ${whose}: resume it with agent ${origin.agent}'s config (the one its logbook serve runs), whose tools say which calls have side effects`,
  );
}

/**
 * What the operator's flags answer in the run, checked before anything is
 * shown (a refusal is one line); then the narration, and on a terminal the
 * question an interrupted call with side effects still needs.
 */
async function settleAnswers(run: AgentRun, flags: RunFlags, p: Presentation): Promise<void> {
  const tools = p.agent.tools;
  checkApprovalTargets(run.state, tools, flags);
  applyInterruptionFlags(run, tools, flags, p.canAsk);
  const prose = await terminalProse(p.err, flags.plain === true);
  p.progress(
    resumeNarration(run.state, {
      ...(prose ? { prose } : {}),
      // The input is journal text that already parsed as JSON: no need to check it again.
      describeCall: (name, inputJson) => p.agent.tools.describe(name, RawJson.fromValidText(inputJson)),
      describeRan: (name, content) => p.agent.tools.describeRan(name, content),
      ...(p.err.columns !== undefined ? { width: p.err.columns } : {}),
      style: p.err.style,
      turns: flags.replay === 'all' ? 'all' : undefined,
      agents: toolAgentsOf(tools),
    }),
  );
  for (const w of run.warnings) p.progress(`${p.err.style.note(`warning: ${messageLine(w)}`)}\n`);
  if (run.interruptedCall !== undefined) await askInterruption(run, tools, terminalQuestions(), p.presenter, p.signal);
}

/** Which agent runs each of the registry's remote tools, to name it on the calls narrated. */
function toolAgentsOf(tools: ToolRegistry): Record<string, string> {
  const out: Record<string, string> = {};
  for (const d of tools.definitions()) {
    const agent = tools.get(d.name)?.remote?.agent;
    if (agent !== undefined) out[d.name] = agent;
  }
  return out;
}

interface OutcomeContext {
  /** The command that continues the run, when it is journaled. */
  resume: string | null;
  /** The flags the command was given, which the commands it advises repeat. */
  flags: ResumeFlags;
  /** The config file, for hints that name a key in it. */
  config: string;
  /** The environment variable the API key is read from, for a refused key's hint; undefined for a provider without one. */
  keyVariable: string | undefined;
  note: (text: string) => void;
  tools: ToolRegistry;
  /** Says a stop at a limit in one line (`logbook: ...`). */
  fail: (message: string) => void;
}

/** The exit code of a run's end; what to do next is said when there is something to do. */
function outcome(result: RunResult, o: OutcomeContext): ExitCode {
  const resume = o.resume === null ? null : withInterruptionChoice(o.resume, result.state, o.tools);
  const interactive = result.state.interactive;
  switch (result.reason) {
    case 'completed':
      return completed(result, resume, o);
    case 'suspended':
      if (result.error !== undefined) throw failure(result, resume, o); // suspended by a failure outside the run (a tool server)
      if (result.awaiting !== undefined) return awaitingApproval(result, result.awaiting, o);
      if (!result.interrupted) return EXIT.ok; // a chat the operator ended; /exit or end of input said how to continue
      o.note(resume !== null ? `suspended; resume with: ${resume}` : 'suspended (the run was not journaled)');
      return EXIT.suspended;
    case 'error':
      if (endedOnRefusal(result.state, result.reason, result.message)) return refused(o);
      throw failure(result, resume, o);
    case 'budget': {
      // The cap it stopped at, as agent.yaml names it: the token budget, or a spend cap in USD.
      const key = result.cap ?? 'budget';
      o.fail(`${result.message}${resume !== null ? `; raise ${key} in ${o.config}, then resume with: ${resume}` : ''}`);
      return key === 'budget' ? EXIT.budget : EXIT.spendCap;
    }
    case 'max_iterations':
      // max_iterations is in the fingerprint: a raised one is drift that only --force passes. A chat's
      // cap counts per typed turn, and a resume gets a fresh one.
      o.fail(
        `${result.message}${
          resume === null
            ? ''
            : interactive
              ? `; a chat's limit is per typed turn: resume with: ${resume}`
              : `; raise max_iterations in ${o.config}, then resume with: ${resume} --force`
        }`,
      );
      return EXIT.maxIterations;
    default:
      return EXIT.error;
  }
}

/** A run suspended before a call that needs an approval: how to give it, or to refuse it. */
function awaitingApproval(result: RunResult, call: ToolCall, o: OutcomeContext): ExitCode {
  const id = sanitizeLine(result.state.run_id);
  if (o.resume === null) {
    o.fail(`call ${callTitle(call)} awaits an approval and the run was not journaled: run it on a terminal to be asked, or with --yes`);
  } else {
    const commands = approvalCommands(o.resume, call);
    o.note(`run ${id} awaits approval of call ${callTitle(call)}`);
    o.note(`approve it with: ${commands.approve}`);
    o.note(`or deny it with: ${commands.deny}`);
  }
  return result.interrupted ? EXIT.suspended : EXIT.awaiting;
}

/**
 * A run completed: on a whole answer, exit 0; on one cut at max_tokens, a stop
 * at a limit (said in one line, with the way on: max_tokens is fingerprinted,
 * so a raised one is followed up with --force); on an empty one, said, exit 0.
 */
function completed(result: RunResult, resume: string | null, o: OutcomeContext): ExitCode {
  const shortfall = answerShortfall(result.state);
  if (shortfall === null) return EXIT.ok;
  const said = shortfallText(shortfall, result.state.fingerprint.max_tokens);
  if (shortfall === 'empty') {
    o.fail(`${said}${resume === null ? '' : `; to ask again: ${resume} "PROMPT"`}`);
    return EXIT.ok;
  }
  o.fail(`${said}${resume === null ? '' : `; raise max_tokens in ${o.config}, then ask for the rest (--force: max_tokens is part of the run's fingerprint): ${resume} --force "go on"`}`);
  return EXIT.cut;
}

/**
 * The model refused to answer: an outcome, said in one line, with the way on. A
 * resume alone would end on the same refusal; a follow-up asks again.
 */
function refused(o: OutcomeContext): ExitCode {
  o.fail(`the model refused to respond${o.resume === null ? '' : `; to ask it another way: ${o.resume} "PROMPT"`}`);
  return EXIT.refused;
}


/**
 * The command that goes on with a compacted run's conversation: a resume of
 * the continuation, or of the continuation it was compacted into in turn; with
 * the prompt given (else PROMPT) when that run is completed, which only a
 * follow-up continues.
 */
async function goOnCommand(store: Store, into: string, words: readonly string[], flags: ResumeFlags): Promise<string> {
  const id = await lastAlong(into, async (run) => {
    const next = (await compactionOf(store, run))?.into;
    return next !== undefined && (await store.has(next).catch(() => false)) ? next : null;
  });
  const completed = await store
    .loadState(id)
    .then((loaded) => loaded.state.status === 'completed')
    .catch(() => false);
  const resume = resumeCommand(id, flags);
  return completed ? `${resume} ${words.length > 0 ? shellQuote([words.join(' ')]) : 'PROMPT'}` : resume;
}

/** The error that ended a run, with what to do about it. */
function failure(result: RunResult, resume: string | null, { flags, keyVariable }: Pick<OutcomeContext, 'flags' | 'keyVariable'>): unknown {
  const error = result.error ?? new LogbookError('internal', result.message ?? 'the run failed');
  return withAdvice(error, { ended: { state: result.state, resume, flags, ...(keyVariable !== undefined ? { keyVariable } : {}) } });
}
