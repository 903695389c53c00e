/**
 * `logbook mcp`: the MCP tool servers a config names. What `ls` does (and the
 * MCP SDK) loads only when it runs.
 */
import type { Command } from 'commander';
import { DEFAULT_CONFIG_FILE } from '../../config/config.js';
import type { Environment } from '../environment.js';
import type { McpLsFlags } from './ls.js';

export function registerMcpCommands(program: Command, environment: Environment): void {
  const mcp = program.command('mcp').description("the MCP tool servers of a config (agent.yaml's mcp: list)");
  mcp
    .command('ls')
    .description('start the configured MCP servers, list the tools each exposes with their annotations and side-effect policy, stop them')
    .option('--config <file>', 'the config file', DEFAULT_CONFIG_FILE)
    .option('--no-color', 'no color (also NO_COLOR=1)')
    .option('--verbose', 'show where an error came from (also LOGBOOK_DEBUG=1)')
    .action(async (flags: McpLsFlags) => {
      const { listMcpServers } = await import('./ls.js');
      process.exitCode = await listMcpServers(flags, environment);
    });
}
