/**
 * Tools from MCP servers. `startMcpServers` starts every configured server at
 * once, lists their tools and gives back the ones agent.yaml exposes, each a
 * `Tool` named `mcp__<server>__<tool>`; `close` stops them all. The first server
 * that fails to start stops the others and fails the start with its reason, so
 * a broken server is one clear error, never a hang or a half-started set.
 */
import { LogbookError } from '../../../core/index.js';
import { ServerConnection } from './connection.js';
import { McpTool } from './mcp-tool.js';
import { exposedName, TOOL_NAME_RULE, type McpServerSpec } from './spec.js';

export type { McpServerSpec, StdioServerSpec, HttpServerSpec, ToolPolicyOverride } from './spec.js';
export type { ToolAnnotations, PolicyReasons } from './policy.js';
export { McpTool } from './mcp-tool.js';
export { exposedName } from './spec.js';

/** Which servers are up while they start, in config order. */
export interface StartProgress {
  ready: string[];
  pending: string[];
}

/** How startMcpServers starts the servers. */
export interface StartOptions {
  /**
   * logbook's environment: where `${VAR}` references are read, and the few
   * variables a stdio server inherits come from (see ../environment.ts).
   */
  env: Readonly<Record<string, string | undefined>>;
  /** Aborting it stops every server and rejects the start as interrupted. */
  signal?: AbortSignal;
  /** Called once before any server is up, then each time one is. */
  onProgress?: (progress: StartProgress) => void;
}

/** A server that started, and the tools it exposes. */
export interface StartedServer {
  spec: McpServerSpec;
  /** How it is reached: its command line or URL. */
  where: string;
  /** The tools it exposes, in the order it listed them. */
  tools: McpTool[];
  /** The names of the tools it listed that `tools:` leaves out. */
  hidden: string[];
}

/** The servers startMcpServers started, and their tools. */
export interface McpServers {
  servers: StartedServer[];
  /** Every exposed tool, server by server in config order. */
  tools: McpTool[];
  /** Stops every server. */
  close(): Promise<void>;
}

function configError(spec: McpServerSpec, message: string): LogbookError {
  return new LogbookError('config', `MCP server "${spec.name}": ${message}`);
}

/** The tools of `connection` that its spec exposes; every name the spec gives must exist. */
function expose(connection: ServerConnection): StartedServer {
  const spec = connection.spec;
  const listed = new Map<string, (typeof connection.tools)[number]>();
  for (const t of connection.tools) {
    if (listed.has(t.name)) throw configError(spec, `the server lists two tools named "${t.name}"`);
    listed.set(t.name, t);
  }
  const offers = (): string => (listed.size ? `it offers ${[...listed.keys()].join(', ')}` : 'it offers no tools');
  for (const name of spec.tools ?? []) {
    if (!listed.has(name)) throw configError(spec, `tools: names "${name}", which the server does not offer; ${offers()}`);
  }
  for (const name of Object.keys(spec.overrides)) {
    if (!listed.has(name)) throw configError(spec, `overrides: names "${name}", which the server does not offer; ${offers()}`);
  }
  const wanted = spec.tools === undefined ? undefined : new Set(spec.tools);
  const tools: McpTool[] = [];
  const hidden: string[] = [];
  for (const t of connection.tools) {
    if (wanted !== undefined && !wanted.has(t.name)) {
      hidden.push(t.name);
      continue;
    }
    const name = exposedName(spec.name, t.name);
    if (!TOOL_NAME_RULE.test(name)) {
      throw configError(
        spec,
        `its tool ${JSON.stringify(t.name)} would reach the model as ${JSON.stringify(name)}, which breaks the model APIs' rule for tool names ` +
          `(letters, digits, _ and -, at most 64 characters); leave it out with a tools: list, or give the server a shorter name`,
      );
    }
    tools.push(new McpTool(connection, t, spec.overrides[t.name]));
  }
  return { spec, where: connection.where, tools, hidden };
}

/** Starts every server at once, lists their tools, and gives the tools each exposes (`mcp__<server>__<tool>`); the first that fails stops the others and fails the start with its reason. Register the tools in the agent's ToolRegistry, and `close()` when the run is done. */
export async function startMcpServers(specs: readonly McpServerSpec[], options: StartOptions): Promise<McpServers> {
  const env = options.env;
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) onAbort();

  const ready = new Set<string>();
  const report = (): void =>
    options.onProgress?.({
      ready: specs.filter((s) => ready.has(s.name)).map((s) => s.name),
      pending: specs.filter((s) => !ready.has(s.name)).map((s) => s.name),
    });
  report();

  const connections: ServerConnection[] = [];
  const starts = specs.map(async (spec) => {
    const connection = await ServerConnection.connect(spec, { env, signal: stop.signal });
    connections.push(connection);
    const started = expose(connection);
    ready.add(spec.name);
    report();
    return started;
  });
  const closeAll = async (): Promise<void> => {
    await Promise.all(connections.map((c) => c.close()));
  };
  try {
    const servers = await Promise.all(starts); // rejects at the first failure

    return { servers, tools: servers.flatMap((s) => s.tools), close: closeAll };
  } catch (err) {
    stop.abort(); // the rest stop now rather than after their timeouts
    await Promise.allSettled(starts); // each failed start has stopped its own server
    await closeAll();
    throw err;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
}
