/**
 * `logbook tasks ls`: the tasks the work-queue stream holds now (a task stays
 * there until a server acknowledges its end: waiting for one, or being worked
 * on), each with its run in the config's store when it has one, and per agent
 * what its consumer says (waiting, being worked on, delivered again).
 * `logbook tasks cancel IDENTITY REQUEST`: withdraws the task from the queue
 * when no server has been given it, else asks the agent's servers to cancel
 * it; and says how it ended.
 */
import type { StoredMsg } from '@nats-io/jetstream';
import { cancelSubject, decodeMessage, identityOfTaskSubject, stampCancel, isSubjectToken, type RequestMessage } from '../../a2a/index.js';
import { outgoing } from '../../a2a/outgoing.js';
import type { TaskEnd } from '../../agent/tasks/index.js';
import { tasksStreamAdd } from '../../agent/tasks/streams.js';
import { callerIdentity } from '../../agent/tools/remote/spec.js';
import { LONGEST_TIMER_MS, LONGEST_TIMER_TEXT, LogbookError, isLogbookError } from '../../core/index.js';
import { sanitizeLine, terminalSafeJson } from '../../render/sanitize.js';
import { missingStream } from '../../store/jetstream/binding.js';
import { dial, type Link } from '../../store/jetstream/connection.js';
import { LEADER_WAIT_MS, throughElection, within } from '../../store/jetstream/election.js';
import { streamInfo } from '../../store/jetstream/reads.js';
import { byId } from '../../store/lineage.js';
import type { RunInfo, Store } from '../../store/store.js';
import type { Environment } from '../environment.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { displayWidth, shortTime, table, truncate } from '../output.js';
import { requireConfig, storeFor } from '../store.js';
import { terminalFor } from '../terminal.js';
import { identityArgument, requireNats } from './serve.js';

export interface TasksFlags {
  config?: string;
  json?: boolean;
  limit?: string;
  reason?: string;
  wait?: string;
}

/** One task the work queue holds, with its run when there is one. */
export interface QueuedTask {
  request: string;
  agent: string;
  sender: string;
  conversation: string;
  parent?: string;
  /** When it was queued (RFC 3339). */
  queued: string;
  prompt: string;
  /** Its run in the config's store: id and listed status; null when none is there (not taken up yet, or kept in another store). */
  run: { id: string; status: string } | null;
  /** Why its body cannot be read, for one that cannot. */
  problem?: string;
}

const DEFAULT_LIMIT = 100;

function limitOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_LIMIT;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new LogbookError('usage', `--limit takes a number of tasks, not ${JSON.stringify(text)}`);
  return n;
}

/** The messages of `stream` from its first, one request each, at most `limit`. */
async function storedMessages(link: Link, stream: string, limit: number): Promise<StoredMsg[]> {
  const out: StoredMsg[] = [];
  let seq = 0;
  while (out.length < limit) {
    // The next message on any subject at or after seq: one request however many acknowledged ones lie between.
    const query = { seq: seq + 1, next_by_subj: '>' } as unknown as { seq: number };
    const msg = await throughElection(link, stream, `cannot read stream ${stream}`, (ms) => within(ms, link.jsm.streams.getMessage(stream, query)));
    if (msg === null) break;
    out.push(msg);
    seq = msg.seq;
  }
  return out;
}

/** A queued message as a task: read strictly, as a server would read it. */
async function describe(msg: StoredMsg, runs: ReadonlyMap<string, RunInfo>): Promise<QueuedTask> {
  const agent = identityOfTaskSubject(msg.subject) ?? msg.subject;
  const queued = msg.time.toISOString();
  let request: RequestMessage;
  try {
    request = decodeMessage(msg.data, 'request');
  } catch (err) {
    return { request: '', agent, sender: '', conversation: '', queued, prompt: '', run: null, problem: (err as Error).message };
  }
  const { taskRunId } = await import('../../agent/tasks/index.js');
  const runId = taskRunId(agent, request.id);
  const listed = runs.get(runId);
  const run: QueuedTask['run'] = listed === undefined ? null : { id: runId, status: listed.status };
  return {
    request: request.id,
    agent,
    sender: request.sender.name,
    conversation: request.conversation,
    ...(request.parent ? { parent: request.parent } : {}),
    queued,
    prompt: request.prompt,
    run,
  };
}

export async function tasksLs(flags: TasksFlags, environment: Environment): Promise<ExitCode> {
  const limit = limitOf(flags.limit);
  const config = requireConfig(flags.config, environment);
  const nats = requireNats(config, 'tasks ls');
  const stream = config.a2a.tasks_stream;
  const link = await dial(nats, { leaderWaitMs: LEADER_WAIT_MS });
  let store: Store | null = null;
  try {
    const info = await streamInfo(link, stream, () => missingStream(stream, link.url, tasksStreamAdd(stream), 'logbook'));
    store = await storeFor(environment, { config }).catch(() => null);
    const messages = await storedMessages(link, stream, limit);
    // The store listed once for every task: each names its run by its request.
    const runs = store === null ? new Map<string, RunInfo>() : byId(await store.list().catch(() => []));
    const tasks = await Promise.all(messages.map((m) => describe(m, runs)));
    if (flags.json) {
      for (const t of tasks) process.stdout.write(`${terminalSafeJson(t)}\n`);
      return EXIT.ok;
    }
    const consumers = await agentsConsumers(link, stream, [...new Set(tasks.map((t) => t.agent))]);
    if (tasks.length === 0) {
      process.stderr.write(`no tasks in stream ${stream} (${info.state.messages} messages): every task sent has been answered\n`);
      return EXIT.ok;
    }
    process.stdout.write(taskTable(tasks, terminalFor(process.stdout, { env: environment.env }).columns));
    for (const line of consumers) process.stderr.write(`${line}\n`);
    if (tasks.length === limit) process.stderr.write(`(the first ${limit}; --limit N shows more)\n`);
    return EXIT.ok;
  } finally {
    await store?.close();
    await link.close().catch(() => {});
  }
}

/** What each agent's consumer says of its tasks. */
async function agentsConsumers(link: Link, stream: string, agents: string[]): Promise<string[]> {
  const lines: string[] = [];
  for (const agent of agents.sort()) {
    const info = await within(link.timeoutMs, link.jsm.consumers.info(stream, agent)).catch(() => null);
    lines.push(
      info === null
        ? `agent ${sanitizeLine(agent)}: no server has taken tasks yet (no consumer ${sanitizeLine(agent)} on stream ${stream})`
        : `agent ${sanitizeLine(agent)}: ${info.num_pending} waiting, ${info.num_ack_pending} being worked on, ${info.num_redelivered} delivered again`,
    );
  }
  return lines;
}

/** The table `tasks ls` prints: one row per task, columns as wide as a terminal draws them, the prompt cut to the terminal. */
export function taskTable(tasks: QueuedTask[], columns: number | undefined): string {
  const rows = [
    ['REQUEST', 'AGENT', 'FROM', 'QUEUED', 'RUN', 'PROMPT'],
    ...tasks.map((t) =>
      [
        t.request || '(unreadable)',
        t.agent,
        t.sender,
        shortTime(t.queued),
        t.run === null ? '-' : `${t.run.id} (${t.run.status})`,
        t.problem ?? t.prompt.replace(/\s+/g, ' '),
      ].map(sanitizeLine),
    ),
  ];
  // What the fixed columns take, each with the two spaces after it: the prompt has the rest.
  const fixed = rows[0]!.slice(0, -1).reduce((sum, _, i) => sum + Math.max(...rows.map((r) => displayWidth(r[i]!))) + 2, 0);
  const room = columns === undefined ? Infinity : Math.max(10, columns - fixed);
  return table(rows.map((r) => [...r.slice(0, -1), truncate(r.at(-1)!, room)]));
}

export async function tasksCancel(identity: string, request: string, flags: TasksFlags, environment: Environment): Promise<ExitCode> {
  identityArgument(identity);
  if (!isSubjectToken(request)) throw new LogbookError('usage', `${JSON.stringify(request)} is not a request id`);
  const waitS = flags.wait === undefined ? 10 : Number(flags.wait);
  if (!Number.isFinite(waitS) || waitS < 0) throw new LogbookError('usage', `--wait takes seconds, not ${JSON.stringify(flags.wait)}`);
  if (waitS * 1000 > LONGEST_TIMER_MS) throw new LogbookError('usage', `--wait ${flags.wait} is longer than a wait can be (${LONGEST_TIMER_TEXT})`);
  const config = requireConfig(flags.config, environment);
  const nats = requireNats(config, 'tasks cancel');
  const link = await dial(nats, { leaderWaitMs: LEADER_WAIT_MS });
  try {
    const { TaskCaller } = await import('../../agent/tasks/index.js');
    const streams = { tasks: config.a2a.tasks_stream, events: config.a2a.events_stream };
    const caller = new TaskCaller(link, streams);
    // A task no server has been given is taken out of the queue: no server would act on a cancel of it.
    const sender = callerIdentity(config.a2a);
    // Where its events are, if it is this sender's: where its ask read them.
    const where = await caller.eventsOf(identity, request, sender);
    const withdrawal = await caller.withdraw(identity, where, { sender, ...(flags.reason ? { reason: flags.reason } : {}) });
    if (withdrawal === 'withdrawn') {
      process.stderr.write(`task ${request} withdrawn from stream ${streams.tasks}: no server of agent ${identity} had taken it up, so it never ran\n`);
      return EXIT.ok;
    }
    if (withdrawal === 'absent') {
      process.stderr.write(`no task ${request} of agent ${identity} in stream ${streams.tasks} or ${streams.events}: nothing to cancel (\`logbook tasks ls\` lists the tasks queued)\n`);
      return EXIT.error;
    }
    if (withdrawal === 'taken') {
      // A server has it (or is being given it): its servers hear the cancel.
      const body = outgoing('cancel', stampCancel(flags.reason ? { reason: flags.reason } : {}, { request }, sender, identity));
      link.nc.publish(cancelSubject(identity, sender), body); // on the subject that says who sends it
      await link.nc.flush();
    }
    if (waitS === 0 && withdrawal === 'taken') {
      process.stderr.write(`cancel of task ${request} sent to agent ${identity}\n`);
      return EXIT.ok;
    }
    let end: TaskEnd;
    try {
      end = await caller.await(where, identity, withdrawal === 'ended' ? {} : { timeoutMs: waitS * 1000 });
    } catch (err) {
      if (!isLogbookError(err, 'agent_unavailable')) throw err;
      process.stderr.write(
        `cancel of task ${request} sent to agent ${identity}; it has not ended within ${waitS} s (a server that takes it up later ends it canceled, if one heard the cancel)\n`,
      );
      return EXIT.error;
    }
    if (withdrawal === 'taken' && end.kind === 'error' && end.message.stop_reason === 'canceled') {
      process.stderr.write(`task ${request} canceled: ${sanitizeLine(end.message.error)}\n`);
      return EXIT.ok;
    }
    process.stderr.write(`task ${request} had already ended (${endText(end)}): nothing to cancel\n`);
    return EXIT.error;
  } finally {
    await link.close().catch(() => {});
  }
}

function endText(end: TaskEnd): string {
  if (end.kind === 'result') return end.message.stop_reason;
  if (end.kind === 'refused') return `refused: ${sanitizeLine(end.message.reason ?? '')}`;
  return `${end.message.stop_reason ?? 'error'}: ${sanitizeLine(end.message.error)}`;
}

