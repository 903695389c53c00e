/**
 * What a config says of a tool's side effects, read without building the
 * agent: `session show` asks it of a run's calls and loads nothing else of
 * what builds an agent from a config.
 */
import { exposedName } from '../agent/tools/mcp/spec.js';
import type { LogbookConfig } from './config.js';

/**
 * Whether the config says tool `name` has side effects, read without starting
 * any tool server: a command tool's `side_effects`, or an MCP tool's override
 * of it (which wins over what its server declares, as mcpToolPolicy rules);
 * undefined when the config does not say (an MCP tool without an override, a
 * tool the config no longer has).
 */
export function configuredSideEffects(config: LogbookConfig, name: string): boolean | undefined {
  const command = config.tools.find((t) => t.name === name);
  if (command !== undefined) return command.side_effects === true;
  for (const server of config.mcp) {
    for (const [tool, override] of Object.entries(server.overrides)) {
      if (exposedName(server.name, tool) === name) return override.side_effects;
    }
  }
  return undefined;
}
