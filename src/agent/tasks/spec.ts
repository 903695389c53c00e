/**
 * Tasks over NATS as agent.yaml declares them: the operator's two streams
 * (`a2a.tasks_stream`, the work queue of requests; `a2a.events_stream`, every
 * task's events), what `logbook serve` takes on (`expose.tasks`), and the
 * other agents a run may ask to do a task (`remote_agents:`, spelt as the
 * reference spells it: `name` is the agent's identity, `alias` names the tool
 * the model calls, plus logbook's `description` and `timeout`).
 */

/** Another agent a run may hand a task to: the model calls it as the tool `ask_<alias>`. */
export interface RemoteAgent {
  /** Its identity on the wire. */
  name: string;
  /** The tool the model calls is `ask_<alias>`; the identity when not given. */
  alias: string;
  /** What the model reads of it: what it is good for. */
  description?: string;
  /** Seconds a call waits for the task's end before it gives up on it (the task goes on). */
  timeout: number;
  /** An agent over A2A 1.0 on HTTP instead of NATS: its card's URL or its base URL (agent/a2a-http/remote-agent.ts). */
  url?: string;
  /** For `url`: the environment variable holding the bearer token its server wants. */
  token_env?: string;
}

export const TASK_DEFAULTS = {
  tasks_stream: 'A2A_TASKS',
  events_stream: 'A2A_EVENTS',
  /** Seconds a task message waits for a sign of life from the instance working on it before another instance gets it. */
  task_ack_wait: 30,
  /** Seconds an `ask_<alias>` call waits for its task's end. */
  timeout: 600,
} as const;

/** The streams tasks go through. */
export interface TaskStreams {
  tasks: string;
  events: string;
}

/** The tool name the model calls to ask agent `alias`. */
export function askToolName(alias: string): string {
  return `ask_${alias}`;
}
