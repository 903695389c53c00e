/**
 * `logbook ask URL PROMPT`: hands the A2A 1.0 agent at URL (its card's URL,
 * or its base URL) one task over HTTP with the official SDK's client, and
 * prints its answer as the stream brings it: the text of its messages on
 * stdout, its task id on stderr first; with --json, once the task rests, the
 * task as one object of A2A 1.0's JSON (what a GetTask answers on the wire). `--task ID` reads that task again (subscribes to it, or reads it
 * when it has ended) instead of sending anything. The bearer token comes from
 * the variable `--token-env` names. A peer's text is sanitized before it
 * reaches the terminal.
 */
import type { StreamResponse } from '@a2a-js/sdk';
import { Task, TaskState } from '@a2a-js/sdk';
import { answerTask, askOverHttp, httpAgentClient, messageTextOf, taskAnswer, TaskFollower } from '../../agent/a2a-http/remote-agent.js';
import type { OperatorAnswer } from '../../agent/tools/tool.js';
import { askTaskInput } from '../approvals.js';
import { terminalQuestions } from '../questions.js';
import { newMessageId } from '../../a2a/index.js';
import { LogbookError, isLogbookError, shellQuote } from '../../core/index.js';
import { sanitize, sanitizeLine } from '../../render/sanitize.js';
import type { Environment } from '../environment.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { onStopSignals } from '../signals.js';

export interface AskHttpFlags {
  json?: boolean;
  task?: string;
  /** With --task: approve what the task, waiting for input, asks. */
  approve?: boolean;
  /** With --task: deny what the task, waiting for input, asks. */
  deny?: boolean;
  /** With --deny: why, told to the agent. */
  reason?: string;
  tokenEnv?: string;
  conversation?: string;
}

/** Whether an ask's first argument is an agent's URL rather than an identity. */
export function isAgentUrl(text: string): boolean {
  return /^https?:\/\//.test(text);
}

export async function askHttp(url: string, prompt: string, flags: AskHttpFlags, environment: Environment): Promise<ExitCode> {
  if (prompt === '' && flags.task === undefined) throw new LogbookError('usage', 'no prompt: give it as arguments, or pipe it on stdin');
  if ((flags.approve || flags.deny) && flags.task === undefined) throw new LogbookError('usage', `--${flags.approve ? 'approve' : 'deny'} answers a task waiting for input: name it with --task ID`);
  if (flags.approve && flags.deny) throw new LogbookError('usage', '--approve and --deny cannot be combined');
  if (flags.reason !== undefined && !flags.deny) throw new LogbookError('usage', '--reason goes with --deny');
  const given: OperatorAnswer | undefined = flags.approve ? { approve: true } : flags.deny ? (flags.reason ? { approve: false, reason: flags.reason } : { approve: false }) : undefined;
  let token: string | undefined;
  if (flags.tokenEnv !== undefined) {
    token = environment.env[flags.tokenEnv];
    if (!token) throw new LogbookError('usage', `--token-env names ${flags.tokenEnv}, which is not set`);
  }
  const note = (text: string): void => void process.stderr.write(`${sanitizeLine(text)}\n`);
  const stop = onStopSignals(() => {});
  let printed = false;
  const onEvent = (e: StreamResponse): void => {
    const p = e.payload;
    if (p?.$case === 'task') note(`task ${p.value.id} sent to ${url} (context ${p.value.contextId})`);
    if (flags.json) return; // the task is printed once it rests
    if (p?.$case === 'statusUpdate' && p.value.status?.state === TaskState.TASK_STATE_WORKING) {
      const text = messageTextOf(p.value.status.message);
      if (text !== '') {
        process.stdout.write(`${sanitize(text)}\n`);
        printed = true;
      }
    }
  };
  try {
    const client = await httpAgentClient(url, token);
    let task: Task;
    // on a terminal, what a task waiting for input asks is put to the operator, as a run's approvals are
    const canAsk = process.stdin.isTTY === true && process.stderr.isTTY === true;
    const presenter = { show: (text: string) => void process.stderr.write(text), quiet: () => {} };
    const onInputRequired = async (waiting: Task): Promise<OperatorAnswer> => {
      const answer = await askTaskInput(`task ${waiting.id}`, messageTextOf(waiting.status?.message), terminalQuestions(), presenter, stop.signal);
      if (answer === null) throw new LogbookError('interrupted', 'stopped at the question');
      return answer;
    };
    if (flags.task !== undefined) {
      const follower = new TaskFollower();
      follower.task = await client.getTask({ tenant: '', id: flags.task }, { signal: stop.signal });
      if (!follower.rests) for await (const e of client.resubscribeTask({ tenant: '', id: flags.task }, { signal: stop.signal })) (follower.push(e), onEvent(e));
      task = follower.task!;
      if (given !== undefined) {
        if (task.status?.state !== TaskState.TASK_STATE_INPUT_REQUIRED) throw new LogbookError('usage', `task ${flags.task} is not waiting for input`);
        task = await answerTask(client, task, given, { signal: stop.signal, onEvent });
      }
      while (canAsk && task.status?.state === TaskState.TASK_STATE_INPUT_REQUIRED) task = await answerTask(client, task, await onInputRequired(task), { signal: stop.signal, onEvent });
    } else {
      task = (await askOverHttp(client, prompt, flags.conversation ?? newMessageId(), { signal: stop.signal, onEvent, ...(canAsk ? { onInputRequired } : {}) })).task;
    }
    // A2A 1.0's JSON of the task as the agent has it once it rests (read again: a stream's events leave the task's own metadata behind)
    if (flags.json) {
      const rests = task.status?.state === TaskState.TASK_STATE_REJECTED ? task : await client.getTask({ tenant: '', id: task.id }, { signal: stop.signal }); // a rejected task is kept nowhere
      process.stdout.write(`${JSON.stringify(Task.toJSON(rests))}\n`);
    }
    return ended(task, url, printed || flags.json === true);
  } catch (err) {
    if (stop.signal.aborted || isLogbookError(err, 'interrupted')) {
      note('stopped reading; the task goes on there');
      return EXIT.interrupted;
    }
    if (err instanceof LogbookError) throw err;
    throw new LogbookError('agent_unavailable', `asking ${url}: ${(err as Error).message}`, { cause: err });
  } finally {
    stop.dispose();
  }
}

/** The exit of where the task rests; its answer printed when its messages carried none. */
function ended(task: Task, url: string, shown: boolean): ExitCode {
  const text = taskAnswer(task);
  switch (task.status?.state) {
    case TaskState.TASK_STATE_COMPLETED:
      if (!shown && text) process.stdout.write(`${sanitize(text)}\n`);
      return EXIT.ok;
    case TaskState.TASK_STATE_INPUT_REQUIRED:
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      process.stderr.write(`logbook: task ${sanitizeLine(task.id)} waits for input: ${sanitizeLine(text)}\n  answer it: logbook ask ${shellQuote([url])} --task ${shellQuote([task.id])} --approve (or --deny --reason TEXT)\n`);
      return EXIT.awaiting;
    case TaskState.TASK_STATE_REJECTED:
      throw new LogbookError('agent_refused', `${url} rejected the task: ${text || 'no reason given'}`);
    default:
      throw new LogbookError('agent_refused', `${url} ended the task ${TaskState[task.status?.state ?? 0]?.replace(/^TASK_STATE_/, '').toLowerCase() ?? 'unknown'}${text ? `: ${text}` : ''}`);
  }
}
