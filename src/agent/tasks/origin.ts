/**
 * What logbook keeps beside a task's run (notes: Store.putNote, never in the
 * journal), each written once:
 *
 * - `task`: where the task came from (its request, conversation, sender and
 *   parent, the agent that served it), the work-queue message that carries it
 *   and, for a conversation's continuation, the run it continues and the seq
 *   that run was cut at, and whether its events go on its sender's subject.
 *   Written before the run is made, so an instance that takes the task over
 *   makes the same run and publishes where the first one did.
 * - `continued`: on a task's run, the run that continues its conversation, so
 *   the newest run of a conversation is found by following these from its first.
 * - `canceled`: who canceled the task and why, kept when the cancel is heard,
 *   so an instance that takes it up later ends it canceled too.
 *
 * And how a task's run and a sub-task's request are named: both derived, so a
 * request sent again after a crash is the same task, in the same run.
 */
import { derivedMessageId } from '../../a2a/ids.js';
import { isSubjectToken } from '../../a2a/subjects.js';
import { isValidId, nodeCrypto } from '../../core/index.js';
import type { ToolCallInfo } from '../tools/tool.js';
import type { TaskEvents } from './wire.js';

import { noteObject } from '../../store/run-notes.js';

export { TASK_NOTE, CANCELED_NOTE, CONTINUED_NOTE } from '../../store/run-notes.js';

/** Where a task's run came from: the note kept beside it (TASK_NOTE). */
export interface TaskOrigin {
  /** The request's id. */
  request: string;
  conversation: string;
  /** The identity that sent it. */
  sender: string;
  /** The request (or, from a run that is no task, the run) that asked for it. */
  parent?: string;
  /** The identity that served it. */
  agent: string;
  /** For a conversation's continuation: the run it continues, cut at seq `at` (the rest of the run is this task's own). */
  continues?: { run: string; at: number };
  /**
   * The tasks stream's sequence of the work-queue message that carries the
   * task: the one message whose redelivery is a takeover. Another message of
   * the same request (published again) is a copy while that one is queued.
   */
  message?: number;
  /** `sender`: the task's events go on its sender's subject, as its request asked (subjects.ts EVENTS_HEADER). */
  events?: 'sender';
}

/** Where the events of the task `origin` describes go. */
export function originEvents(origin: Pick<TaskOrigin, 'request' | 'sender' | 'events'>): TaskEvents {
  return origin.events === 'sender' ? { request: origin.request, sender: origin.sender } : { request: origin.request };
}

export interface Cancellation {
  by: string;
  reason?: string;
}

export function encodeTaskOrigin(o: TaskOrigin): string {
  return JSON.stringify({
    request: o.request,
    conversation: o.conversation,
    sender: o.sender,
    ...(o.parent !== undefined ? { parent: o.parent } : {}),
    agent: o.agent,
    ...(o.continues !== undefined ? { continues: { run: o.continues.run, at: o.continues.at } } : {}),
    ...(o.message !== undefined ? { message: o.message } : {}),
    ...(o.events !== undefined ? { events: o.events } : {}),
  });
}

export function parseTaskOrigin(text: string | null): TaskOrigin | null {
  const o = noteObject(text);
  if (o === null || typeof o.request !== 'string' || typeof o.conversation !== 'string' || typeof o.sender !== 'string' || typeof o.agent !== 'string') return null;
  const c = o.continues as { run?: unknown; at?: unknown } | undefined;
  return {
    request: o.request,
    conversation: o.conversation,
    sender: o.sender,
    ...(typeof o.parent === 'string' ? { parent: o.parent } : {}),
    agent: o.agent,
    ...(c !== undefined && typeof c.run === 'string' && typeof c.at === 'number' ? { continues: { run: c.run, at: c.at } } : {}),
    ...(Number.isSafeInteger(o.message) && (o.message as number) > 0 ? { message: o.message as number } : {}),
    ...(o.events === 'sender' ? { events: 'sender' as const } : {}),
  };
}

export function encodeCancellation(c: Cancellation): string {
  return JSON.stringify({ by: c.by, ...(c.reason ? { reason: c.reason } : {}) });
}

export function parseCancellation(text: string | null): Cancellation | null {
  const o = noteObject(text);
  return o === null || typeof o.by !== 'string' ? null : { by: o.by, ...(typeof o.reason === 'string' && o.reason !== '' ? { reason: o.reason } : {}) };
}

/** The first seq of a task's run that is the task's own: after the cut of the run it continues, else after its meta. */
export function ownFrom(origin: Pick<TaskOrigin, 'continues'>): number {
  return origin.continues === undefined ? 2 : origin.continues.at + 1;
}

/**
 * The run of agent `agent`'s task for request `request`: `task-<agent>-<request>`
 * when that is a valid run id, else `task-` and a digest of both (a request id
 * no run id can hold).
 */
export function taskRunId(agent: string, request: string): string {
  const plain = `task-${agent}-${request}`;
  if (isValidId(plain)) return plain;
  return `task-${nodeCrypto().createHash('sha256').update(`${agent}\u0000${request}`, 'utf8').digest('hex').slice(0, 40)}`;
}

/**
 * The request id of the task a tool call starts: derived from the calling run
 * and the call's id, so a resume of the run that makes the call again sends
 * the same request (one task), minted at the run's creation.
 */
export function callRequestId(call: ToolCallInfo): string {
  const at = new Date(Date.parse(call.runCreated) || 0);
  return derivedMessageId(`logbook-task\u0000${call.runId}\u0000${call.callId}`, at);
}

/** Whether a request id can be served: its events go on a subject made of it. */
export function servableRequestId(id: string): boolean {
  return isSubjectToken(id);
}
