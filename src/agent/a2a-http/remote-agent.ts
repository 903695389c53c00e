/**
 * An agent over A2A 1.0 on HTTP as a tool: `ask_<alias>` (a `remote_agents:`
 * entry with a `url:`), whose call hands the agent a task with the model's
 * `prompt` through the official SDK's client, streaming, and whose result is
 * the task's answer, journaled `"remote": true`.
 *
 * A server names its tasks itself, so the call names the task's context
 * instead: derived from the calling run and the call's id (tasks/origin.ts),
 * as its message id is. A resume that makes the call again (the run died
 * while it waited) finds the task of that context (ListTasks) and re-attaches
 * to it (subscribes, or reads it when it has ended) instead of sending it
 * again: one task, one answer. The token for the agent's server comes from
 * the environment (`token_env`), never from a model.
 */
import type { Client } from '@a2a-js/sdk/client';
import type { Message, StreamResponse, Task } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import { LogbookError, type ToolDefinition } from '../../core/index.js';
import { askToolDefinition } from '../tasks/agent-tool.js';
import { callRequestId } from '../tasks/origin.js';
import type { RemoteAgent } from '../tasks/spec.js';
import type { RemoteOrigin, Tool, ToolContext, ToolOutcome, ToolPolicy } from '../tools/tool.js';

/** A client of the agent at `url` (its card's URL, or its base URL), sending `token` as a bearer token when given. */
export async function httpAgentClient(url: string, token?: string): Promise<Client> {
  const { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory } = await import('@a2a-js/sdk/client');
  const fetchImpl: typeof fetch =
    token === undefined
      ? fetch
      : (input, init) => {
          const headers = new Headers(init?.headers);
          headers.set('authorization', `Bearer ${token}`);
          return fetch(input, { ...init, headers });
        };
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
  });
  // A card's own URL is read as given; a base URL at its well-known path.
  return /\.json$/.test(new URL(url).pathname) ? factory.createFromUrl(url, '') : factory.createFromUrl(url);
}

/** The text a message carries. */
export function messageTextOf(message: Message | undefined): string {
  return (message?.parts ?? []).flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : [])).join('\n');
}

/** The answer a task ended with: its artifacts' text, else its last status message's. */
export function taskAnswer(task: Task): string {
  const art = task.artifacts.flatMap((a) => a.parts.flatMap((p) => (p.content?.$case === 'text' ? [p.content.value] : []))).join('\n');
  return art !== '' ? art : messageTextOf(task.status?.message);
}

/** Folds a task's stream into the task as it stands: the first event's task, then each update. */
export class TaskFollower {
  task: Task | null = null;

  push(e: StreamResponse): void {
    const p = e.payload;
    if (p === undefined) return;
    if (p.$case === 'task') this.task = p.value;
    else if (p.$case === 'message') return;
    else if (this.task !== null && p.$case === 'statusUpdate' && p.value.status) {
      this.task.status = p.value.status;
      if (p.value.status.message) this.task.history.push(p.value.status.message);
    } else if (this.task !== null && p.$case === 'artifactUpdate' && p.value.artifact) {
      const a = p.value.artifact;
      const i = this.task.artifacts.findIndex((x) => x.artifactId === a.artifactId);
      if (i < 0) this.task.artifacts.push(a);
      else if (p.value.append) this.task.artifacts[i]!.parts.push(...a.parts);
      else this.task.artifacts[i] = a;
    }
  }

  /** Whether the task rests: ended, or waiting for input. */
  get rests(): boolean {
    const s = this.task?.status?.state;
    return s !== undefined && s !== TaskState.TASK_STATE_SUBMITTED && s !== TaskState.TASK_STATE_WORKING;
  }
}

/** What the model reads of where a task rests. */
export function restingOutcome(task: Task, agent: string): ToolOutcome {
  const text = taskAnswer(task);
  switch (task.status?.state) {
    case TaskState.TASK_STATE_COMPLETED:
      return { content: text || `agent ${agent} ended its task without an answer`, isError: false, remote: true };
    case TaskState.TASK_STATE_INPUT_REQUIRED:
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      return { content: `agent ${agent} asks for input before going on (task ${task.id}): ${text}`, isError: true, remote: true };
    case TaskState.TASK_STATE_REJECTED:
      return { content: `agent ${agent} refused the task: ${text || 'no reason given'}`, isError: true, remote: true };
    case TaskState.TASK_STATE_CANCELED:
      return { content: `agent ${agent}'s task was canceled${text ? `: ${text}` : ''}`, isError: true, remote: true };
    default:
      return { content: `agent ${agent}'s task failed${text ? `: ${text}` : ''}`, isError: true, remote: true };
  }
}

/** The task already sent in context `contextId`, when the server lists one. */
async function taskOfContext(client: Client, contextId: string, signal: AbortSignal): Promise<Task | null> {
  try {
    const listed = await client.listTasks(
      { tenant: '', contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined, includeArtifacts: true, pageSize: 1 },
      { signal },
    );
    return listed.tasks[0] ?? null;
  } catch {
    return null; // a server that lists no tasks: nothing to re-attach to
  }
}

/** Sends `prompt` as a new task in context `contextId` (or re-attaches to the one there) and follows it until it rests. */
export async function askOverHttp(client: Client, prompt: string, contextId: string, options: { signal: AbortSignal; onEvent?: (e: StreamResponse) => void }): Promise<{ task: Task; reattached: boolean }> {
  const follower = new TaskFollower();
  const existing = await taskOfContext(client, contextId, options.signal);
  let stream: AsyncGenerator<StreamResponse>;
  if (existing !== null) {
    follower.task = existing;
    if (follower.rests) return { task: existing, reattached: true };
    stream = client.resubscribeTask({ tenant: '', id: existing.id }, { signal: options.signal });
  } else {
    const message: Message = {
      messageId: contextId,
      contextId,
      taskId: '',
      role: Role.ROLE_USER,
      parts: [{ content: { $case: 'text', value: prompt }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
      metadata: {},
      extensions: [],
      referenceTaskIds: [],
    };
    stream = client.sendMessageStream({ tenant: '', message, configuration: undefined, metadata: {} }, { signal: options.signal });
  }
  for await (const e of stream) {
    follower.push(e);
    options.onEvent?.(e);
    if (e.payload?.$case === 'message') return { task: messageTask(e.payload.value, contextId), reattached: existing !== null };
    if (follower.rests) break;
  }
  if (follower.task === null) throw new LogbookError('agent_unavailable', 'the agent ended the stream without a task');
  if (!follower.rests && follower.task.id) {
    follower.task = await client.getTask({ tenant: '', id: follower.task.id }, { signal: options.signal }); // the stream ended early: the task as it stands
  }
  return { task: follower.task, reattached: existing !== null };
}

/** A direct message answer, as a completed task holding it. */
function messageTask(message: Message, contextId: string): Task {
  return { id: '', contextId, status: { state: TaskState.TASK_STATE_COMPLETED, message, timestamp: undefined }, artifacts: [], history: [message], metadata: {} };
}

export class HttpAgentTool implements Tool {
  readonly definition: ToolDefinition;
  readonly policy: ToolPolicy = { confirm: false, sideEffects: false };
  readonly remote: RemoteOrigin;
  private client: Promise<Client> | null = null;

  constructor(
    private readonly spec: RemoteAgent & { url: string },
    private readonly token: string | undefined,
  ) {
    this.definition = askToolDefinition(spec);
    this.remote = { agent: spec.name, tool: 'task' };
  }

  async run(input: unknown, context: ToolContext): Promise<ToolOutcome> {
    const agent = this.spec.name;
    if (context.call === undefined) throw new LogbookError('internal', `${this.definition.name} runs only as a run's tool call`);
    const prompt = (input as { prompt: string }).prompt;
    const contextId = callRequestId(context.call);
    const timeout = AbortSignal.timeout(this.spec.timeout * 1000);
    const signal = AbortSignal.any([context.signal, timeout]);
    try {
      this.client ??= httpAgentClient(this.spec.url, this.token);
      const client = await this.client.catch((err: unknown) => {
        this.client = null;
        throw err;
      });
      const { task } = await askOverHttp(client, prompt, contextId, { signal });
      return restingOutcome(task, agent);
    } catch (err) {
      if (context.signal.aborted) throw err;
      if (timeout.aborted) return { content: `agent ${agent} did not end its task (context ${contextId}) within ${this.spec.timeout} s; it goes on there`, isError: true, remote: true };
      return { content: `asking agent ${agent} at ${this.spec.url} (context ${contextId}): ${err instanceof Error ? err.message : String(err)}`, isError: true, remote: true };
    }
  }
}

/** The tools of remote_agents named by url; a token_env that is not set refuses. */
export function httpAgentTools(agents: readonly RemoteAgent[], env: Readonly<Record<string, string | undefined>>): HttpAgentTool[] {
  return agents.map((a) => {
    let token: string | undefined;
    if (a.token_env !== undefined) {
      token = env[a.token_env];
      if (token === undefined || token === '') throw new LogbookError('config', `remote_agents ${a.name}: token_env names ${a.token_env}, which is not set`);
    }
    return new HttpAgentTool(a as RemoteAgent & { url: string }, token);
  });
}
