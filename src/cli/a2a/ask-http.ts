/**
 * `logbook ask URL PROMPT`: hands the A2A 1.0 agent at URL (its card's URL,
 * or its base URL) one task over HTTP with the official SDK's client, and
 * prints its answer as the stream brings it: the text of its messages on
 * stdout, its task id on stderr first; with --json each stream event as a
 * JSON line. `--task ID` reads that task again (subscribes to it, or reads it
 * when it has ended) instead of sending anything. The bearer token comes from
 * the variable `--token-env` names. A peer's text is sanitized before it
 * reaches the terminal.
 */
import type { StreamResponse, Task } from '@a2a-js/sdk';
import { TaskState } from '@a2a-js/sdk';
import { askOverHttp, httpAgentClient, messageTextOf, taskAnswer, TaskFollower } from '../../agent/a2a-http/remote-agent.js';
import { newMessageId } from '../../a2a/index.js';
import { LogbookError, isLogbookError } from '../../core/index.js';
import { sanitize, sanitizeLine } from '../../render/sanitize.js';
import type { Environment } from '../environment.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { onStopSignals } from '../signals.js';

export interface AskHttpFlags {
  json?: boolean;
  task?: string;
  tokenEnv?: string;
  conversation?: string;
}

/** Whether an ask's first argument is an agent's URL rather than an identity. */
export function isAgentUrl(text: string): boolean {
  return /^https?:\/\//.test(text);
}

export async function askHttp(url: string, prompt: string, flags: AskHttpFlags, environment: Environment): Promise<ExitCode> {
  if (prompt === '' && flags.task === undefined) throw new LogbookError('usage', 'no prompt: give it as arguments, or pipe it on stdin');
  let token: string | undefined;
  if (flags.tokenEnv !== undefined) {
    token = environment.env[flags.tokenEnv];
    if (!token) throw new LogbookError('usage', `--token-env names ${flags.tokenEnv}, which is not set`);
  }
  const note = (text: string): void => void process.stderr.write(`${sanitizeLine(text)}\n`);
  const stop = onStopSignals(() => {});
  let printed = false;
  const onEvent = (e: StreamResponse): void => {
    if (flags.json) {
      process.stdout.write(`${JSON.stringify(e)}\n`);
      return;
    }
    const p = e.payload;
    if (p?.$case === 'task') note(`task ${p.value.id} sent to ${url} (context ${p.value.contextId})`);
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
    if (flags.task !== undefined) {
      const follower = new TaskFollower();
      follower.task = await client.getTask({ tenant: '', id: flags.task }, { signal: stop.signal });
      if (!follower.rests) for await (const e of client.resubscribeTask({ tenant: '', id: flags.task }, { signal: stop.signal })) (follower.push(e), onEvent(e));
      task = follower.task!;
    } else {
      task = (await askOverHttp(client, prompt, flags.conversation ?? newMessageId(), { signal: stop.signal, onEvent })).task;
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
      process.stderr.write(`logbook: task ${sanitizeLine(task.id)} waits for input: ${sanitizeLine(text)}\n`);
      return EXIT.awaiting;
    case TaskState.TASK_STATE_REJECTED:
      throw new LogbookError('agent_refused', `${url} rejected the task: ${text || 'no reason given'}`);
    default:
      throw new LogbookError('agent_refused', `${url} ended the task ${TaskState[task.status?.state ?? 0]?.replace(/^TASK_STATE_/, '').toLowerCase() ?? 'unknown'}${text ? `: ${text}` : ''}`);
  }
}
