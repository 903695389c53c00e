/**
 * Another agent as a tool: `ask_<alias>` (remote_agents in agent.yaml), whose
 * call hands the agent a task with the model's `prompt` and whose result is
 * the task's answer, journaled `"remote": true`. The task's request id is
 * derived from the calling run and the call's id (origin.ts), so a resume that
 * makes the call again (the run died while it waited) reads the same task's
 * stream from the start instead of asking again: one task, one run, one
 * answer. That is also why the call has no side effects of its own to guard.
 * While it waits, each message of the task's stream is told to the run's
 * observer (the live view shows them, indented).
 */
import type { ToolDefinition } from '../../core/index.js';
import { LogbookError, isLogbookError } from '../../core/index.js';
import type { RemoteOrigin, Tool, ToolContext, ToolOutcome, ToolPolicy } from '../tools/tool.js';
import type { TaskCaller, TaskEnd } from './caller.js';
import { callRequestId } from './origin.js';
import { askToolName, type RemoteAgent } from './spec.js';

/** The tool's definition: part of the tool set a run's fingerprint hashes, so fixed by the config alone. */
export function askToolDefinition(spec: RemoteAgent): ToolDefinition {
  return {
    name: askToolName(spec.alias),
    description:
      spec.description ??
      `Hand agent ${spec.name} a task: it works on it on its own, with its own model and tools, and answers with its result. It sees nothing of this conversation but the prompt.`,
    input_schema: {
      type: 'object',
      properties: { prompt: { type: 'string', description: `The task for agent ${spec.name}, with everything it needs to know` } },
      required: ['prompt'],
      additionalProperties: false,
    },
  };
}

/** What the model reads of a task's end. */
export function taskEndOutcome(end: TaskEnd, agent: string): ToolOutcome {
  switch (end.kind) {
    case 'result': {
      const { stop_reason, text } = end.message;
      if (stop_reason === 'end_turn' || stop_reason === 'max_tokens') {
        return { content: text ? text : `agent ${agent} ended its task without an answer`, isError: false, remote: true };
      }
      return { content: `agent ${agent} stopped its task before finishing it (${stop_reason})${text ? `; its last words: ${text}` : ''}`, isError: true, remote: true };
    }
    case 'error': {
      const { error, code } = end.message;
      return { content: `agent ${agent}: ${error}${code ? ` (${code})` : ''}`, isError: true, remote: true };
    }
    case 'refused':
      return { content: `agent ${agent} refused the task: ${end.message.reason ?? 'no reason given'}`, isError: true, remote: true };
  }
}

export class AgentTaskTool implements Tool {
  readonly definition: ToolDefinition;
  readonly policy: ToolPolicy = { confirm: false, sideEffects: false };
  readonly remote: RemoteOrigin;

  constructor(
    private readonly spec: RemoteAgent,
    private readonly caller: TaskCaller,
    /** This agent's identity: the sender of the request. */
    private readonly sender: string,
  ) {
    this.definition = askToolDefinition(spec);
    this.remote = { agent: spec.name, tool: 'task', task: true };
  }

  async run(input: unknown, context: ToolContext): Promise<ToolOutcome> {
    const agent = this.spec.name;
    if (context.call === undefined) throw new LogbookError('internal', `${this.definition.name} runs only as a run's tool call`);
    const prompt = (input as { prompt: string }).prompt;
    const id = callRequestId(context.call);
    try {
      const end = await this.caller.ask(
        { id, agent, sender: this.sender, prompt, parent: context.call.parentRequest ?? context.call.runId },
        {
          signal: context.signal,
          timeoutMs: this.spec.timeout * 1000,
          onMessage: (message) => context.onProgress?.({ agent, message }),
        },
      );
      return taskEndOutcome(end, agent);
    } catch (err) {
      if (context.signal.aborted) throw err;
      // A task no server took up in time is taken back: left queued, it would run whenever one starts, for nobody.
      if (isLogbookError(err, 'agent_unavailable') && (await this.caller.withdraw(agent, await this.caller.eventsOf(agent, id, this.sender), { sender: this.sender, reason: `not taken up within ${this.spec.timeout} s` }).catch(() => 'taken')) === 'withdrawn') {
        return { content: `no server of agent ${agent} took up task ${id} within ${this.spec.timeout} s; it was withdrawn, never run`, isError: true, remote: true };
      }
      return { content: `asking agent ${agent} (task ${id}): ${err instanceof Error ? err.message : String(err)}`, isError: true, remote: true };
    }
  }
}

