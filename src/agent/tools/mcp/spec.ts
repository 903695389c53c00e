/**
 * An MCP tool server as agent.yaml declares it (the `mcp:` list): a program
 * spoken to over its stdin and stdout, or a Streamable HTTP endpoint.
 */

/** A per-tool override of the policy the server's annotations imply, and of the server's max_output. */
export interface ToolPolicyOverride {
  confirm?: boolean;
  side_effects?: boolean;
  max_output?: number;
}

interface ServerSpecBase {
  /** Part of every exposed tool's name: `mcp__<name>__<tool>`. */
  name: string;
  /** Expose only these of the server's tools (its own names); all of them when absent. */
  tools?: string[];
  /** Seconds a call may take. */
  timeout: number;
  /** Bytes of a result's text the model gets; the rest is cut and counted (as a command tool's output). */
  max_output: number;
  /** Seconds the start may take: the process or connection, the handshake and the whole tool list. */
  startup_timeout: number;
  /** By the server's own tool name. */
  overrides: Record<string, ToolPolicyOverride>;
}

export interface StdioServerSpec extends ServerSpecBase {
  transport: 'stdio';
  /** argv, run without a shell. */
  command: string[];
  /** Added to the few variables a server inherits (see ../environment.ts); values may hold `${VAR}`. */
  env: Record<string, string>;
  /** Absolute; else logbook's working directory. */
  cwd?: string;
}

export interface HttpServerSpec extends ServerSpecBase {
  transport: 'http';
  url: string;
  /** Sent with every request; values may hold `${VAR}`. */
  headers: Record<string, string>;
}

export type McpServerSpec = StdioServerSpec | HttpServerSpec;

/** The rule the model APIs put on tool names. */
export const TOOL_NAME_RULE = /^[a-zA-Z0-9_-]{1,64}$/;

/** The name the model sees for `tool` of `server`. */
export function exposedName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}
