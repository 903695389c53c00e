/**
 * A tool another agent runs: presented to the model like a local one, and
 * called with one `tool.request` to that agent. The model reads its reply as it
 * would a local tool's: `is_error` is an error result; a command that ran is the
 * command envelope (`command`, `exit_code`, `output`), an error when the exit
 * code is not 0. A call that could not be made or answered (no responders, no
 * reply in time, a refusal) is an error result naming the call and the agent,
 * never a crash. Every outcome is marked remote, so its record says so.
 */
import type { RawJson, ToolDefinition } from '../../../core/index.js';
import type { ToolReplyMessage } from '../../../a2a/protocol.js';
import type { RemoteOrigin, Tool, ToolContext, ToolOutcome, ToolPolicy } from '../tool.js';

/** What a remote tool needs of the wire: one call, answered or failed (a2a's A2AClient). */
export interface RemoteCaller {
  callTool(agent: string, tool: string, input: RawJson | undefined, options: { timeoutMs: number }): Promise<ToolReplyMessage>;
}

/** The reply as the model reads it. */
export function replyOutcome(reply: ToolReplyMessage): ToolOutcome {
  const output = reply.output ?? '';
  if (reply.is_error) return { content: output, isError: true, remote: true };
  if (reply.exec === undefined) return { content: output, isError: false, remote: true };
  const exitCode = reply.exec.exit_code ?? 0;
  const envelope: Record<string, unknown> = { command: reply.exec.command ?? '', exit_code: exitCode, output };
  if (reply.exec.truncated) envelope.truncated = true;
  return { content: JSON.stringify(envelope), isError: exitCode !== 0, remote: true };
}

/** A tool of another agent, called over NATS: its result is what that agent answers. */
export class RemoteTool implements Tool {
  /** @internal */
  constructor(
    readonly definition: ToolDefinition,
    readonly policy: ToolPolicy,
    readonly remote: RemoteOrigin,
    private readonly caller: RemoteCaller,
    private readonly timeoutMs: number,
  ) {}

  async run(_input: unknown, _context: ToolContext, raw: RawJson): Promise<ToolOutcome> {
    let reply: ToolReplyMessage;
    try {
      reply = await this.caller.callTool(this.remote.agent, this.remote.tool, raw, { timeoutMs: this.timeoutMs });
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return { content: `calling ${this.remote.tool} on agent ${this.remote.agent}: ${why}`, isError: true, remote: true };
    }
    return replyOutcome(reply);
  }
}
