/**
 * Which of this agent's tools `logbook serve` answers for (agent.yaml's
 * `expose:`), by the reference's rules: never a tool that asks for a
 * confirmation (a served call has no operator to approve it), never one without
 * a description (a caller would not import it) or with a name the wire cannot
 * carry; and only those `expose.tools` picks.
 */
import { IDENTITY_PATTERN, type ToolDescriptor, type ToolOutcomeFields } from '../a2a/protocol.js';
import type { ToolHost } from '../a2a/service.js';
import { RawJson, canonicalJson } from '../core/index.js';
import type { ToolRegistry } from './tools/registry.js';
import type { Tool, ToolOutcome } from './tools/tool.js';

/** Which of an agent's tools `logbook serve` offers other agents, and how many calls it runs at once (agent.yaml's `expose:`). */
export interface ExposeSettings {
  /** Regular expressions matched against tool names (anywhere in the name, as the reference matches them). */
  include?: string[];
  exclude?: string[];
  /** Calls run at once. */
  max_concurrent_tools: number;
  /** Seconds one served call may take. */
  tool_timeout: number;
  /** Whether `serve` takes tasks from the work-queue stream (a2a.tasks_stream) as well. */
  tasks: boolean;
  /** Seconds a task's message waits for a sign of life from the instance running it before another instance takes the task over. */
  task_ack_wait: number;
}

export const EXPOSE_DEFAULTS = { max_concurrent_tools: 2, tool_timeout: 30, tasks: true, task_ack_wait: 30 } as const;

export type NotExposedReason = 'confirm' | 'no description' | 'name' | 'include' | 'exclude';

export interface Exposure {
  exposed: Tool[];
  /** Every tool left out, with why. */
  withheld: { name: string; reason: NotExposedReason }[];
}

const matchesAny = (name: string, patterns: readonly string[] | undefined): boolean => (patterns ?? []).some((p) => new RegExp(p).test(name));

/** The tools `tools` serve under `settings`, in their order, and those left out. */
export function exposedTools(tools: readonly Tool[], settings: Pick<ExposeSettings, 'include' | 'exclude'>): Exposure {
  const out: Exposure = { exposed: [], withheld: [] };
  for (const tool of tools) {
    const { name, description } = tool.definition;
    const reason: NotExposedReason | null =
      settings.include !== undefined && !matchesAny(name, settings.include)
        ? 'include'
        : matchesAny(name, settings.exclude)
          ? 'exclude'
          : tool.policy?.confirm === true
            ? 'confirm'
            : description === ''
              ? 'no description'
              : !IDENTITY_PATTERN.test(name)
                ? 'name'
                : null;
    if (reason === null) out.exposed.push(tool);
    else out.withheld.push({ name, reason });
  }
  return out;
}

/**
 * A tool's outcome as a `tool.reply` carries it: a command that ran to an exit is
 * a success with its `exec` (a non-zero exit included, as the reference serves
 * it); anything else is its content, an error when the tool said so.
 */
export function outcomeFields(outcome: ToolOutcome): ToolOutcomeFields {
  if (outcome.exec !== undefined) {
    const { command, exitCode, output, truncated } = outcome.exec;
    return { output, exec: { command, exit_code: exitCode, ...(truncated ? { truncated } : {}) } };
  }
  return { ...(outcome.isError ? { is_error: true } : {}), output: outcome.content };
}

/**
 * The served side of `exposed`: their cards' descriptors (each input schema
 * with its keys sorted, as the reference marshals one) and a call that runs the
 * tool through the registry, which checks the input against its schema first.
 */
export function toolHost(registry: ToolRegistry, exposed: readonly Tool[]): ToolHost {
  const tools: ToolDescriptor[] = exposed.map(({ definition: d }) => ({
    name: d.name,
    description: d.description,
    input_schema: RawJson.fromValidText(canonicalJson(d.input_schema)),
  }));
  return {
    tools,
    async call(name, input, signal) {
      return outcomeFields(await registry.run(name, input ?? RawJson.fromText('{}'), { signal }));
    },
  };
}
