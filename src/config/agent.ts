/**
 * From agent.yaml to the agent a run uses: its provider, its tools and its
 * limits. One place, so a fresh run and a resume build the same agent, and so
 * the same fingerprint (fingerprintOf).
 */
import type { Agent } from '../agent/agent.js';
import { loadPriceBook, type PriceBook } from '../agent/prices.js';
import { createProvider } from '../agent/providers/index.js';
import type { RetryListener, RetryPolicy } from '../agent/providers/retry.js';
import { baseUrlVariable } from '../agent/provider.js';
import type { StartProgress } from '../agent/tools/mcp/index.js';
import type { DiscoveryProgress } from '../agent/tools/remote/index.js';
import { LogbookError, isLogbookError } from '../core/index.js';
import { CommandTool } from '../agent/tools/command-tool.js';
import { ToolRegistry } from '../agent/tools/registry.js';
import { loadConfig, type LogbookConfig } from './config.js';

/** What the agent takes from the environment, read once by the caller. */
export interface AgentEnvironment {
  /**
   * Where API keys, base URLs and `${NAME}` references are read from, and the
   * few variables a tool inherits (agent/tools/environment.ts).
   */
  env: Readonly<Record<string, string | undefined>>;
  retry?: RetryPolicy;
  /** Told, in one line, why a model call is tried again. */
  onRetry?: RetryListener;
  /** Told what the provider's SDK warns of (a deprecated model). */
  onWarning?: (message: string) => void;
  /** For the script provider: a file that records every turn asked for. */
  scriptLog?: string;
  /** Aborting it stops MCP servers that are starting. */
  signal?: AbortSignal;
  /** Told how the MCP servers' start goes, for a progress line. */
  onServers?: (progress: StartProgress) => void;
  /** Told how asking the agents of remote_tools for their tools goes, for a progress line. */
  onAgents?: (progress: DiscoveryProgress) => void;
  /** Where the context windows the price table gave are kept between processes (PriceBookOptions.windowMemo). */
  windowMemo?: string;
}

/** An agent, and what stops the tool servers it started. */
export interface ConfiguredAgent {
  agent: Agent;
  /** Stops the agent's MCP servers and lets its NATS connection go; call it on every way out, a suspend included. */
  close(): Promise<void>;
  /** What the operator should know of the start (tools of other agents that were not imported). */
  notes: string[];
}

/**
 * The command tools; `env` is logbook's environment, where each tool's
 * variables come from. Their schemas were checked with the config (parseConfig),
 * so not again here: `config` is one parseConfig or loadConfig gave.
 */
export function toolsFromConfig(config: LogbookConfig, env: AgentEnvironment['env']): ToolRegistry {
  return ToolRegistry.ofCheckedConfig(config.tools.map((t) => new CommandTool(t, { env })));
}

/** The tools this agent runs itself: its command tools and its MCP servers' (started here), and what stops those servers. */
export async function localTools(config: LogbookConfig, environment: Pick<AgentEnvironment, 'env' | 'signal' | 'onServers'>): Promise<{ tools: ToolRegistry; close: () => Promise<void> }> {
  const tools = toolsFromConfig(config, environment.env);
  if (config.mcp.length === 0) return { tools, close: async () => {} };
  const { startMcpServers } = await import('../agent/tools/mcp/index.js');
  const servers = await startMcpServers(config.mcp, {
    env: environment.env,
    ...(environment.signal !== undefined ? { signal: environment.signal } : {}),
    ...(environment.onServers !== undefined ? { onProgress: environment.onServers } : {}),
  });
  try {
    for (const tool of servers.tools) tools.register(tool);
  } catch (err) {
    await servers.close();
    throw err;
  }
  return { tools, close: () => servers.close() };
}

/**
 * The provider, then the tools: command tools, the tools of the config's MCP
 * servers, started here (all at once; the module loads only when there are any)
 * and listed, and the tools of the agents of remote_tools, imported here (each
 * agent asked at once), so all their definitions are in the fingerprint a
 * resume is checked against. `config` is one parseConfig or loadConfig gave
 * (its command tools' schemas are not checked again).
 */
export async function agentFromConfig(config: LogbookConfig, environment: AgentEnvironment): Promise<ConfiguredAgent> {
  const provider = await providerFromConfig(config, environment);
  const [local, prices] = await Promise.all([localTools(config, environment), priceBookFor(config, environment)]);
  const { tools } = local;
  const closers = [local.close];
  const close = async (): Promise<void> => {
    await Promise.all(closers.splice(0).map((c) => c()));
  };
  const notes: string[] = [];
  let limits: Partial<Agent>;
  try {
    limits = limitsOf(config, provider, prices);
    if (config.remote_tools.length > 0) notes.push(...(await importRemoteTools(config, environment, tools, closers)));
    if (config.remote_agents.length > 0) await addRemoteAgents(config, environment.env, tools, closers);
  } catch (err) {
    await close();
    throw err;
  }
  const agent: Agent = {
    provider,
    tools,
    system: config.system,
    maxTokens: config.max_tokens,
    maxIterations: config.max_iterations,
    thinking: config.thinking,
    promptCache: config.prompt_cache,
    ...(config.budget !== undefined ? { budget: config.budget } : {}),
    ...limits,
  };
  return { agent, close, notes };
}

/** The config's provider, for its model, its settings checked (a model that would refuse every call is refused now). */
async function providerFromConfig(config: LogbookConfig, environment: AgentEnvironment): Promise<Agent['provider']> {
  const provider = await createProvider({
    provider: config.provider,
    model: config.model,
    ...(config.base_url !== undefined ? { baseUrl: config.base_url } : {}),
    ...(config.api_key_env !== undefined ? { apiKeyEnv: config.api_key_env } : {}),
    ...(config.script !== undefined ? { script: config.script } : {}),
    env: environment.env,
    ...(environment.retry !== undefined ? { retry: environment.retry } : {}),
    ...(environment.onRetry !== undefined ? { onRetry: environment.onRetry } : {}),
    ...(environment.onWarning !== undefined ? { onWarning: environment.onWarning } : {}),
    ...(config.idle_timeout !== undefined ? { idleTimeoutMs: config.idle_timeout * 1000 } : {}),
    configFile: config.path,
    ...(environment.scriptLog !== undefined ? { scriptLog: environment.scriptLog } : {}),
  });
  try {
    provider.checkSettings?.({ maxTokens: config.max_tokens, thinking: config.thinking });
  } catch (err) {
    if (!isLogbookError(err, 'config')) throw err;
    throw new LogbookError('config', `${config.path}: ${err.message}`, { cause: err });
  }
  return provider;
}

/**
 * `agent`, built from `config`, with another model of its provider (a chat's
 * /model): the tools, already started, and the rest as they are; the context
 * window and the spend caps as the config has them for that model (a USD cap
 * needs its price). Its fingerprint differs by the model alone.
 */
export async function agentWithModel(config: LogbookConfig, environment: AgentEnvironment, agent: Agent, model: string): Promise<Agent> {
  const switched = { ...config, model };
  const provider = await providerFromConfig(switched, environment);
  const { contextWindow: _window, ...rest } = agent;
  return { ...rest, provider, ...limitsOf(switched, provider, agent.prices) };
}

/**
 * The prices: agent.yaml's, and the price table unless the provider is the
 * script one and nothing in the config asks for prices. The base URL tells a
 * compatible API's provider (the table knows DeepSeek's, Groq's...).
 */
async function priceBookFor(config: LogbookConfig, environment: AgentEnvironment): Promise<PriceBook | undefined> {
  const overrides = Object.keys(config.prices).length > 0;
  if (config.provider === 'script' && !overrides) return undefined;
  const baseUrl = config.base_url ?? (config.provider === 'script' ? undefined : environment.env[baseUrlVariable(config.provider)]);
  return loadPriceBook({
    overrides: config.prices,
    table: config.provider !== 'script',
    ...(baseUrl !== undefined ? { baseUrl } : {}),
    ...(environment.windowMemo !== undefined ? { windowMemo: environment.windowMemo } : {}),
  });
}

/**
 * The context window, the compaction settings and the spend caps. A cap in
 * USD on a model no price is known for could never stop a run: it is refused.
 */
function limitsOf(config: LogbookConfig, provider: Agent['provider'], prices: PriceBook | undefined): Partial<Agent> {
  const contextWindow = config.context_window;
  const capped = config.budget_usd !== undefined ? 'budget_usd' : config.lineage_budget_usd !== undefined ? 'lineage_budget_usd' : undefined;
  if (capped !== undefined && (prices === undefined || prices.prices(provider.id, provider.model) === null)) {
    throw new LogbookError(
      'config',
      `${config.path}: ${capped} needs the price of model ${provider.model}, which the price table does not know; give it under prices: (${provider.model}: { input: USD, output: USD } per million tokens)`,
    );
  }
  return {
    ...(prices !== undefined ? { prices } : {}),
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    compaction: { at: config.compact_at, keepTurns: config.keep_turns },
    ...(config.budget_usd !== undefined ? { budgetUsd: config.budget_usd } : {}),
    ...(config.lineage_budget_usd !== undefined ? { lineageBudgetUsd: config.lineage_budget_usd } : {}),
  };
}

/** Registers an `ask_<alias>` tool for each agent of remote_agents, once the streams tasks go through are found fit. */
async function addRemoteAgents(config: LogbookConfig, env: AgentEnvironment['env'], tools: ToolRegistry, closers: (() => Promise<void>)[]): Promise<void> {
  const overHttp = config.remote_agents.filter((a) => a.url !== undefined);
  if (overHttp.length > 0) {
    const { httpAgentTools } = await import('../agent/a2a-http/remote-agent.js');
    for (const tool of httpAgentTools(overHttp, env)) tools.register(tool);
  }
  const overNats = config.remote_agents.filter((a) => a.url === undefined);
  if (overNats.length === 0) return;
  const [{ startRemoteAgents }, { callerIdentity }] = await Promise.all([import('../agent/tasks/index.js'), import('../agent/tools/remote/spec.js')]);
  const agents = await startRemoteAgents(overNats, {
    nats: config.nats!, // the config refuses remote_agents without it
    identity: callerIdentity(config.a2a),
    streams: { tasks: config.a2a.tasks_stream, events: config.a2a.events_stream },
  });
  closers.push(() => agents.close());
  for (const tool of agents.tools) tools.register(tool);
}

/** Registers the tools of remote_tools' agents; what it could not import is in the notes it returns. */
async function importRemoteTools(config: LogbookConfig, environment: AgentEnvironment, tools: ToolRegistry, closers: (() => Promise<void>)[]): Promise<string[]> {
  const { startRemoteTools } = await import('../agent/tools/remote/index.js');
  const remote = await startRemoteTools(config.remote_tools, {
    nats: config.nats!, // the config refuses remote_tools without it
    ...(config.a2a.identity !== undefined ? { identity: config.a2a.identity } : {}),
    taken: new Set(tools.definitions().map((d) => d.name)),
    ...(environment.onAgents !== undefined ? { onProgress: environment.onAgents } : {}),
    ...(environment.signal !== undefined ? { signal: environment.signal } : {}),
  });
  closers.push(() => remote.close());
  const notes = [...remote.notes];
  for (const tool of remote.tools) {
    try {
      tools.register(tool);
    } catch (err) {
      if (!(err instanceof LogbookError) || err.code !== 'config') throw err;
      notes.push(`tool ${tool.remote.tool} of agent ${tool.remote.agent} is not imported: ${err.message}`);
    }
  }
  return notes;
}

/** An agent built from a config file, with the config it was read from. */
export interface LoadedAgent extends ConfiguredAgent {
  /** The config, checked, its defaults filled in and its paths made absolute. */
  config: LogbookConfig;
}

/**
 * Reads agent.yaml (or any config file), checks it as the `logbook` command
 * does, with the same messages (`config`, naming the file and the key), and
 * builds its agent: the provider, the command tools, the MCP servers (started
 * and listed) and the tools of the agents `remote_tools:` names (over
 * `nats:`). `environment.env` is where API keys and `${NAME}` references are
 * read (pass `process.env`): nothing else reads the environment. Call
 * `close()` when done: it stops the servers and lets the connection go.
 */
export async function loadAgent(file: string, environment: AgentEnvironment): Promise<LoadedAgent> {
  const config = loadConfig(file);
  return { ...(await agentFromConfig(config, environment)), config };
}
