/** One tool of an MCP server, as the model sees it: `mcp__<server>__<tool>`. */
import type { ToolDefinition } from '../../../core/index.js';
import type { Tool, ToolContext, ToolOutcome, ToolPolicy } from '../tool.js';
import type { ListedTool, ServerConnection } from './connection.js';
import { mcpToolPolicy, type PolicyReasons, type ToolAnnotations } from './policy.js';
import { exposedName, type ToolPolicyOverride } from './spec.js';

export class McpTool implements Tool {
  readonly definition: ToolDefinition;
  readonly policy: ToolPolicy;
  /** Where the policy came from, for listings. @internal */
  readonly reasons: PolicyReasons;
  /** As the server reported them. @internal */
  readonly annotations: ToolAnnotations | undefined;
  /** Bytes of a result's text the model gets: the override's, else the server's. */
  readonly maxOutput: number;

  /** @internal */
  constructor(
    private readonly server: ServerConnection,
    /** The tool as the server listed it (its own name). @internal */
    readonly listed: ListedTool,
    override: ToolPolicyOverride | undefined,
  ) {
    this.definition = {
      name: exposedName(server.spec.name, listed.name),
      description: listed.description,
      input_schema: listed.inputSchema,
    };
    this.annotations = listed.annotations;
    this.maxOutput = override?.max_output ?? server.spec.max_output;
    const { policy, reasons } = mcpToolPolicy(listed.annotations, override);
    this.policy = policy;
    this.reasons = reasons;
  }

  run(input: unknown, context: ToolContext): Promise<ToolOutcome> {
    return this.server.call(this.listed.name, (input ?? {}) as Record<string, unknown>, context.signal, this.definition.name, this.maxOutput);
  }
}
