/**
 * The operator's two task streams, bound and checked as the journal stream is
 * (store/jetstream/binding.ts, whose phrasing of each problem is shared):
 * never created or edited here, each refusal naming the `nats` command that
 * fixes it, a missing one the `nats stream add` line that makes it.
 *
 * - The tasks stream is a work queue on `choria.fisk-ai.task.>`: it holds each
 *   request until a server acknowledges it, so it must keep every one of them
 *   until then (no expiry, no limit that drops the oldest, file storage).
 * - The events stream holds every task's events on `choria.fisk-ai.events.>`,
 *   a task's on one subject, for callers to read from any sequence: so no
 *   per-subject limit, a retention that keeps what has been read, and no
 *   limit that refuses new events once full (a task could not end). Events
 *   may expire (`max_age`): they are a projection of the journal, and a caller
 *   simply cannot replay an old task's.
 */
import type { StreamInfo } from '@nats-io/jetstream';
import { EVENT_SUBJECTS, MAX_MESSAGE_BYTES, TASK_SUBJECTS, subjectCovers } from '../../a2a/index.js';
import { LogbookError } from '../../core/index.js';
import {
  ackProblem,
  ageProblem,
  editFix,
  memoryProblem,
  messageSizeProblem,
  missingStream,
  wholeLimitProblems,
  type StreamShape,
} from '../../store/jetstream/binding.js';
import type { Link } from '../../store/jetstream/connection.js';
import { streamInfo } from '../../store/jetstream/reads.js';
import type { TaskStreams } from './spec.js';

/** The smallest message size a task stream may limit messages to: a body at the wire's limit, and its headers. */
export const TASK_BODY_FLOOR = MAX_MESSAGE_BYTES + 8 * 1024;

/** Where the streams' requirements are documented. */
export const TASK_STREAMS_DOC = 'docs/operations.md';

/** A ready-to-run command that creates the tasks stream. */
export function tasksStreamAdd(stream: string): string {
  return `nats stream add ${stream} --subjects '${TASK_SUBJECTS}' --retention=work --defaults`;
}

/** A ready-to-run command that creates the events stream. */
export function eventsStreamAdd(stream: string): string {
  return `nats stream add ${stream} --subjects '${EVENT_SUBJECTS}' --defaults`;
}

/**
 * `subject`'s refusal when none of the stream's subjects takes it, with the
 * edit that adds `wanted` in place of those it covers (a server refuses a
 * stream whose subjects overlap).
 */
function subjectProblem(config: StreamShape, subject: string, wanted: string): string[] {
  const subjects = config.subjects ?? [];
  if (subjects.some((s) => subjectCovers(s, subject))) return [];
  const kept = subjects.filter((s) => s !== wanted && !subjectCovers(wanted, s));
  const edit = editFix(config.name, [...kept, wanted].map((s) => `--subjects '${s}'`).join(' '));
  return [`none of its subjects (${subjects.join(', ') || 'none'}) takes ${subject} (fix: ${edit})`];
}

/**
 * What keeps a stream from being the work queue of the tasks on `subject` (one
 * agent's, or all of them; null: its subjects are not looked at); none when nothing does.
 */
export function tasksStreamProblems(config: StreamShape, subject: string | null = TASK_SUBJECTS): string[] {
  const stream = config.name;
  const problems = subject === null ? [] : subjectProblem(config, subject, TASK_SUBJECTS);
  if (config.retention !== 'workqueue') {
    problems.push(
      `its retention is ${config.retention ?? 'limits'}, but tasks need a work queue, which holds a task until a server acknowledges it ` +
        `(fix: retention cannot be edited; create it again: nats stream rm ${stream}, then ${tasksStreamAdd(stream)})`,
    );
  }
  problems.push(...ageProblem(config, 'a task waiting longer would be dropped unanswered'));
  if (config.discard !== 'new') {
    const full = 'once full it drops the oldest tasks unanswered';
    problems.push(...wholeLimitProblems(config, full));
    if ((config.max_msgs_per_subject ?? 0) > 0) {
      problems.push(`it keeps at most ${config.max_msgs_per_subject} messages per subject, and an agent's tasks share one: ${full} (fix: ${editFix(stream, '--max-msgs-per-subject=-1')})`);
    }
  }
  problems.push(
    ...memoryProblem(config, tasksStreamAdd(stream), 'the tasks waiting in it'),
    ...messageSizeProblem(config, TASK_BODY_FLOOR, 'floor of a request at the wire limit'),
    ...ackProblem(config, 'sending a task needs'),
  );
  return problems;
}

/** What keeps a stream from holding every task's events; none when nothing does. */
export function eventsStreamProblems(config: StreamShape): string[] {
  const stream = config.name;
  const problems = subjectProblem(config, `${EVENT_SUBJECTS.slice(0, -1)}*`, EVENT_SUBJECTS);
  if (config.retention !== undefined && config.retention !== 'limits') {
    problems.push(
      `its retention is ${config.retention}, which removes events once read, but a caller reads a task's events again from the start ` +
        `(fix: retention cannot be edited; create it again: nats stream rm ${stream}, then ${eventsStreamAdd(stream)})`,
    );
  }
  if ((config.max_msgs_per_subject ?? 0) > 0) {
    problems.push(`it keeps at most ${config.max_msgs_per_subject} messages per subject, and a task's events share one (fix: ${editFix(stream, '--max-msgs-per-subject=-1')})`);
  }
  if (config.discard === 'new') problems.push(...wholeLimitProblems(config, 'once full it refuses new events, so no task running could end'));
  problems.push(
    ...memoryProblem(config, eventsStreamAdd(stream), 'the events of the tasks running'),
    ...messageSizeProblem(config, TASK_BODY_FLOOR, 'floor of an event at the wire limit'),
    ...ackProblem(config, 'publishing an event needs'),
  );
  return problems;
}

/** `stream_config` naming every problem of `stream` (held for `what`), on one line. */
function refused(stream: string, what: string, problems: string[]): LogbookError {
  return new LogbookError('stream_config', `stream ${stream} cannot hold ${what}: ${problems.join('; ')}; see ${TASK_STREAMS_DOC}`);
}

/** The two streams as bound: their info when they were checked. */
export interface BoundTaskStreams {
  tasks: StreamInfo;
  events: StreamInfo;
}

/**
 * Binds the streams tasks go through and checks them; `subjects` are the task
 * subjects the tasks stream must take (the agents' the caller sends to, or
 * serves). Reads each stream's info through a leader election.
 */
export async function bindTaskStreams(link: Link, names: TaskStreams, subjects: readonly string[] = [TASK_SUBJECTS]): Promise<BoundTaskStreams> {
  const MISSING = new LogbookError('stream_config', 'missing');
  const [tasksRead, eventsRead] = await Promise.allSettled([
    streamInfo(link, names.tasks, () => MISSING),
    streamInfo(link, names.events, () => MISSING),
  ]);
  const missing = [
    ...(tasksRead.status === 'rejected' && tasksRead.reason === MISSING ? [{ name: names.tasks, add: tasksStreamAdd(names.tasks) }] : []),
    ...(eventsRead.status === 'rejected' && eventsRead.reason === MISSING ? [{ name: names.events, add: eventsStreamAdd(names.events) }] : []),
  ];
  if (missing.length === 1) throw missingStream(missing[0]!.name, link.url, missing[0]!.add, 'logbook');
  if (missing.length === 2) {
    throw new LogbookError(
      'stream_config',
      `streams ${missing[0]!.name} and ${missing[1]!.name} do not exist on ${link.url}; logbook never creates one, create them with: ${missing[0]!.add}; ${missing[1]!.add}`,
    );
  }
  if (tasksRead.status === 'rejected') throw tasksRead.reason;
  if (eventsRead.status === 'rejected') throw eventsRead.reason;
  const [tasks, events] = [tasksRead.value, eventsRead.value];
  const uncovered = subjects.flatMap((subject) => subjectProblem(tasks.config, subject, TASK_SUBJECTS)).slice(0, 1);
  const taskProblems = [...uncovered, ...tasksStreamProblems(tasks.config, null)];
  if (taskProblems.length > 0) throw refused(names.tasks, 'tasks', taskProblems);
  const eventProblems = eventsStreamProblems(events.config);
  if (eventProblems.length > 0) throw refused(names.events, "tasks' events", eventProblems);
  return { tasks, events };
}
