/**
 * From agent.yaml to the parts of a run: the provider, the tools, the loop's
 * settings and the fingerprint the journal is checked against. One place, so a
 * fresh run and a resume can never compute the fingerprint differently.
 */
import type { LogbookConfig } from '../config/config.js';
import { computeFingerprint, type Fingerprint } from '../core/index.js';
import type { Provider } from '../agent/provider.js';
import { createProvider } from '../agent/providers/index.js';
import type { AgentConfig } from '../agent/runner.js';
import { CommandTool } from '../agent/tools/command-tool.js';
import { ToolRegistry } from '../agent/tools/registry.js';

export interface RunParts {
  provider: Provider;
  tools: ToolRegistry;
  agent: AgentConfig;
  /** Computed before any advisory text (the resume reminder) is added to the system prompt. */
  fingerprint: Fingerprint;
}

export function toolsFromConfig(config: LogbookConfig): ToolRegistry {
  return new ToolRegistry(config.tools.map((t) => new CommandTool(t)));
}

export async function runParts(config: LogbookConfig): Promise<RunParts> {
  const tools = toolsFromConfig(config);
  const provider = await createProvider({
    provider: config.provider,
    model: config.model,
    ...(config.base_url !== undefined ? { baseUrl: config.base_url } : {}),
    ...(config.api_key_env !== undefined ? { apiKeyEnv: config.api_key_env } : {}),
    ...(config.script !== undefined ? { script: config.script } : {}),
  });
  const fingerprint = computeFingerprint({
    provider: provider.id,
    model: provider.model,
    systemPrompt: config.system,
    tools: tools.definitions(),
    thinkingMode: config.thinking,
    maxTokens: config.max_tokens,
    maxIterations: config.max_iterations,
  });
  const agent: AgentConfig = {
    provider,
    tools,
    system: config.system,
    maxTokens: config.max_tokens,
    maxIterations: config.max_iterations,
    thinking: config.thinking,
    promptCache: config.prompt_cache,
    ...(config.budget !== undefined ? { budget: config.budget } : {}),
  };
  return { provider, tools, agent, fingerprint };
}
