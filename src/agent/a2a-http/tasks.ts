/**
 * Tasks over A2A 1.0 on HTTP, each a run in the store: the `AgentExecutor`
 * and the `TaskStore` the official SDK's request handler is built with.
 *
 * - A task's run is `taskRunId(identity, taskId)`, with the task note beside
 *   it (its context, and for a context's follow-up the run it continues), so
 *   the task is found again from its id alone, by any instance on the store.
 * - The TaskStore keeps nothing of its own: `load` projects the run's records
 *   and their times (a2a/http/projection.ts), `list` the tasks of this agent's
 *   task index (task-index.ts); `save` only acts on a cancel the SDK decided for a task no
 *   executor here runs (it suspends the run canceled, in the journal).
 * - The executor publishes the events each record makes once it is durable.
 *   A message in a context whose last task completed continues that
 *   conversation (a fork of its run, as `run -c` does); an answer to an
 *   INPUT_REQUIRED task (approve or deny) resumes its run with it; a cancel
 *   suspends the run, ending the task CANCELED.
 * - A run this agent was serving when its server died (SIGKILL) is resumed by
 *   the next server on the store (`resumeInterrupted`), and where the store
 *   does not exclude other writers (JetStream) by another instance running
 *   now (`watchInterrupted`: no writer answers for it, Store.held), exactly
 *   one of those that found it going on (Journal.claim); paying no journaled
 *   model call again; a call with side effects it may have cut short waits for
 *   an approval instead of running again.
 */
import type { Task, ListTasksRequest, ListTasksResponse } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import type { AgentExecutionEvent, AgentExecutor, ExecutionEventBus, ExecutionEventBusManager, RequestContext, TaskStore } from '@a2a-js/sdk/server';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import { SERVER_STOPPED, TaskJournalProjection, isFinalState, type TaskIdentity } from '../../a2a/http/projection.js';
import { NEW_CONTEXT, approvalAnswer, promptOfMessage } from '../../a2a/http/messages.js';
import { canceledMessage, interruptedCallMessage, isLogbookError, decodeRecord, type JournalRecord } from '../../core/index.js';
import { forkRun } from '../../store/fork.js';
import { lastAlong } from '../../store/lineage.js';
import type { Store } from '../../store/store.js';
import type { Agent } from '../agent.js';
import { allowCall, denyCall, suspendCall, type BeforeToolCall } from '../approvals.js';
import { compactionSettings } from '../compaction.js';
import { resumeRun, startRun, type AgentRun } from '../run.js';
import { SuspendReason } from '../runner.js';
import { TaskIndex } from './task-index.js';
import { CANCELED_NOTE, CONTINUED_NOTE, TASK_NOTE, encodeCancellation, encodeTaskOrigin, ownFrom, parseCancellation, parseTaskOrigin, taskRunId, type TaskOrigin } from '../tasks/origin.js';

/** The sender a task note names for a task that came over HTTP. */
export const HTTP_SENDER = 'a2a-http';

/** How long a follow of a task whose run rests WORKING (its server stopped) waits before it looks again. */
const FOLLOW_AGAIN_MS = 500;

/** Who a cancel over HTTP is said to come from. */
const HTTP_CANCELER = 'an A2A client';

/** What happened to a task, for the operator's log. */
export type HttpTaskEvent =
  | { kind: 'started'; task: string; run: string; resumed: boolean }
  | { kind: 'rejected'; task: string; reason: string }
  | { kind: 'ended'; task: string; state: string }
  | { kind: 'failed'; task: string; detail: string };

export interface HttpTasksOptions {
  identity: string;
  store: Store;
  agent: Agent;
  onTask?: (event: HttpTaskEvent) => void;
}

interface Active {
  controller: AbortController;
  done: Promise<void>;
  /** The projection of the task's run, pushed each record as it is durable: what a load answers while it runs here. */
  projection: TaskJournalProjection;
  /** Settles once every record made durable so far is pushed to `projection` (each waits for its kept time). */
  published: () => Promise<void>;
}

/** The executor, the task store and the resumption of interrupted tasks, over one store and agent. */
export class HttpTasks {
  private readonly active = new Map<string, Active>();
  private readonly index: TaskIndex;
  /** Tasks found in a final state: nothing more happens to them, so a takeover scan passes them over. */
  private readonly ended = new Set<string>();
  /** Tasks found resting (waiting for input), by the seq they rest at: a takeover scan reads one again only once its run grew. */
  private readonly rested = new Map<string, number>();
  /** Tasks being taken over here now. */
  private readonly taking = new Set<string>();
  private stopping = false;
  readonly executor: AgentExecutor;
  readonly taskStore: TaskStore;

  constructor(private readonly options: HttpTasksOptions) {
    this.options = { ...options, agent: uncompacted(options.agent) };
    this.index = new TaskIndex(options.store, options.identity);
    this.executor = {
      execute: (ctx, bus) => this.execute(ctx, bus),
      cancelTask: (taskId, bus) => this.cancel(taskId, bus),
    };
    this.taskStore = {
      load: (taskId) => this.load(taskId),
      save: (task) => this.save(task),
      list: (params) => this.list(params),
    };
  }

  /** Tasks running here now. */
  get running(): number {
    return this.active.size;
  }

  private tell(event: HttpTaskEvent): void {
    this.options.onTask?.(event);
  }

  private runId(taskId: string): string {
    return taskRunId(this.options.identity, taskId);
  }

  /** The task note of `taskId`'s run, when it is an HTTP task of this agent. */
  private async originOf(taskId: string): Promise<TaskOrigin | null> {
    const origin = parseTaskOrigin(await this.options.store.getNote(this.runId(taskId), TASK_NOTE));
    return origin !== null && origin.agent === this.options.identity && origin.sender === HTTP_SENDER && origin.request === taskId ? origin : null;
  }

  private identityOf(origin: TaskOrigin): TaskIdentity {
    return { taskId: origin.request, contextId: origin.conversation, ownFrom: ownFrom(origin) };
  }

  /**
   * The task as the journal says, or undefined when there is none. While it
   * runs here, its live projection once every record durable so far is pushed
   * to it: a reader who saw a record in the store (a watch, another
   * instance's follow) never reads the task from before it.
   */
  async load(taskId: string): Promise<Task | undefined> {
    const active = this.active.get(taskId);
    if (active !== undefined) {
      await active.published().catch(() => {});
      const live = active.projection.task;
      if (live) return live;
    }
    return (await this.read(taskId))?.task ?? undefined;
  }

  /** The task's run read now, projected; null when there is no such task. */
  private async read(taskId: string): Promise<TaskJournalProjection | null> {
    const origin = await this.originOf(taskId);
    if (origin === null) return null;
    const runId = this.runId(taskId);
    const projection = new TaskJournalProjection(this.identityOf(origin));
    const times = await this.options.store.times(runId);
    try {
      for await (const { record, time } of this.options.store.records(runId)) projection.push(record, time ?? times.records.get(record.seq));
    } catch (err) {
      if (isLogbookError(err, 'not_found')) return null;
      throw err;
    }
    return projection;
  }

  /** Every event of the task, as its journal projects them (numbered), with the task they make; undefined when there is none. */
  async events(taskId: string): Promise<{ events: AgentExecutionEvent[]; task: Task } | undefined> {
    const origin = await this.originOf(taskId);
    if (origin === null) return undefined;
    const runId = this.runId(taskId);
    const projection = new TaskJournalProjection(this.identityOf(origin));
    const times = await this.options.store.times(runId);
    const events: AgentExecutionEvent[] = [];
    for await (const { record, time } of this.options.store.records(runId)) events.push(...projection.push(record, time ?? times.records.get(record.seq)));
    const task = projection.task;
    return task === null ? undefined : { events, task };
  }

  /**
   * Every event of the task, as its journal projects them (numbered), then
   * each later one as its record becomes durable, whichever instance writes
   * it, until the task reaches a final state, or rests on a record nothing
   * follows (it waits for input: the subscription ends, as a live one does),
   * or `signal` aborts. A task that rests WORKING (its server stopped) is
   * followed on, to the instance that takes it over. Nothing when there is no
   * such task.
   */
  async *follow(taskId: string, signal: AbortSignal): AsyncGenerator<AgentExecutionEvent> {
    const origin = await this.originOf(taskId);
    if (origin === null) return;
    const runId = this.runId(taskId);
    const projection = new TaskJournalProjection(this.identityOf(origin));
    let seq = 0;
    let times = await this.options.store.times(runId);
    const timeOf = async (n: number): Promise<number | undefined> => {
      if (!times.records.has(n)) times = await this.options.store.times(runId);
      return times.records.get(n);
    };
    while (!signal.aborted) {
      for await (const { record, time } of this.options.store.watch(runId, { signal })) {
        if (record.seq <= seq) continue;
        seq = record.seq;
        yield* projection.push(record, time ?? (await timeOf(record.seq)));
        if (projection.final) return;
      }
      if (signal.aborted || projection.final || projection.task?.status?.state !== TaskState.TASK_STATE_WORKING) return;
      await new Promise((resolve) => setTimeout(resolve, FOLLOW_AGAIN_MS));
    }
  }

  /**
   * What the SDK saves is the journal's projection already, but for one thing:
   * a cancel of a task no executor runs here (it rests INPUT_REQUIRED, or after
   * a restart) is made durable by suspending its run canceled.
   */
  async save(task: Task): Promise<void> {
    if (task.status?.state !== TaskState.TASK_STATE_CANCELED || this.active.has(task.id)) return;
    const current = await this.load(task.id);
    if (current === undefined || isFinalState(current.status?.state)) return;
    await this.cancelAtRest(task.id, null);
  }

  /**
   * This agent's HTTP tasks (read from its task index, never every run in the
   * store), newest status first, filtered and paged as asked. A page token
   * names the last task of the page before (its status time and id), so a
   * task started meanwhile neither shifts a page nor is given twice.
   */
  async list(params: ListTasksRequest): Promise<ListTasksResponse> {
    const after = params.pageToken ? parsePageToken(params.pageToken) : null;
    const tasks: Task[] = [];
    for (const entry of await this.index.tasks(params.contextId || undefined)) {
      if (entry.run !== this.runId(entry.task) || (await this.originOf(entry.task)) === null) continue;
      const task = await this.load(entry.task);
      if (task === undefined) continue;
      if (params.status && task.status?.state !== params.status) continue;
      if (params.statusTimestampAfter && Date.parse(task.status?.timestamp ?? '') <= Date.parse(params.statusTimestampAfter)) continue;
      if (params.includeArtifacts !== true) task.artifacts = [];
      tasks.push(task);
    }
    tasks.sort(newestFirst);
    const pageSize = params.pageSize ?? 50;
    const rest = after === null ? tasks : tasks.filter((t) => newestFirst(t, { id: after.id, status: { timestamp: after.time } } as Task) > 0);
    const page = rest.slice(0, pageSize);
    const last = page.at(-1);
    const next = rest.length > pageSize && last !== undefined ? pageToken(last) : '';
    return { tasks: page, nextPageToken: next, pageSize, totalSize: tasks.length };
  }

  private async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    if (ctx.task !== undefined) return this.answer(ctx, bus);
    const taskId = ctx.taskId;
    const admitted = await this.admit(ctx);
    if (typeof admitted === 'string') {
      this.reject(ctx, bus, admitted);
      return;
    }
    const { store, agent } = this.options;
    const runId = this.runId(taskId);
    // A run is found as a task through its task note (a restart's takeover) and through the index (a read of the task):
    // both are durable before its first record, and neither needs the other, so they are written at once (their fsyncs overlap).
    await Promise.all([
      store.putNote(runId, TASK_NOTE, encodeTaskOrigin(admitted)),
      this.index.add({ task: taskId, context: admitted.conversation, run: runId, opens: admitted.continues === undefined }),
    ]);
    const prompt = promptOfMessage(ctx.userMessage);
    let run: AgentRun;
    try {
      if (admitted.continues === undefined) run = await startRun(store, agent, { id: runId, prompt });
      else {
        await forkRun(store, admitted.continues.run, { id: runId, at: admitted.continues.at });
        await store.putNote(admitted.continues.run, CONTINUED_NOTE, runId);
        run = await resumeRun(store, agent, runId, { followUp: prompt });
      }
    } catch (err) {
      this.reject(ctx, bus, `the task cannot start: ${(err as Error).message}`);
      return;
    }
    await this.drive(admitted, run, bus, { started: admitted.continues === undefined });
  }

  /** The task's origin when it can be served, else why not. */
  private async admit(ctx: RequestContext): Promise<TaskOrigin | string> {
    const { identity, store } = this.options;
    const message = ctx.userMessage;
    if (promptOfMessage(message).trim() === '') return 'the message has no text to work on';
    const origin: TaskOrigin = { request: ctx.taskId, conversation: ctx.contextId, sender: HTTP_SENDER, agent: identity };
    if (ctx.context.state.get(NEW_CONTEXT) === true) return origin; // a context the SDK made for this message: nothing before it
    const newest = await this.contextHead(ctx.contextId);
    if (newest === null) return origin;
    const last = await store.loadState(newest.run);
    if (last.state.status === 'open') return `the context's last task ${newest.task} has not ended; send the next message once it has`;
    if (last.state.status !== 'completed') return `the context's last task ${newest.task} ended ${last.state.status}, and only a task that completed can be followed up in its context`;
    return { ...origin, continues: { run: newest.run, at: last.lastSeq - 1 } };
  }

  /** The newest task run of context `contextId`, or null when it has none yet: from the first task of it, along the runs that continue it. */
  private async contextHead(contextId: string): Promise<{ run: string; task: string } | null> {
    const { store } = this.options;
    const first = (await this.index.tasks(contextId)).find((t) => t.opens && t.run === this.runId(t.task));
    if (first === undefined || (await this.originOf(first.task)) === null) return null;
    const run = await lastAlong(first.run, (id) => store.getNote(id, CONTINUED_NOTE));
    const task = parseTaskOrigin(await store.getNote(run, TASK_NOTE))?.request ?? run;
    return { run, task };
  }

  /** A task refused at the door: REJECTED with the reason, and no run. */
  private reject(ctx: RequestContext, bus: ExecutionEventBus, reason: string): void {
    this.tell({ kind: 'rejected', task: ctx.taskId, reason });
    const task: Task = {
      id: ctx.taskId,
      contextId: ctx.contextId,
      status: {
        state: TaskState.TASK_STATE_REJECTED,
        message: { messageId: `${ctx.taskId}.rejected`, contextId: ctx.contextId, taskId: ctx.taskId, role: Role.ROLE_AGENT, parts: [{ content: { $case: 'text', value: reason }, metadata: undefined, filename: '', mediaType: 'text/plain' }], metadata: {}, extensions: [], referenceTaskIds: [] },
        timestamp: new Date().toISOString(),
      },
      artifacts: [],
      history: [ctx.userMessage],
      metadata: {},
    };
    bus.publish({ kind: 'task', data: task });
  }

  /** A message to a task that exists: the answer to its INPUT_REQUIRED. */
  private async answer(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const origin = await this.originOf(ctx.taskId);
    if (origin === null) throw new Error(`task ${ctx.taskId} is not this agent's`);
    const answer = approvalAnswer(ctx.userMessage)!; // checked at the door (guard.ts)
    const runId = this.runId(ctx.taskId);
    const run = await resumeRun(this.options.store, this.options.agent, runId);
    if (!(await run.claim())) {
      await run.close();
      throw new Error(`task ${ctx.taskId} is being answered through another instance of this agent`);
    }
    const cut = run.interruptedCall;
    if (cut !== undefined) run.resolveInterruptedCall(cut.id, answer.approve ? 'rerun' : 'skip');
    const batch = run.state.pending?.iteration;
    const hook: BeforeToolCall = (_call, context) => {
      if (context.iteration === batch && cut === undefined) return answer.approve ? allowCall : denyCall(answer.approve ? undefined : answer.reason);
      return suspendCall;
    };
    await this.drive(origin, run, bus, { started: false, beforeToolCall: hook });
  }

  /**
   * Projects each record of run `runId` as it becomes durable and publishes its
   * events on `bus`, in order, with the time kept beside the journal for it:
   * the one the append gave, else read back (Store.recordTime: JetStream's is
   * the server's), so a live event states what a later read gives.
   */
  private publisher(runId: string, projection: TaskJournalProjection, bus: ExecutionEventBus | null): { record: (record: JournalRecord, time?: number) => void; published: () => Promise<void> } {
    const { store } = this.options;
    let chain: Promise<void> = Promise.resolve();
    return {
      record: (record, time) => {
        chain = chain.then(async () => {
          const kept = time ?? (await store.recordTime(runId, record.seq).catch(() => undefined)) ?? Date.now();
          for (const event of projection.push(record, kept)) bus?.publish(event);
        });
      },
      published: () => chain,
    };
  }

  /**
   * Runs a task's run to where it rests, publishing on `bus` first the task as
   * its records already say, then the events of each record as it is durable.
   */
  private async drive(origin: TaskOrigin, run: AgentRun, bus: ExecutionEventBus, how: { started: boolean; beforeToolCall?: BeforeToolCall }): Promise<void> {
    const { store } = this.options;
    const taskId = origin.request;
    const runId = this.runId(taskId);
    const projection = new TaskJournalProjection(this.identityOf(origin));
    const controller = new AbortController();
    let finish = (): void => {};
    const done = new Promise<void>((r) => (finish = r));
    // The time kept beside the journal for each record, so what is published equals what a later load reads.
    const publish = this.publisher(runId, projection, bus);
    this.active.set(taskId, { controller, done, projection, published: publish.published });
    try {
      if (how.started) publish.record(decodeRecord(run.metaLine), (await store.times(runId)).records.get(1));
      else {
        const times = await store.times(runId);
        for await (const { record, time } of store.records(runId)) projection.push(record, time ?? times.records.get(record.seq));
        const snapshot = projection.task;
        if (snapshot !== null) bus.publish({ kind: 'task', data: snapshot });
      }
      this.tell({ kind: 'started', task: taskId, run: runId, resumed: !how.started });
      const observer = { record: publish.record };
      const canceled = parseCancellation(await store.getNote(runId, CANCELED_NOTE));
      if (canceled !== null) await run.suspend(canceledMessage(canceled.by, canceled.reason), observer);
      else if (run.interruptedCall !== undefined) await run.suspend(interruptedCallMessage(run.interruptedCall), observer);
      else await run.execute({ signal: controller.signal, observer, ...(how.beforeToolCall ? { beforeToolCall: how.beforeToolCall } : {}) });
      await publish.published();
      this.tell({ kind: 'ended', task: taskId, state: TaskState[projection.task?.status?.state ?? 0] ?? 'unknown' });
    } finally {
      await publish.published().catch(() => {});
      await run.close().catch(() => {});
      this.active.delete(taskId);
      finish();
    }
  }

  /** A cancel: the running task is suspended canceled; one at rest is suspended canceled here. */
  private async cancel(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const by = HTTP_CANCELER;
    await this.options.store.putNote(this.runId(taskId), CANCELED_NOTE, encodeCancellation({ by })).catch(() => {});
    const active = this.active.get(taskId);
    if (active !== undefined) {
      active.controller.abort(new SuspendReason(canceledMessage(by)));
      return;
    }
    await this.cancelAtRest(taskId, bus);
  }

  /** Suspends a task's run that nothing runs canceled, telling `bus` the events. */
  private async cancelAtRest(taskId: string, bus: ExecutionEventBus | null): Promise<void> {
    const { store, agent } = this.options;
    const run = await resumeRun(store, agent, this.runId(taskId));
    try {
      const origin = (await this.originOf(taskId))!;
      const projection = new TaskJournalProjection(this.identityOf(origin));
      const times = await store.times(this.runId(taskId));
      for await (const { record, time } of store.records(this.runId(taskId))) projection.push(record, time ?? times.records.get(record.seq));
      const publish = this.publisher(this.runId(taskId), projection, bus);
      await run.suspend(canceledMessage(HTTP_CANCELER), { record: publish.record });
      await publish.published();
    } finally {
      await run.close().catch(() => {});
    }
  }

  /**
   * Resumes every task of this agent whose run ended on no terminal record and
   * that no writer holds (its server died), or that a stopping server
   * suspended: each on a bus of its own, so a client subscribing finds it.
   * Reads every run in the store once: what a server does as it starts (a
   * task from before the task index is found too).
   */
  async resumeInterrupted(buses: ExecutionEventBusManager): Promise<number> {
    const { store, identity } = this.options;
    let resumed = 0;
    for (const r of await store.list()) {
      if (this.stopping) break;
      if (!r.runId.startsWith('task-') || r.held === true) continue;
      const stopped = r.foldStatus === 'suspended';
      if (r.foldStatus !== 'open' && !stopped) continue;
      const origin = parseTaskOrigin(await store.getNote(r.runId, TASK_NOTE));
      if (origin === null || origin.agent !== identity || origin.sender !== HTTP_SENDER || this.runId(origin.request) !== r.runId) continue;
      if (stopped) {
        const task = await this.load(origin.request);
        if (task?.status?.state !== TaskState.TASK_STATE_WORKING) continue; // only a stop by SERVER_STOPPED rests WORKING
      }
      if (await this.takeOver(origin, buses, r.held === false)) resumed++;
    }
    return resumed;
  }

  /**
   * One look, through the task index, for tasks of this agent another
   * instance left working (it died, or stopped): each found is taken over
   * (takeOver). Tasks found ended are not looked at again.
   */
  async takeOverInterrupted(buses: ExecutionEventBusManager): Promise<number> {
    const { store } = this.options;
    let resumed = 0;
    for (const entry of await this.index.tasks()) {
      if (this.stopping) break;
      if (this.ended.has(entry.task) || this.active.has(entry.task) || entry.run !== this.runId(entry.task)) continue;
      if ((await store.held(entry.run)) === true) continue;
      // A task found resting is read again only once a record follows its rest (one read of that record's subject).
      const rest = this.rested.get(entry.task);
      if (rest !== undefined && (await store.recordTime(entry.run, rest + 1)) === undefined) continue;
      const origin = await this.originOf(entry.task);
      const read = origin === null ? null : await this.read(entry.task);
      const state = read?.task?.status?.state;
      if (origin === null || read === null || state === undefined) continue;
      this.rested.delete(entry.task);
      if (isFinalState(state)) this.ended.add(entry.task);
      else if (state !== TaskState.TASK_STATE_WORKING && state !== TaskState.TASK_STATE_SUBMITTED) this.rested.set(entry.task, read.runState?.last_seq ?? 0);
      if (state !== TaskState.TASK_STATE_WORKING && state !== TaskState.TASK_STATE_SUBMITTED) continue;
      if (await this.takeOver(origin, buses, true)) resumed++;
    }
    return resumed;
  }

  /**
   * Takes over a task nothing runs: resumes its run, and goes on with it only
   * when this instance's claim holds (Journal.claim: of instances that found
   * it at once, exactly one goes on). `unheld`: the store said no writer
   * holds it; otherwise it is asked.
   */
  private async takeOver(origin: TaskOrigin, buses: ExecutionEventBusManager, unheld: boolean): Promise<boolean> {
    const { store, agent } = this.options;
    const taskId = origin.request;
    const runId = this.runId(taskId);
    if (this.active.has(taskId) || this.taking.has(taskId)) return false;
    this.taking.add(taskId);
    try {
      if (!unheld && (await store.held(runId)) === true) return false;
      let run: AgentRun;
      try {
        run = await resumeRun(store, agent, runId);
      } catch (err) {
        if (!isLogbookError(err, 'locked') && !isLogbookError(err, 'already_completed')) this.tell({ kind: 'failed', task: taskId, detail: `cannot resume run ${runId}: ${(err as Error).message}` });
        return false;
      }
      if (this.stopping || !(await run.claim().catch(() => false))) {
        await run.close().catch(() => {});
        return false;
      }
      const bus = buses.createOrGetByTaskId(taskId);
      void this.drive(origin, run, bus, { started: false })
        .catch((err: unknown) => this.tell({ kind: 'failed', task: taskId, detail: (err as Error).message }))
        .finally(() => {
          bus.finished();
          buses.cleanupByTaskId(taskId);
        });
      return true;
    } finally {
      this.taking.delete(taskId);
    }
  }

  /**
   * Looks for tasks to take over every `everyMs` (takeOverInterrupted) until
   * stopped: what makes a task whose instance died go on in another one.
   * Returns the stop.
   */
  watchInterrupted(buses: ExecutionEventBusManager, everyMs: number, onResumed?: (n: number) => void): () => void {
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const look = async (): Promise<void> => {
      try {
        const n = await this.takeOverInterrupted(buses);
        if (n > 0) onResumed?.(n);
      } catch (err) {
        this.tell({ kind: 'failed', task: '*', detail: `looking for tasks to take over: ${(err as Error).message}` });
      }
      if (!stopped && !this.stopping) timer = setTimeout(() => void look(), everyMs);
    };
    timer = setTimeout(() => void look(), everyMs);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }

  /** Suspends every task running here (SERVER_STOPPED), to be resumed by the next server on the store, and waits for their ends to be durable. */
  async stop(): Promise<void> {
    this.stopping = true;
    const all = [...this.active.values()];
    for (const a of all) a.controller.abort(new SuspendReason(SERVER_STOPPED));
    await Promise.all(all.map((a) => a.done));
  }
}

/** The agent a task runs as: never compacted on its own (a continuation would be another run than the task's). */
function uncompacted(agent: Agent): Agent {
  return { ...agent, compaction: { ...compactionSettings(agent), at: false } };
}

/** Newest status first, then by id: the order a task list is given in. */
function newestFirst(a: Task, b: Task): number {
  return (b.status?.timestamp ?? '').localeCompare(a.status?.timestamp ?? '') || b.id.localeCompare(a.id);
}

/** The token of the page after the one ending with `last`. */
function pageToken(last: Task): string {
  return Buffer.from(JSON.stringify([last.status?.timestamp ?? '', last.id]), 'utf8').toString('base64url');
}

/** What a page token names (pageToken), or InvalidParams for one this server did not give. */
function parsePageToken(token: string): { time: string; id: string } {
  let v: unknown = null;
  if (/^[A-Za-z0-9_-]{1,2048}$/.test(token)) {
    try {
      v = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    } catch {
      v = null;
    }
  }
  if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== 'string' || typeof v[1] !== 'string') {
    throw new RequestMalformedError('pageToken is not one this agent gave: pass the nextPageToken of the page before, or none for the first page');
  }
  return { time: v[0], id: v[1] };
}
