/**
 * Serving tasks: every instance of an identity pulls requests from the one
 * durable consumer of the operator's work-queue stream that the identity's
 * servers share, `concurrency` at a time (one pull waiting at a time for as
 * many as it has room for). Each task is a run in the store,
 * named from the request (origin.ts), so whichever instance gets the message
 * finds the run: a message delivered again (its instance died, and stopped
 * telling the stream it works on it) is a takeover, which resumes the run
 * where its journal ends, paying no journaled model call again. Liveness is
 * the consumer's: the message that carries a task (its stream sequence is kept
 * in the task's note) is delivered again only once its holder stopped saying it
 * works on it; another message of the same request, published again while that
 * one is queued, is a copy and is dropped, never a takeover.
 *
 * The task's stream is the projection of the run's journal (a2a/task-events):
 * the records already durable give the events already due, of which only those
 * the events stream lacks are published, and each record made durable from
 * then on gives its events as it is. The message is acknowledged only once the
 * run's terminal record is durable and its last event published; until then
 * the instance says it is still working every third of the ack wait.
 *
 * A task that cannot go on without an operator ends suspended (the run waits
 * for `logbook run --resume`): a call with side effects that may have been cut
 * short, a call awaiting an approval. A request that cannot be served is
 * acknowledged with `accepted: false` and its reason, and no run is made.
 */
import type { JsMsg } from '@nats-io/jetstream';
import type { Subscription } from '@nats-io/transport-node';
import {
  HEADER_ROOM,
  decodeMessage,
  headerFits,
  stampTaskReply,
  TASK_END_CODES,
  TaskProjection,
  type RequestMessage,
  type TaskEvent,
} from '../../a2a/index.js';
import { cancelSubject, senderOfCancelSubject, taskSubject } from '../../a2a/subjects.js';
import { IDENTITY_PATTERN } from '../../a2a/protocol.js';
import { canceledMessage, decodeRecord, interruptedCallMessage, isLogbookError, type JournalRecord } from '../../core/index.js';
import { finishFork } from '../../store/fork.js';
import { lastAlong } from '../../store/lineage.js';
import type { Link } from '../../store/jetstream/connection.js';
import type { Store } from '../../store/store.js';
import type { Agent } from '../agent.js';
import { compactionSettings } from '../compaction.js';
import { resumeRun, startRun, type AgentRun } from '../run.js';
import { SuspendReason, type RunResult } from '../runner.js';
import { budgetLimits, budgetProblem } from './budget.js';
import {
  CANCELED_NOTE,
  CONTINUED_NOTE,
  TASK_NOTE,
  callRequestId,
  encodeCancellation,
  encodeTaskOrigin,
  originEvents,
  ownFrom,
  parseCancellation,
  parseTaskOrigin,
  servableRequestId,
  taskRunId,
  type TaskOrigin,
} from './origin.js';
import type { TaskStreams } from './spec.js';
import { bindTaskStreams } from './streams.js';
import {
  endsTask,
  fetchTasks,
  lastTaskMessage,
  lastTaskSequence,
  publishTaskMessage,
  queuedSender,
  stillQueued,
  taskConsumer,
  taskEventsOf,
  type TaskEvents,
} from './wire.js';

/** What a TaskServer serves, where, and how many at once. */
export interface TaskServerOptions {
  identity: string;
  /** The JetStream connection the streams are reached over. */
  link: Link;
  streams: TaskStreams;
  /** Where the tasks' runs are kept. */
  store: Store;
  /** What runs each task: the config's agent, shared by the tasks running at once. */
  agent: Agent;
  /** Tasks run at once. */
  concurrency: number;
  /** How long a message waits for a sign of life before another instance gets it. */
  ackWaitMs: number;
  /** Told of each task's admission, takeover, end or refusal, for the operator's log. */
  onTask?: (event: ServedTask) => void;
}

/** What happened to a task, for the log line a server writes. */
export type ServedTask =
  | { kind: 'refused'; request: string; sender: string; reason: string }
  | { kind: 'started'; request: string; sender: string; run: string; takeover: boolean; delivery: number }
  | { kind: 'ended'; request: string; run: string; end: string; ms: number }
  | { kind: 'canceled'; request: string; by: string; running: boolean }
  | { kind: 'cancelRefused'; request: string; by: string; reason: string }
  | { kind: 'deferred'; request: string; detail: string }
  | { kind: 'dropped'; request: string; detail: string }
  | { kind: 'failed'; request: string; detail: string };

/** How long one pull waits for a task before it asks again. */
const PULL_EXPIRES_MS = 5_000;
/** The pause after a pull failed (the servers away, an election). */
const PULL_RETRY_MS = 1_000;

/**
 * Publishes a task's events in order, once each: those at or below `published`
 * are in the stream already. An event no body can carry (the encoder's check
 * refuses it) is replaced by the task's `error` end at its sequence, after
 * which nothing more is published and `onUnsendable` is told, so the task ends
 * and its message is acknowledged rather than delivered again forever.
 */
class EventPublisher {
  private chain: Promise<void> = Promise.resolve();
  private failure: unknown = null;
  private closed = false;

  constructor(
    private readonly link: Link,
    private readonly stream: string,
    private readonly request: RequestMessage,
    private readonly where: TaskEvents,
    private readonly sender: string,
    private published: number,
    private readonly onUnsendable: (problem: string) => void,
  ) {}

  /** Whether the task's stream was ended in place of an event that could not be sent. */
  get endedUnsendable(): boolean {
    return this.closed;
  }

  /** Queues `events` after those queued before; after a failure nothing more is sent (the stream must stay gap-free). */
  add(events: readonly TaskEvent[]): void {
    for (const e of events) {
      if (e.sequence <= this.published) continue;
      this.published = e.sequence;
      this.chain = this.chain.then(async () => {
        if (this.failure !== null || this.closed) return;
        try {
          await this.send(e.kind, e.body, e.sequence);
        } catch (err) {
          if (!isLogbookError(err, 'invalid_message')) {
            this.failure = err;
            return;
          }
          const problem = `event ${e.sequence} of task ${this.request.id} cannot be sent (${err.message}); the task's run keeps it in its journal`;
          try {
            await this.send('error', { stop_reason: 'error', error: problem }, e.sequence);
            this.closed = true;
            this.onUnsendable(problem);
          } catch (failed) {
            this.failure = failed;
          }
        }
      });
    }
  }

  private send(kind: TaskEvent['kind'], body: TaskEvent['body'], sequence: number): Promise<boolean> {
    return publishTaskMessage(this.link, this.stream, kind, stampTaskReply(kind, body as never, this.request, sequence, this.sender), this.where);
  }

  /** Waits for everything queued to be published; rejects with the first failure. */
  async flush(): Promise<void> {
    await this.chain;
    if (this.failure !== null) throw this.failure;
  }
}

interface ActiveTask {
  msg: JsMsg;
  /** Aborted by a cancel, with a SuspendReason naming who canceled it. */
  controller: AbortController;
}

/**
 * Serves an identity's tasks from the operator's work-queue stream: each
 * request a run in the store (taken over from its journal when another
 * instance died with it), its events the projection of the journal, the
 * message acknowledged once the end is durable and published.
 */
export class TaskServer {
  private stopping = false;
  private handedBack = false;
  private readonly active = new Map<string, ActiveTask>();
  private taking: Promise<void> = Promise.resolve();
  private cancels: Subscription | null = null;
  private senderCancels: Subscription | null = null;

  private constructor(
    private readonly options: TaskServerOptions,
    private readonly consumer: Awaited<ReturnType<typeof taskConsumer>>,
  ) {}

  /** Binds the streams (refusing ones that cannot hold tasks), sets up the identity's consumer, and starts taking tasks. */
  static async start(options: TaskServerOptions): Promise<TaskServer> {
    const { link, streams, identity } = options;
    await bindTaskStreams(link, streams, [taskSubject(identity)]);
    const consumer = await taskConsumer(link, streams.tasks, identity, options.ackWaitMs);
    const server = new TaskServer({ ...options, agent: uncompacted(options.agent) }, consumer);
    const onCancel = (_err: unknown, msg: { data: Uint8Array; subject: string }): void => void server.onCancel(msg.data, senderOfCancelSubject(identity, msg.subject));
    server.cancels = link.nc.subscribe(cancelSubject(identity), { callback: onCancel });
    server.senderCancels = link.nc.subscribe(`${cancelSubject(identity)}.*`, { callback: onCancel });
    await link.nc.flush();
    server.taking = server.work();
    return server;
  }

  /** Tasks running now. */
  get running(): number {
    return this.active.size;
  }

  private tell(event: ServedTask): void {
    this.options.onTask?.(event);
  }

  /**
   * Takes tasks while there is room for one: one pull at a time for as many
   * messages as there are free slots, each served as it comes. So an instance
   * keeps one pull waiting on the consumer whatever its concurrency (a
   * consumer lets only so many wait: 512 by default).
   */
  private async work(): Promise<void> {
    const concurrency = Math.max(1, this.options.concurrency);
    const running = new Set<Promise<void>>();
    while (!this.stopping) {
      if (running.size >= concurrency) {
        await Promise.race(running);
        continue;
      }
      try {
        for await (const msg of fetchTasks(this.consumer, concurrency - running.size, PULL_EXPIRES_MS)) {
          if (this.stopping) {
            msg.nak(); // taken as the server stopped: another instance gets it at once
            continue;
          }
          const task: Promise<void> = this.serve(msg).finally(() => running.delete(task));
          running.add(task);
        }
      } catch (err) {
        if (this.stopping) break;
        this.tell({ kind: 'failed', request: '', detail: `cannot take tasks from stream ${this.options.streams.tasks}: ${(err as Error).message}` });
        await new Promise((r) => setTimeout(r, PULL_RETRY_MS));
      }
    }
    await Promise.all(running);
  }

  /** Serves one message, telling the stream it is worked on until it is settled. */
  private async serve(msg: JsMsg): Promise<void> {
    const heartbeat = setInterval(() => msg.working(), Math.max(500, Math.floor(this.options.ackWaitMs / 3)));
    try {
      await this.handle(msg);
    } catch (err) {
      // Nothing settled it: it is delivered again after a while (the store or the streams away).
      const detail = err instanceof Error ? err.message : String(err);
      this.tell({ kind: 'failed', request: requestIdOf(msg), detail });
      if (!this.handedBack) msg.nak(this.options.ackWaitMs);
    } finally {
      clearInterval(heartbeat);
    }
  }

  private async handle(msg: JsMsg): Promise<void> {
    const { identity, store } = this.options;
    let request: RequestMessage;
    try {
      request = decodeMessage(msg.data, 'request');
    } catch (err) {
      await this.refuseUnreadable(msg, (err as Error).message);
      return;
    }
    const id = request.id;
    if (!servableRequestId(id) || request.request !== id) {
      // No events subject can be made of it: nothing can be answered.
      this.tell({ kind: 'refused', request: id, sender: request.sender.name, reason: `request id ${JSON.stringify(id)} cannot name a subject (or its request differs from its id)` });
      msg.ack();
      return;
    }
    if (!headerFits(request, identity)) {
      await this.refuseUnechoable(msg, request);
      return;
    }
    const runId = taskRunId(identity, id);
    let origin = parseTaskOrigin(await store.getNote(runId, TASK_NOTE));
    if (origin === null) {
      if (await this.takenElsewhere(msg, request, runId)) return;
      const admitted = await this.admit(request);
      if (typeof admitted === 'string') {
        await this.refuse(msg, request, admitted);
        return;
      }
      const bySender = taskEventsOf(request, msg.headers).sender !== undefined;
      await store.putNote(runId, TASK_NOTE, encodeTaskOrigin({ ...admitted, message: msg.info.streamSequence, ...(bySender ? { events: 'sender' as const } : {}) }));
      origin = parseTaskOrigin(await store.getNote(runId, TASK_NOTE)) ?? admitted; // another instance's, if it kept one first
    }
    if (await this.isCopy(msg, origin)) return;
    const controller = new AbortController();
    this.active.set(id, { msg, controller });
    try {
      await this.runTask(msg, request, runId, origin, controller);
    } finally {
      if (this.active.get(id)?.msg === msg) this.active.delete(id);
    }
  }

  /**
   * Whether `msg` is a copy of the task's request (published again, by its
   * sender or anyone) while the message that carries the task is still in the
   * work queue: that message is held by a live instance (which says so every
   * third of the ack wait) or is delivered again once its holder stops
   * answering, and only its delivery may take the run over. A copy is
   * acknowledged and dropped; the task's caller reads its one stream
   * whichever message it sent. When the carrying message is gone (the task
   * ended and it was acknowledged), the delivery goes on, and finds the task ended.
   */
  private async isCopy(msg: JsMsg, origin: TaskOrigin): Promise<boolean> {
    const carrier = origin.message;
    const seq = msg.info.streamSequence;
    if (carrier === undefined || carrier === seq) return false;
    const { link, streams } = this.options;
    if (!(await stillQueued(link, streams.tasks, carrier))) return false;
    this.tell({
      kind: 'dropped',
      request: origin.request,
      detail: `a copy of its request (message ${seq} of stream ${streams.tasks}) dropped: message ${carrier} carries the task, and only its delivery takes the run over once its holder stops answering`,
    });
    await settle(msg);
    return true;
  }

  /**
   * Whether the task was taken before by an instance whose store this one does
   * not reach: its stream has begun (an ack goes out only once the run is
   * durable) and its run is not here. Starting over would run its calls again,
   * side effects included, and stitch the caller's stream from two runs; so the
   * task ends with `error` `run_not_in_store` (or, already ended, is settled).
   * A delivery count above one alone says nothing: a server that stops gives
   * back untouched the message it just took.
   */
  private async takenElsewhere(msg: JsMsg, request: RequestMessage, runId: string): Promise<boolean> {
    const { link, streams, identity, store } = this.options;
    const where = taskEventsOf(request, msg.headers);
    const last = await lastTaskMessage(link, streams.events, where);
    if (last === null || (await store.has(runId))) return false;
    if (!endsTask(last)) {
      const error = `task ${request.id} was taken by an instance whose store this one does not reach (${store.location}): its run ${runId} is not here, and starting it over could run a call with side effects again; every instance of agent ${identity} must share one store (a JetStream store)`;
      await publishTaskMessage(link, streams.events, 'error', stampTaskReply('error', { stop_reason: 'error', error, code: TASK_END_CODES.runNotInStore }, request, last.sequence + 1, identity), where);
      this.tell({ kind: 'ended', request: request.id, run: runId, end: `error: ${error}`, ms: 0 });
    }
    await settle(msg);
    return true;
  }

  /** The task's origin when it can be served, else why not. */
  private async admit(request: RequestMessage): Promise<TaskOrigin | string> {
    const { identity, agent, store } = this.options;
    if (request.recipient !== undefined && request.recipient.name !== identity) return `this server serves agent ${identity}, not ${request.recipient.name}`;
    if (request.prompt.trim() === '') return 'the request has no prompt';
    const budget = budgetProblem(request.budget, agent);
    if (budget !== null) return budget;
    const origin: TaskOrigin = {
      request: request.id,
      conversation: request.conversation,
      sender: request.sender.name,
      ...(request.parent ? { parent: request.parent } : {}),
      agent: identity,
    };
    if (request.conversation === request.id) return origin;
    // A follow-up: the conversation is named by its first request; its newest run is found by following its continuations.
    const first = taskRunId(identity, request.conversation);
    if (!(await store.has(first))) return `conversation ${request.conversation} names no earlier task of agent ${identity}`;
    const own = taskRunId(identity, request.id);
    const newest = await lastAlong(first, async (run) => {
      const next = await store.getNote(run, CONTINUED_NOTE);
      return next === own ? null : next;
    });
    const last = await store.loadState(newest);
    const lastRequest = parseTaskOrigin(await store.getNote(newest, TASK_NOTE))?.request ?? newest;
    if (last.state.status === 'open') return `the conversation's last task (request ${lastRequest}) has not ended; send the next request once it has`;
    if (last.state.status !== 'completed') {
      return `the conversation's last task (request ${lastRequest}) ended ${last.state.status}, and only a task that completed can be followed up`;
    }
    // A completed run ends on its one completed record: the conversation goes on from the record before it.
    return { ...origin, continues: { run: newest, at: last.lastSeq - 1 } };
  }

  /** Acknowledges `request` with `accepted: false` (unless it was answered already) and lets the message go. */
  private async refuse(msg: JsMsg, request: RequestMessage, reason: string): Promise<void> {
    const { link, streams, identity } = this.options;
    const where = taskEventsOf(request, msg.headers);
    if ((await lastTaskSequence(link, streams.events, where)) === 0) {
      await publishTaskMessage(link, streams.events, 'ack', stampTaskReply('ack', { accepted: false, reason }, request, 1, identity), where);
    }
    this.tell({ kind: 'refused', request: request.id, sender: request.sender.name, reason });
    await settle(msg);
  }

  /**
   * A request whose header (its conversation, its parent) every message of its
   * task would echo, but no message can carry within the room a body leaves
   * for it: refused before anything is run or paid for, in an ack when one can
   * carry it, else in the log alone; acknowledged either way, never delivered again.
   */
  private async refuseUnechoable(msg: JsMsg, request: RequestMessage): Promise<void> {
    const { link, streams, identity } = this.options;
    const reason = `its header (request id, conversation and parent) takes more than the ${HEADER_ROOM / 1024} KiB every message of a task has for it`;
    const where = taskEventsOf(request, msg.headers);
    try {
      if ((await lastTaskSequence(link, streams.events, where)) === 0) {
        await publishTaskMessage(link, streams.events, 'ack', stampTaskReply('ack', { accepted: false, reason }, request, 1, identity), where);
      }
    } catch (err) {
      if (!isLogbookError(err, 'invalid_message')) throw err; // no body can carry even the refusal: the log says it
    }
    this.tell({ kind: 'refused', request: request.id, sender: request.sender.name, reason });
    await settle(msg);
  }

  /** A body that is no valid request: refused in its ack when it names a request and a sender, else only in the log. */
  private async refuseUnreadable(msg: JsMsg, problem: string): Promise<void> {
    const named = looseHeader(msg.data);
    if (named !== null && servableRequestId(named.request)) {
      const { link, streams, identity } = this.options;
      const reason = `the request cannot be served: ${problem}`;
      const where = taskEventsOf(named, msg.headers);
      if ((await lastTaskSequence(link, streams.events, where)) === 0) {
        await publishTaskMessage(link, streams.events, 'ack', stampTaskReply('ack', { accepted: false, reason }, named, 1, identity), where);
      }
    }
    this.tell({ kind: 'refused', request: named?.request ?? '', sender: named?.sender.name ?? '', reason: problem });
    await settle(msg);
  }

  /** Makes or finds the task's run, publishes what its journal already says, and runs it to its end. */
  private async runTask(msg: JsMsg, request: RequestMessage, runId: string, origin: TaskOrigin, controller: AbortController): Promise<void> {
    const { store, agent, link, streams, identity } = this.options;
    const started = Date.now();
    const takeover = await store.has(runId);
    let run: AgentRun | null = takeover && origin.continues === undefined ? null : await this.makeRun(request, runId, origin);
    let created = '';
    const projection = new TaskProjection({
      ownFrom: ownFrom(origin),
      stream: request.stream !== false,
      agentCall: (name, callId) => {
        const remote = agent.tools.get(name)?.remote;
        return remote?.task === true ? { agent: remote.agent, task: callRequestId({ runId, runCreated: created, callId }) } : undefined;
      },
    });
    const where = originEvents(origin);
    const last = await lastTaskMessage(link, streams.events, where);
    if (last !== null && endsTask(last)) {
      await settle(msg); // its stream has ended (an event it could not carry ended it): nothing more belongs to it
      return;
    }
    const unsendable = (problem: string): void => controller.abort(new SuspendReason(problem));
    const publisher = new EventPublisher(link, streams.events, request, where, identity, last?.sequence ?? 0, unsendable);
    let lastSeq = 0;
    const project = (record: JournalRecord): void => {
      if ('meta' in record) created = record.meta.created;
      lastSeq = record.seq;
      publisher.add(projection.push(record));
    };
    try {
      // A run made just now holds its meta alone; one found is read whole.
      if (run !== null) project(decodeRecord(run.metaLine));
      else for await (const { record } of store.records(runId)) project(record);
      if (projection.ended) {
        await publisher.flush(); // a task that ended before: what its stream lacks, then it is settled
        await settle(msg);
        return;
      }
      this.tell({ kind: 'started', request: request.id, sender: request.sender.name, run: runId, takeover, delivery: msg.info.deliveryCount });
      // A continuation whose fork was made but not yet asked anything gets the request's prompt as its follow-up.
      const asked = lastSeq >= ownFrom(origin);
      const observer = { record: project };
      try {
        run ??= await this.resume(request.id, runId, origin.continues !== undefined && !asked ? promptOf(request) : undefined);
      } catch (err) {
        if (!isLogbookError(err) || !UNSERVABLE_RESUMES.has(err.code)) throw err;
        // This instance's config cannot go on with the run (it drifted since): the task ends, the run resumable by an operator.
        await endRun(store, runId, `this agent cannot take task ${request.id} over: ${err.message}`, project);
        await publisher.flush();
        this.tell({ kind: 'ended', request: request.id, run: runId, end: `error: ${err.message}`, ms: Date.now() - started });
        await settle(msg);
        return;
      }
      if (run === null) {
        msg.nak(this.options.ackWaitMs); // another instance holds it: it settles the task, or dies and leaves it to the next
        return;
      }
      const canceled = parseCancellation(await store.getNote(runId, CANCELED_NOTE));
      let result: RunResult;
      if (canceled !== null) {
        result = await run.suspend(canceledMessage(canceled.by, canceled.reason), observer);
      } else if (run.interruptedCall !== undefined) {
        // Whether the call took effect is unknown and its tool has side effects: an operator says what to do.
        result = await run.suspend(interruptedCallMessage(run.interruptedCall), observer);
      } else {
        result = await run.execute({ signal: controller.signal, observer, limits: budgetLimits(request.budget), parentRequest: request.id });
      }
      run = null;
      if (this.handedBack) return;
      await publisher.flush();
      if (publisher.endedUnsendable) {
        this.tell({ kind: 'ended', request: request.id, run: runId, end: `error: an event could not be sent; run ${runId} ${endOf(result)}`, ms: Date.now() - started });
        await settle(msg);
        return;
      }
      if (!projection.ended) {
        // The run stopped without a durable end (its journal failed): it is taken up again later.
        this.tell({ kind: 'deferred', request: request.id, detail: `run ${runId} stopped without recording its end (${result.message ?? result.reason}); the task is taken up again` });
        msg.nak(this.options.ackWaitMs);
        return;
      }
      this.tell({ kind: 'ended', request: request.id, run: runId, end: endOf(result), ms: Date.now() - started });
      await settle(msg);
    } finally {
      await run?.close();
    }
  }

  /**
   * The run a new task starts: a fresh one, or the fork of the conversation's
   * newest run it continues. Null when another instance made it first, and for
   * a continuation, which is resumed with its follow-up once its records are
   * projected. A continuation's steps are taken on every delivery (each is
   * idempotent), so a takeover finishes what a crash cut short: the fork's
   * records and notes, and the `continued` note the conversation is followed by.
   */
  private async makeRun(request: RequestMessage, runId: string, origin: TaskOrigin): Promise<AgentRun | null> {
    const { store, agent } = this.options;
    if (origin.continues === undefined) {
      try {
        return await startRun(store, agent, { id: runId, prompt: promptOf(request) });
      } catch (err) {
        if (!isLogbookError(err, 'exists')) throw err;
        return null;
      }
    }
    await finishFork(store, origin.continues.run, { id: runId, at: origin.continues.at });
    await store.putNote(origin.continues.run, CONTINUED_NOTE, runId);
    return null;
  }

  /** Resumes the task's run, with `followUp` when it has yet to be asked; null when another instance holds it. */
  private async resume(request: string, runId: string, followUp: string | undefined): Promise<AgentRun | null> {
    const { store, agent } = this.options;
    try {
      return await resumeRun(store, agent, runId, followUp !== undefined ? { followUp } : {});
    } catch (err) {
      if (isLogbookError(err, 'locked')) {
        this.tell({ kind: 'deferred', request, detail: `run ${runId} is held by another instance; the task waits for it` });
        return null;
      }
      throw err;
    }
  }

  /**
   * A cancel heard: kept beside the task's run (so whoever takes it up ends it
   * canceled), and the task aborted where it runs here. One heard on the
   * subject of a sender (`subjectSender`, which NATS permissions can keep to
   * that sender) is taken only from that sender and for a task it sent.
   */
  private async onCancel(data: Uint8Array, subjectSender: string | undefined): Promise<void> {
    let cancel;
    try {
      cancel = decodeMessage(data, 'cancel');
    } catch (err) {
      this.tell({ kind: 'failed', request: '', detail: `a cancel that cannot be read: ${(err as Error).message}` });
      return;
    }
    const { identity, store } = this.options;
    const by = cancel.sender.name;
    const reason = cancel.reason;
    if (subjectSender !== undefined) {
      const refused = await this.cancelRefusal(cancel.request, by, subjectSender).catch((err: unknown) => `its task cannot be read (${(err as Error).message})`);
      if (refused !== null) {
        this.tell({ kind: 'cancelRefused', request: cancel.request, by, reason: refused });
        return;
      }
    }
    const active = this.active.get(cancel.request);
    active?.controller.abort(new SuspendReason(canceledMessage(by, reason)));
    this.tell({ kind: 'canceled', request: cancel.request, by, running: active !== undefined });
    if (!servableRequestId(cancel.request)) return;
    await store
      .putNote(taskRunId(identity, cancel.request), CANCELED_NOTE, encodeCancellation({ by, ...(reason ? { reason } : {}) }))
      .catch((err: unknown) => this.tell({ kind: 'failed', request: cancel.request, detail: `cannot keep its cancel: ${(err as Error).message}` }));
  }

  /** Why a cancel from `by`, heard on sender `subjectSender`'s subject, is not taken; null when it is. */
  private async cancelRefusal(request: string, by: string, subjectSender: string): Promise<string | null> {
    if (by !== subjectSender) return `it names sender ${by} but came on the subject of ${subjectSender}`;
    if (!servableRequestId(request)) return 'it names no request this agent serves';
    const { identity, store, link, streams } = this.options;
    const owner =
      parseTaskOrigin(await store.getNote(taskRunId(identity, request), TASK_NOTE))?.sender ?? (await queuedSender(link, streams.tasks, identity, request));
    if (owner === null) return `agent ${identity} has no task ${request}`;
    return owner === by ? null : `task ${request} was sent by ${owner}, and only its sender may cancel it on its own subject`;
  }

  /** Stops taking tasks and waits for those running to end (each settles its message). */
  async drain(): Promise<void> {
    this.stopping = true;
    await this.taking;
    this.cancels?.unsubscribe();
    this.senderCancels?.unsubscribe();
  }

  /**
   * Gives the tasks running back to the stream at once, without ending their
   * runs (as a crash would): another instance takes each over from its journal.
   */
  handBack(): void {
    this.stopping = true;
    this.handedBack = true;
    for (const { msg } of this.active.values()) msg.nak();
  }
}

/**
 * The agent a task runs as: never compacted on its own. A continuation is
 * another run, which the task's stream, its takeover by another instance and
 * its caller do not follow; a task that outgrows the context window ends with
 * `error` instead.
 */
function uncompacted(agent: Agent): Agent {
  return { ...agent, compaction: { ...compactionSettings(agent), at: false } };
}

/** Why a resume can be refused that no waiting changes: the config this instance runs does not fit the run. */
const UNSERVABLE_RESUMES = new Set(['config_drift', 'provider_changed', 'interactivity_mismatch', 'not_at_input', 'unknown_call']);

/** Ends run `id` with an error record saying `message`, told to `project` once durable. */
async function endRun(store: Store, id: string, message: string, project: (record: JournalRecord) => void): Promise<void> {
  const journal = await store.open(id);
  try {
    const record: JournalRecord = { seq: journal.lastSeq + 1, terminal: { reason: 'error', message } };
    await journal.append(record);
    project(record);
  } finally {
    await journal.close();
  }
}

/** Acknowledges a message, waiting for the stream to confirm; one that is not confirmed is delivered again and found settled. */
async function settle(msg: JsMsg): Promise<void> {
  await msg.ackAck().catch(() => false);
}

/** The prompt the task's run gets: the request's, then its context when it has one. */
export function promptOf(request: RequestMessage): string {
  return request.context ? `${request.prompt}\n\n${request.context}` : request.prompt;
}

/** How a run's end is said in the log. */
function endOf(result: RunResult): string {
  return result.message ? `${result.reason}: ${result.message}` : result.reason;
}

/** The request id a message's body names, for a log line, whatever else is wrong with it. */
function requestIdOf(msg: JsMsg): string {
  return looseHeader(msg.data)?.request ?? '';
}

/** What an unreadable request body still says of itself (its id and sender), to answer it; null when it says too little. */
function looseHeader(data: Uint8Array): RequestMessage | null {
  try {
    const v = JSON.parse(new TextDecoder().decode(data)) as Record<string, unknown>;
    const id = v.id;
    const sender = (v.sender as { name?: unknown } | undefined)?.name;
    if (typeof id !== 'string' || typeof sender !== 'string' || !IDENTITY_PATTERN.test(sender)) return null;
    const conversation = typeof v.conversation === 'string' ? v.conversation : id;
    return { protocol: 'io.choria.fisk-ai.v1.request', id, request: id, conversation, sequence: 0, time: '', sender: { name: sender }, prompt: '' };
  } catch {
    return null;
  }
}

