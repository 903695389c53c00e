/**
 * Agents as durable services (docs/guide/agents.md): tasks over NATS on the
 * reference's bodies, served from the operator's work-queue stream by any
 * instance of an identity, each a run in the store that another instance takes
 * over when its own dies; and the other side, a run or `logbook ask` handing a
 * task to another agent. The NATS client loads only when this is imported.
 */
import type { NatsSettings } from '../../store/backend.js';
import { dial, type Link } from '../../store/jetstream/connection.js';
import { LEADER_WAIT_MS } from '../../store/jetstream/election.js';
import { AgentTaskTool } from './agent-tool.js';
import { TaskCaller } from './caller.js';
import type { RemoteAgent, TaskStreams } from './spec.js';
import { taskSubject } from '../../a2a/subjects.js';
import { bindTaskStreams } from './streams.js';

export { AgentTaskTool, askToolDefinition, taskEndOutcome } from './agent-tool.js';
export { TaskCaller, type AskOptions, type TaskEnd, type TaskRequest } from './caller.js';
export { TaskServer, promptOf, type ServedTask, type TaskServerOptions } from './server.js';
export { bindTaskStreams, type BoundTaskStreams, tasksStreamProblems, eventsStreamProblems, tasksStreamAdd, eventsStreamAdd } from './streams.js';
export { taskRunId, callRequestId, parseTaskOrigin, TASK_NOTE, type TaskOrigin } from './origin.js';
export { followTask, type FollowOptions, type TaskEvents, type TaskMessage, type Withdrawal } from './wire.js';
export { TASK_DEFAULTS, askToolName, type RemoteAgent, type TaskStreams } from './spec.js';

/**
 * A JetStream connection for tasks (a TaskServer's, a TaskCaller's), dialled
 * with agent.yaml's `nats:` settings: every request waits through a stream
 * leader election. `close()` it when done.
 */
export function connectTasks(nats: NatsSettings): Promise<Link> {
  return dial(nats, { leaderWaitMs: LEADER_WAIT_MS });
}

/** The ask_<alias> tools of remote_agents, and how to let their connection go. */
export interface RemoteAgents {
  tools: AgentTaskTool[];
  /** Closes the connection the tools share. */
  close(): Promise<void>;
}

/**
 * The tools of remote_agents, for a run: one JetStream connection (agent.yaml's
 * `nats:`), the streams checked to exist and take each agent's tasks (a start
 * fails with one line naming what to create), and `close` to let it go.
 */
export async function startRemoteAgents(agents: readonly RemoteAgent[], options: { nats: NatsSettings; identity: string; streams: TaskStreams }): Promise<RemoteAgents> {
  const link = await connectTasks(options.nats);
  try {
    await bindTaskStreams(link, options.streams, agents.map((a) => taskSubject(a.name)));
    const caller = new TaskCaller(link, options.streams);
    return { tools: agents.map((a) => new AgentTaskTool(a, caller, options.identity)), close: () => link.close() };
  } catch (err) {
    await link.close().catch(() => {});
    throw err;
  }
}
