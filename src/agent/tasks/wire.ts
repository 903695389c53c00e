/**
 * Tasks on JetStream, both sides (docs/reference/a2a.md part 2):
 *
 * - a request is published on `choria.fisk-ai.task.<identity>` with
 *   `Nats-Msg-Id` = its id, into the operator's work-queue stream;
 * - the servers of an identity share one durable pull consumer of it, named by
 *   the identity, acknowledging each message explicitly;
 * - a task's ack, events and end are published on
 *   `choria.fisk-ai.events.<request id>` (or, when its request's
 *   EVENTS_HEADER asks, `choria.fisk-ai.events.<sender>.<request id>`: a
 *   TaskEvents says which) with `Nats-Msg-Id` = `<request id>-<sequence>`, so
 *   a publish made again (after a takeover, or a lost ack) is stored once; the
 *   operator's events stream keeps them, and a caller reads them with an
 *   ordered consumer from the start.
 *
 * Every body is checked both ways, as the direct calls' are (a2a/client.ts):
 * against its schema and the size limit before it is sent, and before it is
 * read. Every request to the servers waits through a stream leader election.
 */
import type { Consumer, ConsumerConfig, ConsumerMessages, JsMsg, StoredMsg } from '@nats-io/jetstream';
import { outgoing } from '../../a2a/outgoing.js';
import {
  decodeAnyMessage,
  decodeMessage,
  stampTaskReply,
  TASK_END_CODES,
  eventMessageId,
  eventsSubject,
  EVENTS_BY_SENDER,
  EVENTS_HEADER,
  taskSubject,
  type AckMessage,
  type ErrorMessage,
  type EventMessage,
  type MessageKind,
  type MessageOfKind,
  type RequestMessage,
  type ResultMessage,
} from '../../a2a/index.js';
import { LogbookError, canceledMessage, isLogbookError } from '../../core/index.js';
import type { Link } from '../../store/jetstream/connection.js';
import { isNotThere, isPermissionRefusal, isWorkQueueClash } from '../../store/jetstream/api-errors.js';
import { throughElection, within } from '../../store/jetstream/election.js';
import { lastMessage, lastMessageOnce } from '../../store/jetstream/reads.js';

/**
 * Where a task's stream is: the spec's subject of its request, or with
 * `sender` the subject of its sender (eventsSubject), which NATS permissions
 * can keep to that sender. A caller reading the sender's subject reads only
 * through consumers filtered on it (`narrow`), never by a stream get that
 * names its subject in the body, so it needs no right to read other subjects.
 */
export interface TaskEvents {
  request: string;
  sender?: string;
}

/** The subject of `where`'s stream. */
export function taskEventsSubject(where: TaskEvents): string {
  return eventsSubject(where.request, where.sender);
}

/** Where the events of `request` go: on its sender's subject when the message that carries it asks (EVENTS_HEADER). */
export function taskEventsOf(request: { id: string; sender: { name: string } }, msgHeaders: { get(key: string): string } | undefined): TaskEvents {
  return msgHeaders?.get(EVENTS_HEADER) === EVENTS_BY_SENDER ? { request: request.id, sender: request.sender.name } : { request: request.id };
}

/** What a task's stream carries: its ack, its events, its end. */
export type TaskMessage = AckMessage | EventMessage | ResultMessage | ErrorMessage;

/** Whether `m` ends the task's stream: its end, or an ack that refused the task. */
export function endsTask(m: TaskMessage): m is ResultMessage | ErrorMessage | AckMessage {
  return m.protocol.endsWith('.result') || m.protocol.endsWith('.error') || (m.protocol.endsWith('.ack') && !(m as AckMessage).accepted);
}

/** Publishes `body` on `subject` with message id `msgId` (and `bySender`: EVENTS_HEADER), waiting through elections; true when the stream had it already. */
async function publish(link: Link, stream: string, subject: string, body: string, msgId: string, what: string, bySender = false): Promise<boolean> {
  // Loaded here, not at the top: importing logbook's API must not load the NATS client (test/store/lazy-backends).
  const h = bySender ? (await import('@nats-io/transport-node')).headers() : undefined;
  h?.set(EVENTS_HEADER, EVENTS_BY_SENDER);
  const ack = await throughElection(link, stream, what, (ms) => within(ms, link.js.publish(subject, body, { msgID: msgId, timeout: ms, ...(h ? { headers: h } : {}) })));
  return ack.duplicate;
}

/** Sends a task request into the work queue (`bySender`: asking for its events on its sender's subject); true when the stream already held it (the same request sent again). */
export function publishRequest(link: Link, stream: string, request: RequestMessage, bySender = false): Promise<boolean> {
  const body = outgoing('request', request);
  const agent = request.recipient?.name ?? '';
  return publish(link, stream, taskSubject(agent), body, request.id, `cannot send task ${request.id} to agent ${agent} through stream ${stream}`, bySender);
}

/** Publishes one message of a task's stream (its ack, an event, its end) where `where` says, once. */
export function publishTaskMessage<K extends 'ack' | 'event' | 'result' | 'error'>(
  link: Link,
  stream: string,
  kind: K,
  message: MessageOfKind[K],
  where: TaskEvents = { request: message.request },
): Promise<boolean> {
  const body = outgoing(kind, message);
  const what = `cannot publish event ${message.sequence} of task ${message.request} to stream ${stream}`;
  return publish(link, stream, taskEventsSubject(where), body, eventMessageId(message.request, message.sequence), what);
}

/** The sequence of the last message of task `where` in the events stream; 0 when it has none. */
export async function lastTaskSequence(link: Link, stream: string, where: TaskEvents, narrow = false): Promise<number> {
  return (await lastTaskMessage(link, stream, where, narrow))?.sequence ?? 0;
}

/** The last message of task `where` in the events stream (read `narrow`ly: TaskEvents); null when it has none (or none of ours). */
export async function lastTaskMessage(link: Link, stream: string, where: TaskEvents, narrow = false): Promise<TaskMessage | null> {
  const subject = taskEventsSubject(where);
  const last = narrow
    ? await throughElection(link, stream, `cannot read ${subject} from stream ${stream}`, (ms) => lastThroughConsumer(link, stream, subject, ms))
    : await lastMessage(link, { stream }, subject);
  if (last === null) return null;
  try {
    const m = decodeAnyMessage(last.data);
    return 'sequence' in m && TASK_KINDS.some((k) => m.protocol.endsWith(`.${k}`)) ? (m as TaskMessage) : null;
  } catch {
    return null; // not a body of ours: publish the task's own from the start
  }
}

/**
 * The last message on `subject`, read through a consumer filtered on it (so
 * the filtered consumer create, which names the filter in its API subject,
 * is all the right it needs); null when it has none. Its sequence is the
 * stream's, as a stream get gives it.
 */
async function lastThroughConsumer(link: Link, stream: string, subject: string, timeoutMs: number): Promise<{ seq: number; data: Uint8Array } | null> {
  const consumer = await within(timeoutMs, link.js.consumers.get(stream, { filter_subjects: subject, deliver_policy: 'last' }));
  try {
    if ((await consumer.info(true)).num_pending === 0) return null;
    const m = await within(timeoutMs, consumer.next({ expires: Math.max(1_000, timeoutMs) }));
    if (m === null) throw new Error(`the last message on ${subject} did not come`);
    return { seq: m.seq, data: m.data };
  } finally {
    void within(timeoutMs, consumer.delete()).catch(() => {});
  }
}

/** The kinds a task's stream carries. */
const TASK_KINDS: readonly MessageKind[] = ['ack', 'event', 'result', 'error'];

/** How followTask reads a task's stream. */
export interface FollowOptions {
  /** Ends the read: the iteration returns. */
  signal?: AbortSignal;
  /** The task's sender, when its events are on its sender's subject (TaskEvents): read narrowly. */
  sender?: string;
}

/** How long a read of a task's stream may go without a message before it looks whether the stream has more for it. */
const STALL_MS = 4_000;
/** The pause before a read whose consumer failed starts again. */
const REREAD_MS = 250;

/**
 * The messages of task `request`, in sequence, from the first, as they are
 * published: each checked against its schema, gap-free (a message published
 * twice is passed over; one missing fails the read), ending with the one that
 * ends the task. Bodies of a protocol this build does not know are passed over
 * (unless they must be understood: then the read fails).
 *
 * The read is an ordered consumer of the task's subject. While it brings
 * nothing it looks, now and then, at the subject's last message: one the
 * consumer has not brought (it lost its way through a leader election, or a
 * server it was on died) starts the read again after the last message it
 * gave, as does a consumer that fails. So a caller outlives the servers.
 */
export async function* followTask(link: Link, stream: string, request: string, options: FollowOptions = {}): AsyncGenerator<{ message: TaskMessage; body: string }> {
  const what = `cannot read the events of task ${request} from stream ${stream}`;
  const { signal } = options;
  const where: TaskEvents = { request, ...(options.sender !== undefined ? { sender: options.sender } : {}) };
  const subject = taskEventsSubject(where);
  const newestOnce = (ms: number): Promise<{ seq: number } | null> =>
    where.sender !== undefined ? lastThroughConsumer(link, stream, subject, ms) : lastMessageOnce(link, { stream }, subject, ms);
  let last = 0;
  /** The stream sequence of the last message given. */
  let at = 0;
  while (!signal?.aborted) {
    const from = at === 0 ? { deliver_policy: 'all' as const } : { deliver_policy: 'by_start_sequence' as const, opt_start_seq: at + 1 };
    const messages = (await throughElection(link, stream, what, async (ms) => {
      const consumer = await within(ms, link.js.consumers.get(stream, { filter_subjects: subject, ...from }));
      return within(ms, consumer.consume({ max_messages: 256, expires: 5_000 }));
    })) as ConsumerMessages;
    const stop = (): void => void messages.stop();
    signal?.addEventListener('abort', stop, { once: true });
    let progress = Date.now();
    let looking = false;
    const watchdog = setInterval(() => {
      if (looking || Date.now() - progress < STALL_MS) return;
      looking = true;
      newestOnce(link.timeoutMs)
        .then((newest) => {
          if (newest !== null && newest.seq > at) stop(); // the stream has what the consumer does not bring: read again
          else progress = Date.now();
        })
        .catch(() => {}) // the servers are away: look again later
        .finally(() => (looking = false));
    }, STALL_MS / 2);
    try {
      for await (const m of messages) {
        progress = Date.now();
        at = m.seq;
        const body = new TextDecoder().decode(m.data);
        const task = taskMessageOf(m.data, request, stream);
        if (task === null || task.sequence <= last) continue; // not understood, or published again: passed over
        if (task.sequence !== last + 1) {
          throw new LogbookError(
            'invalid_message',
            last === 0
              ? `task ${request}: its events in stream ${stream} start at ${task.sequence}: those before are gone (the stream's max_age?)`
              : `task ${request}: event ${last + 1} is missing from stream ${stream} (event ${task.sequence} follows ${last})`,
          );
        }
        last = task.sequence;
        yield { message: task, body };
        if (endsTask(task)) return;
      }
    } catch (err) {
      if (isLogbookError(err)) throw err;
      // The consumer failed: read again from after the last message given.
    } finally {
      clearInterval(watchdog);
      signal?.removeEventListener('abort', stop);
      messages.stop();
    }
    if (!signal?.aborted) await new Promise((r) => setTimeout(r, REREAD_MS));
  }
}

/** A stored message of task `request`'s stream, read strictly; null for a protocol this build need not understand. */
function taskMessageOf(data: Uint8Array, request: string, stream: string): TaskMessage | null {
  let message;
  try {
    message = decodeAnyMessage(data);
  } catch (err) {
    throw new LogbookError('invalid_message', `task ${request}: a message in stream ${stream} cannot be read: ${(err as Error).message}`, { cause: err });
  }
  if ('understood' in message) return null;
  const kind = message.protocol.replace(/^io\.choria\.fisk-ai\.v1\./, '') as MessageKind;
  if (!TASK_KINDS.includes(kind) || message.request !== request) {
    throw new LogbookError('invalid_message', `task ${request}: stream ${stream} holds a ${kind} of request ${message.request} on the task's subject`);
  }
  return message as TaskMessage;
}

/** The durable consumer the servers of `identity` share, made (or set to these settings) when it is not so already. */
export async function taskConsumer(link: Link, stream: string, identity: string, ackWaitMs: number): Promise<Consumer> {
  const what = `cannot set up the consumer of agent ${identity}'s tasks on stream ${stream}`;
  const config: Partial<ConsumerConfig> & { ack_wait: number; filter_subject: string } = {
    durable_name: identity,
    filter_subject: taskSubject(identity),
    ack_policy: 'explicit',
    deliver_policy: 'all',
    ack_wait: ackWaitMs * 1_000_000,
    max_deliver: -1,
    max_ack_pending: -1,
  };
  /** A work queue gives each message to one consumer: another that takes these is said for what it is. */
  const clash = (err: unknown): never => {
    if (!isWorkQueueClash(err)) throw err;
    throw new LogbookError(
      'stream_config',
      `${what}: another consumer of work-queue stream ${stream} takes ${taskSubject(identity)} (${(err as Error).message}); a work queue gives each message to one consumer: remove that consumer (nats consumer ls ${stream})`,
      { cause: err },
    );
  };
  const existing = await throughElection(link, stream, what, (ms) => within(ms, link.jsm.consumers.info(stream, identity)).catch(notThere));
  if (existing === null) {
    await throughElection(link, stream, what, (ms) => within(ms, link.jsm.consumers.add(stream, config)).catch(clash));
  } else {
    if (existing.config.ack_wait !== config.ack_wait) throw ackWaitDiffers(stream, identity, existing.config.ack_wait ?? 0, config.ack_wait);
    if (existing.config.filter_subject !== config.filter_subject) {
      await throughElection(link, stream, what, (ms) => within(ms, link.jsm.consumers.update(stream, identity, { filter_subject: config.filter_subject })).catch(clash));
    }
  }
  return throughElection(link, stream, what, (ms) => within(ms, link.js.consumers.get(stream, identity)));
}

/**
 * The refusal of an instance whose ack wait is not the consumer's: the
 * consumer is shared, so changing it would make the other instances' running
 * tasks look dead to it (they say they are alive by their own, longer, wait),
 * and an instance that kept its own would take theirs over, or lose its own.
 */
function ackWaitDiffers(stream: string, identity: string, consumerNs: number, wantedNs: number): LogbookError {
  const seconds = (ns: number): string => `${Math.round(ns / 1e6) / 1e3}s`;
  return new LogbookError(
    'config',
    `the consumer of agent ${identity}'s tasks on stream ${stream} waits ${seconds(consumerNs)} for a sign of life (its ack_wait), but expose.task_ack_wait is ${seconds(wantedNs)}; ` +
      `the instances of an agent share it, so each must wait as long (fix: set expose.task_ack_wait: ${Math.round(consumerNs / 1e9)} as the other instances do, ` +
      `or, with every instance stopped, remove the consumer for the next to make it anew: nats consumer rm ${stream} ${identity} -f)`,
  );
}

/** What the consumer of `identity`'s tasks says now: null when no server of it has made one yet. */
export async function consumerState(link: Link, stream: string, identity: string): Promise<{ waiting: number; working: number; queued: number } | null> {
  const info = await within(link.timeoutMs, link.jsm.consumers.info(stream, identity)).catch(() => null);
  return info === null ? null : { waiting: info.num_waiting, working: info.num_ack_pending, queued: info.num_pending };
}

/** Up to `max` task messages for this consumer, each as it comes, from one pull that waits at most `expiresMs`. */
export async function* fetchTasks(consumer: Consumer, max: number, expiresMs: number): AsyncGenerator<JsMsg> {
  const batch = await consumer.fetch({ max_messages: max, expires: expiresMs });
  for await (const msg of batch) yield msg;
}

/** null for a message or consumer that is not there (api-errors.ts isNotThere); any other error as it is. */
function notThere(err: unknown): null {
  if (isNotThere(err)) return null;
  throw err;
}

/** What became of a task asked to be withdrawn from the work queue. */
export type Withdrawal = 'withdrawn' | 'taken' | 'ended' | 'absent';

/**
 * Takes task `request` of `identity` out of the work queue when no server has
 * been given it: the events stream holds nothing of it, and its message lies
 * past what the identity's consumer has delivered (or no server has made the
 * consumer yet). Its stream is ended first, `canceled` by `by` at sequence 1,
 * so a caller waiting on it hears the end; and a server that is given it all
 * the same finds its stream ended and settles it unrun, while one that took it
 * first holds sequence 1, which makes the end a duplicate: `taken`, and only a
 * cancel stops it (as for a connection whose rights do not let it read the
 * work queue). `ended`: its stream has ended already. `absent`: neither
 * stream holds anything of it (never sent, or long gone).
 */
export async function withdrawQueuedTask(
  link: Link,
  streams: { tasks: string; events: string },
  identity: string,
  where: TaskEvents,
  by: { sender: string; reason?: string },
): Promise<Withdrawal> {
  const { request } = where;
  const last = await lastTaskMessage(link, streams.events, where, where.sender !== undefined);
  if (last !== null) return endsTask(last) ? 'ended' : 'taken';
  // A sender whose rights do not let it read the work queue (docs/operations.md) cannot withdraw: its cancel goes to the servers.
  const queued = await queuedTask(link, streams.tasks, identity, request).catch((err: unknown) => {
    if (isPermissionRefusal(err)) return 'unreadable' as const;
    throw err;
  });
  if (queued === 'unreadable') return 'taken';
  if (queued === null) return 'absent';
  if ((await deliveredThrough(link, streams.tasks, identity)) >= queued.seq) return 'taken';
  let body: RequestMessage;
  try {
    body = decodeMessage(queued.data, 'request');
  } catch {
    return 'taken'; // a body no server can read: a server refuses it
  }
  const error = `${canceledMessage(by.sender, by.reason)} (withdrawn before any server of agent ${identity} took it up)`;
  const end = stampTaskReply('error', { stop_reason: 'canceled', error, code: TASK_END_CODES.canceled }, body, 1, identity);
  // Where a server given it would publish: as its message asks.
  if (await publishTaskMessage(link, streams.events, 'error', end, taskEventsOf(body, queued.header))) return 'taken';
  const what = `cannot withdraw task ${request} from stream ${streams.tasks}`;
  // Gone already (a server was given it and acknowledged it): what follows says so.
  await throughElection(link, streams.tasks, what, (ms) => within(ms, link.jsm.streams.deleteMessage(streams.tasks, queued.seq, false)).catch(notThere));
  // A server given it between the look and the end may have read its stream before the end: a cancel stops it.
  return (await deliveredThrough(link, streams.tasks, identity)) >= queued.seq ? 'taken' : 'withdrawn';
}

/** Task `request`'s message in the work queue, or null when it holds none. */
async function queuedTask(link: Link, stream: string, identity: string, request: string): Promise<StoredMsg | null> {
  const subject = taskSubject(identity);
  let seq = 0;
  for (;;) {
    const query = { seq: seq + 1, next_by_subj: subject } as unknown as { seq: number };
    const msg = await throughElection(link, stream, `cannot read stream ${stream}`, (ms) => within(ms, link.jsm.streams.getMessage(stream, query)));
    if (msg === null) return null;
    if (msg.header?.get('Nats-Msg-Id') === request) return msg;
    seq = msg.seq;
  }
}

/** The last stream sequence the consumer of `identity`'s tasks delivered to a server; 0 when no server has made it. */
async function deliveredThrough(link: Link, stream: string, identity: string): Promise<number> {
  const info = await throughElection(link, stream, `cannot read the consumer of agent ${identity}'s tasks on stream ${stream}`, (ms) =>
    within(ms, link.jsm.consumers.info(stream, identity)).catch(notThere),
  );
  return info === null ? 0 : info.delivered.stream_seq;
}

/** Whether the tasks stream still holds its message at `seq`: a work queue holds a task's message until a server acknowledges it. */
export async function stillQueued(link: Link, stream: string, seq: number): Promise<boolean> {
  const msg = await throughElection(link, stream, `cannot read stream ${stream}`, (ms) => within(ms, link.jsm.streams.getMessage(stream, { seq })).catch(notThere));
  return msg !== null;
}

/** The sender of task `request` of `identity` while its message waits in the work queue; null when it is not there (or cannot be read). */
export async function queuedSender(link: Link, stream: string, identity: string, request: string): Promise<string | null> {
  const queued = await queuedTask(link, stream, identity, request);
  if (queued === null) return null;
  try {
    return decodeMessage(queued.data, 'request').sender.name;
  } catch {
    return null;
  }
}
