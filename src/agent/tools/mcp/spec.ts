/**
 * An MCP tool server as agent.yaml declares it (the `mcp:` list): a program
 * spoken to over its stdin and stdout, or a Streamable HTTP endpoint. The
 * checks and defaults of such an entry are here, for the config and for a
 * program that starts servers of its own alike.
 */
import { isAbsolute, resolve } from 'node:path';
import { LogbookError, hasUrlCredentials, redactUrlCredentials } from '../../../core/index.js';
import { checkEnvRefs } from '../env-refs.js';

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

/** An MCP server run as a program, spoken to over its stdin and stdout. */
export interface StdioServerSpec extends ServerSpecBase {
  transport: 'stdio';
  /** argv, run without a shell. */
  command: string[];
  /** Added to the few variables a server inherits (see ../environment.ts); values may hold `${VAR}`. */
  env: Record<string, string>;
  /** Absolute; else logbook's working directory. */
  cwd?: string;
}

/** An MCP server reached over Streamable HTTP. */
export interface HttpServerSpec extends ServerSpecBase {
  transport: 'http';
  url: string;
  /** Sent with every request; values may hold `${VAR}`. */
  headers: Record<string, string>;
}

/** An MCP server, every field given (mcpServerSpec fills the defaults). */
export type McpServerSpec = StdioServerSpec | HttpServerSpec;

/** The rule the model APIs put on tool names. */
export const TOOL_NAME_RULE = /^[a-zA-Z0-9_-]{1,64}$/;

/** The name the model sees for `tool` of `server`. */
export function exposedName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}

/** What a server is given when its entry leaves these out: seconds, and bytes of a result. */
export const MCP_DEFAULTS = { timeout: 60, startup_timeout: 60, max_output: 100_000 } as const;

/**
 * An MCP server as agent.yaml's `mcp:` entries give it: `name` and either
 * `command` (a program spoken to over stdio) or `url` (a Streamable HTTP
 * server); everything else has a default (MCP_DEFAULTS, every tool exposed).
 */
export interface McpServerInput {
  name: string;
  command?: string[];
  /** For a command server: added to the few variables it inherits; values may hold `${NAME}`. */
  env?: Record<string, string>;
  /** For a command server: its working directory. */
  cwd?: string;
  url?: string;
  /** For a url server: sent with every request; values may hold `${NAME}`. */
  headers?: Record<string, string>;
  tools?: string[];
  timeout?: number;
  startup_timeout?: number;
  max_output?: number;
  overrides?: Record<string, ToolPolicyOverride>;
}

/** Where an entry is, for its errors, and the directory a relative `cwd` is taken from. */
export interface McpSpecContext {
  /** Names the entry in every error (default: `MCP server "NAME"`). */
  at?: string;
  /** A relative `cwd` is resolved against it (default: as given, against the working directory). */
  dir?: string;
}

/** An entry checked beyond what its type says, with its defaults: what startMcpServers starts. */
export function mcpServerSpec(s: McpServerInput, context: McpSpecContext = {}): McpServerSpec {
  const at = context.at ?? `MCP server "${s.name}"`;
  if (s.name.includes('__')) {
    throw new LogbookError('config', `${at}: a server name cannot hold "__", which separates it from the tool in mcp__<server>__<tool>`);
  }
  if ((s.command === undefined) === (s.url === undefined)) {
    throw new LogbookError('config', `${at}: give either command (a server run over stdio) or url (a Streamable HTTP server)`);
  }
  for (const key of s.command !== undefined ? (['headers'] as const) : (['env', 'cwd'] as const)) {
    if (s[key] !== undefined) {
      throw new LogbookError('config', `${at}: ${key} only applies to ${key === 'headers' ? 'a url server' : 'a command server'}`);
    }
  }
  checkEnvRefs(s.env, `${at}: env`);
  checkEnvRefs(s.headers, `${at}: headers`);
  const overrides = s.overrides ?? {};
  if (s.tools !== undefined) {
    const outside = Object.keys(overrides).find((t) => !s.tools!.includes(t));
    if (outside !== undefined) throw new LogbookError('config', `${at}: overrides names "${outside}", which its tools: list leaves out`);
  }
  const common = {
    name: s.name,
    ...(s.tools !== undefined ? { tools: s.tools } : {}),
    timeout: s.timeout ?? MCP_DEFAULTS.timeout,
    startup_timeout: s.startup_timeout ?? MCP_DEFAULTS.startup_timeout,
    max_output: s.max_output ?? MCP_DEFAULTS.max_output,
    overrides,
  };
  if (s.command !== undefined) {
    const cwd = s.cwd === undefined || s.cwd === '' ? undefined : context.dir === undefined || isAbsolute(s.cwd) ? s.cwd : resolve(context.dir, s.cwd);
    return { ...common, transport: 'stdio', command: s.command, env: s.env ?? {}, ...(cwd !== undefined ? { cwd } : {}) };
  }
  const given = s.url!;
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new LogbookError('config', `${at}: url ${JSON.stringify(redactUrlCredentials(given))} is not a URL`);
  }
  if (hasUrlCredentials(given)) {
    throw new LogbookError(
      'config',
      `${at}: url ${redactUrlCredentials(given)} holds credentials, which a request cannot carry; ` +
        'send them in headers: (Authorization: "Basic ${NAME}", NAME a variable holding them) and remove them from the url',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new LogbookError('config', `${at}: url must be http: or https:, not ${url.protocol}`);
  }
  return { ...common, transport: 'http', url: given, headers: s.headers ?? {} };
}
