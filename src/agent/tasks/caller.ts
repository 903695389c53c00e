/**
 * Asking another agent to do a task: the request goes into the operator's
 * work queue (unless the task has events already: it was sent before, and a
 * request sent again after the queue forgot its id would be a second message),
 * and its stream is read from the start until its end. So a caller that comes
 * back to a task (a resumed run, `logbook ask --request ID`) sends nothing new
 * and reads the same stream again.
 *
 * A task's events are asked for on the subject of its sender (EVENTS_HEADER),
 * where NATS permissions can keep them to that sender, when every running
 * instance of the agent says it publishes them there; else on the spec's
 * subject, as an older server does.
 */
import {
  stampTaskRequest,
  taskSubject,
  type AckMessage,
  type Budget,
  type ErrorMessage,
  type RequestMessage,
  type ResultMessage,
} from '../../a2a/index.js';
import { eventsBySender } from '../../a2a/directory.js';
import { LogbookError } from '../../core/index.js';
import type { Link } from '../../store/jetstream/connection.js';
import type { TaskStreams } from './spec.js';
import { bindTaskStreams } from './streams.js';
import { consumerState, followTask, lastTaskSequence, publishRequest, withdrawQueuedTask, type TaskEvents, type TaskMessage, type Withdrawal } from './wire.js';

/** A task to ask for. */
export interface TaskRequest {
  /** The request's id: fresh, or derived so that asking again is the same task. */
  id: string;
  /** The identity asked. */
  agent: string;
  /** The identity asking. */
  sender: string;
  prompt: string;
  context?: string;
  /** The conversation it continues (its first request's id); a new one when absent. */
  conversation?: string;
  parent?: string;
  budget?: Budget;
}

/** How a task ended, as its stream's last message says. */
export type TaskEnd = { kind: 'result'; message: ResultMessage } | { kind: 'error'; message: ErrorMessage } | { kind: 'refused'; message: AckMessage };

/** How TaskCaller.ask waits for a task. */
export interface AskOptions {
  /** Ends the wait (`interrupted`); the task goes on. */
  signal?: AbortSignal;
  /** How long to wait for the task's end (`agent_unavailable` after it); the task goes on. */
  timeoutMs?: number;
  /** Told of each message of the task's stream as it arrives: its ack, its events, its end. */
  onMessage?: (message: TaskMessage, body: string) => void;
  /** Told whether the request was sent now (false: it had been, and its stream is read again). */
  onSent?: (sent: boolean) => void;
}

/**
 * Sends tasks to other agents and reads each task's stream from its start, so
 * a caller that asks again with the same request id re-attaches to one task.
 */
export class TaskCaller {
  /** Agents whose task subject the tasks stream was found to take. */
  private readonly checked = new Map<string, Promise<unknown>>();
  /** Agents found to publish a task's events on its sender's subject (once each: a newer server keeps doing so). */
  private readonly bySender = new Map<string, Promise<boolean>>();

  constructor(
    private readonly link: Link,
    readonly streams: TaskStreams,
  ) {}

  /**
   * Where the events of task `request`, sent by `sender` to `agent`, are (or
   * will be): on the sender's subject when every running instance of the
   * agent says it publishes them there (`$SRV.INFO`), else on the spec's subject.
   */
  async eventsOf(agent: string, request: string, sender: string): Promise<TaskEvents> {
    let found = this.bySender.get(agent);
    if (found === undefined) {
      found = eventsBySender(this.link.nc, agent, this.link.timeoutMs);
      void found.then((yes) => !yes && this.bySender.delete(agent)); // asked again next time: a newer server may have come
      this.bySender.set(agent, found);
    }
    return (await found) ? { request, sender } : { request };
  }

  /** Checks, once per agent, that the streams exist and take its tasks. */
  check(agent: string): Promise<unknown> {
    let bound = this.checked.get(agent);
    if (bound === undefined) {
      bound = bindTaskStreams(this.link, this.streams, [taskSubject(agent)]);
      bound.catch(() => this.checked.delete(agent));
      this.checked.set(agent, bound);
    }
    return bound;
  }

  /** The request as sent, and where its events are; `sent` false when its task has events already, so nothing was sent. */
  async send(task: TaskRequest): Promise<{ request: RequestMessage; sent: boolean; where: TaskEvents }> {
    await this.check(task.agent);
    const request = stampTaskRequest(
      { prompt: task.prompt, ...(task.context ? { context: task.context } : {}), ...(task.budget ? { budget: task.budget } : {}) },
      {
        id: task.id,
        ...(task.conversation !== undefined ? { conversation: task.conversation } : {}),
        ...(task.parent !== undefined ? { parent: task.parent } : {}),
        sender: task.sender,
        recipient: task.agent,
      },
    );
    const where = await this.eventsOf(task.agent, task.id, task.sender);
    if ((await lastTaskSequence(this.link, this.streams.events, where, narrow(where))) > 0) return { request, sent: false, where };
    await publishRequest(this.link, this.streams.tasks, request, where.sender !== undefined);
    return { request, sent: true, where };
  }

  /**
   * Whether a server of `agent` seems to be there to take a task: `none` when
   * none has ever taken one (no consumer of its tasks), `away` when none is
   * waiting for one or working on one now, `there` otherwise.
   */
  async servers(agent: string): Promise<'none' | 'away' | 'there'> {
    const state = await consumerState(this.link, this.streams.tasks, agent);
    if (state === null) return 'none';
    return state.waiting === 0 && state.working === 0 ? 'away' : 'there';
  }

  /** Whether task `where` (a request id: on the spec's subject) of `agent` has begun: its stream holds a message (it was taken up, or refused). */
  async begun(agent: string, task: string | TaskEvents): Promise<boolean> {
    const where = placeOf(task);
    await this.check(agent);
    return (await lastTaskSequence(this.link, this.streams.events, where, narrow(where))) > 0;
  }

  /** Takes task `where` of `agent` out of the work queue if no server has been given it, its stream ended canceled by `by` (wire.ts withdrawQueuedTask). */
  async withdraw(agent: string, task: string | TaskEvents, by: { sender: string; reason?: string }): Promise<Withdrawal> {
    await this.check(agent);
    return withdrawQueuedTask(this.link, this.streams, agent, placeOf(task), by);
  }

  /** Asks for `task` and waits for its end, reading its stream from the start. */
  async ask(task: TaskRequest, options: AskOptions = {}): Promise<TaskEnd> {
    const { sent, where } = await this.send(task);
    options.onSent?.(sent);
    return this.await(where, task.agent, options);
  }

  /** Reads task `where`'s stream (a request id: on the spec's subject) from the start to its end. */
  async await(task: string | TaskEvents, agent: string, options: AskOptions = {}): Promise<TaskEnd> {
    const where = placeOf(task);
    const id = where.request;
    const stop = new AbortController();
    const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => stop.abort(), options.timeoutMs);
    const onAbort = (): void => stop.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      for await (const { message, body } of followTask(this.link, this.streams.events, id, { signal: stop.signal, ...(where.sender !== undefined ? { sender: where.sender } : {}) })) {
        options.onMessage?.(message, body);
        if (message.protocol.endsWith('.result')) return { kind: 'result', message: message as ResultMessage };
        if (message.protocol.endsWith('.error')) return { kind: 'error', message: message as ErrorMessage };
        if (message.protocol.endsWith('.ack') && !(message as AckMessage).accepted) return { kind: 'refused', message: message as AckMessage };
      }
      if (options.signal?.aborted) throw new LogbookError('interrupted', `stopped waiting for task ${id} of agent ${agent}; the task goes on`);
      if (stop.signal.aborted) {
        throw new LogbookError('agent_unavailable', `agent ${agent} did not end task ${id} within ${options.timeoutMs! / 1000} s; the task may still be running`);
      }
      throw new LogbookError('unavailable', `the events of task ${id} stopped before its end`);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }
}

/** A task's stream on its sender's subject is read only as the narrow rights of that sender allow (wire.ts TaskEvents). */
function narrow(where: TaskEvents): boolean {
  return where.sender !== undefined;
}

/** A task named by its request id alone is on the spec's subject. */
function placeOf(task: string | TaskEvents): TaskEvents {
  return typeof task === 'string' ? { request: task } : task;
}
