/**
 * From agent.yaml to the agent a run uses: its provider, its tools and its
 * limits. One place, so a fresh run and a resume build the same agent, and so
 * the same fingerprint (fingerprintOf).
 */
import type { Agent } from '../agent/agent.js';
import { createProvider } from '../agent/providers/index.js';
import type { RetryPolicy } from '../agent/providers/retry.js';
import { CommandTool } from '../agent/tools/command-tool.js';
import { ToolRegistry } from '../agent/tools/registry.js';
import type { LogbookConfig } from './config.js';

/** What the agent takes from the environment, read once by the caller. */
export interface AgentEnvironment {
  /** Where API keys and base URLs are read from. */
  env: Readonly<Record<string, string | undefined>>;
  retry?: RetryPolicy;
  /** For the script provider: a file that records every turn asked for. */
  scriptLog?: string;
}

export function toolsFromConfig(config: LogbookConfig): ToolRegistry {
  return new ToolRegistry(config.tools.map((t) => new CommandTool(t)));
}

export async function agentFromConfig(config: LogbookConfig, environment: AgentEnvironment): Promise<Agent> {
  const provider = await createProvider({
    provider: config.provider,
    model: config.model,
    ...(config.base_url !== undefined ? { baseUrl: config.base_url } : {}),
    ...(config.api_key_env !== undefined ? { apiKeyEnv: config.api_key_env } : {}),
    ...(config.script !== undefined ? { script: config.script } : {}),
    env: environment.env,
    ...(environment.retry !== undefined ? { retry: environment.retry } : {}),
    ...(environment.scriptLog !== undefined ? { scriptLog: environment.scriptLog } : {}),
  });
  return {
    provider,
    tools: toolsFromConfig(config),
    system: config.system,
    maxTokens: config.max_tokens,
    maxIterations: config.max_iterations,
    thinking: config.thinking,
    promptCache: config.prompt_cache,
    ...(config.budget !== undefined ? { budget: config.budget } : {}),
  };
}
