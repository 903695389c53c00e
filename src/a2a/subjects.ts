/**
 * The reference's NATS binding (core NATS request/reply): each agent is a NATS
 * micro service named by its identity, answering discovery and tool calls on two
 * subjects, so that NATS permissions can allow discovery without allowing tool
 * execution. Subjects only route: a body's protocol says what it is.
 */
export const SUBJECT_PREFIX = 'choria.fisk-ai';

/** Where an agent answers `discovery.request` (only those). */
export function discoverySubject(identity: string): string {
  return `${SUBJECT_PREFIX}.discovery.${identity}`;
}

/** Where an agent answers `tool.request` (only those). */
export function toolSubject(identity: string): string {
  return `${SUBJECT_PREFIX}.tool.${identity}`;
}

/** The identity a service endpoint's subject serves discovery for, if it is one. */
export function identityOfDiscoverySubject(subject: string): string | undefined {
  const prefix = `${SUBJECT_PREFIX}.discovery.`;
  return subject.startsWith(prefix) ? subject.slice(prefix.length) : undefined;
}

/** The endpoint names of the service, as the reference names them. */
export const ENDPOINTS = { discovery: 'discovery', tool: 'tool' } as const;

/** How long a caller waits for a reply unless told otherwise. */
export const DEFAULT_REPLY_TIMEOUT_MS = 30_000;

/**
 * The NATS header in which a caller says how long (ms) it waits for a tool's
 * reply: a call still waiting for a slot when that has passed is dropped
 * unrun. Outside the body (the reference's schemas are strict), and ignored by
 * a server that does not know it; a call without it is given DEFAULT_REPLY_TIMEOUT_MS.
 */
export const CALLER_TIMEOUT_HEADER = 'Logbook-Caller-Timeout-Ms';

// ---- tasks (logbook's binding of the streaming flow; docs/reference/a2a.md part 2) ----

/** Every agent's task subjects: what the operator's work-queue stream holds. */
export const TASK_SUBJECTS = `${SUBJECT_PREFIX}.task.>`;

/** Every task's event subjects: what the operator's events stream holds. */
export const EVENT_SUBJECTS = `${SUBJECT_PREFIX}.events.>`;

/** Where a `request` for agent `identity` is published, with JetStream. */
export function taskSubject(identity: string): string {
  return `${SUBJECT_PREFIX}.task.${identity}`;
}

/** The identity a task subject is for, if it is one. */
export function identityOfTaskSubject(subject: string): string | undefined {
  const prefix = `${SUBJECT_PREFIX}.task.`;
  const rest = subject.startsWith(prefix) ? subject.slice(prefix.length) : '';
  return rest !== '' && !rest.includes('.') ? rest : undefined;
}

/**
 * Where the `ack`, events and end of the task of request `request` are
 * published: the spec's subject, or with `sender` (the request's sender, asked
 * for with EVENTS_HEADER) `choria.fisk-ai.events.<sender>.<request>`, which NATS
 * permissions can keep to that sender (a consumer filtered on
 * `choria.fisk-ai.events.<sender>.>`). Both lie in EVENT_SUBJECTS.
 */
export function eventsSubject(request: string, sender?: string): string {
  return `${SUBJECT_PREFIX}.events.${sender !== undefined ? `${sender}.` : ''}${request}`;
}

/**
 * The NATS header on a task's request in which its caller asks for the task's
 * events on the subject of its sender (value EVENTS_BY_SENDER; eventsSubject).
 * Outside the body (the reference's schemas are strict); a request without it
 * has its events on the spec's subject. A caller sends it only to an agent
 * whose service advertises it (EVENTS_METADATA), so it never waits on a
 * subject an older server does not publish on.
 */
export const EVENTS_HEADER = 'Logbook-Events';
export const EVENTS_BY_SENDER = 'sender';

/** The key of the micro service metadata in which an agent says it publishes a task's events where EVENTS_HEADER asks. */
export const EVENTS_METADATA = 'logbook.events';

/**
 * Where a `cancel` for a task of agent `identity` is published (core NATS:
 * every instance hears it). With `sender`, the subject says who sends it
 * (logbook's callers publish there): NATS permissions can let each sender
 * publish only its own, and a server takes a cancel from there only for a
 * task that sender sent. Without, the spec's subject: anyone allowed to
 * publish on it may cancel any of the agent's tasks.
 */
export function cancelSubject(identity: string, sender?: string): string {
  return `${SUBJECT_PREFIX}.cancel.${identity}${sender !== undefined ? `.${sender}` : ''}`;
}

/** The sender a cancel subject of agent `identity` names (cancelSubject with a sender); undefined for the spec's subject. */
export function senderOfCancelSubject(identity: string, subject: string): string | undefined {
  const prefix = `${cancelSubject(identity)}.`;
  return subject.startsWith(prefix) ? subject.slice(prefix.length) : undefined;
}

/** An event's `Nats-Msg-Id`: the same for the same place in the same task, so a publish made again is one message. */
export function eventMessageId(request: string, sequence: number): string {
  return `${request}-${sequence}`;
}

/** Whether `id` can name a subject token (a request id a task's events subject is made of). */
export function isSubjectToken(id: string): boolean {
  return id.length > 0 && id.length <= 255 && /^[^\s.*>\x00-\x1f\x7f]+$/.test(id);
}

/**
 * Whether subject pattern `pattern` (a stream's subject: tokens, `*` and a
 * final `>`) takes every subject `target` names (which may hold wildcards too):
 * `choria.fisk-ai.>` takes `choria.fisk-ai.task.*`; `choria.fisk-ai.task.a`
 * does not take `choria.fisk-ai.task.*`.
 */
export function subjectCovers(pattern: string, target: string): boolean {
  const p = pattern.split('.');
  const t = target.split('.');
  for (let i = 0; i < p.length; i++) {
    if (p[i] === '>') return i < t.length;
    if (i >= t.length || t[i] === '>') return false;
    if (p[i] !== '*' && p[i] !== t[i]) return false;
  }
  return p.length === t.length;
}
