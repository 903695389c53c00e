/**
 * `logbook mcp`: the MCP tool servers a config names. What `ls` does (and the
 * MCP SDK) loads only when it runs.
 */
import type { Command } from 'commander';
import type { Environment } from '../environment.js';
import { EXIT } from '../exit-codes.js';
import { helpAfter } from '../help.js';
import { CONFIG_SEARCH } from '../store.js';
import type { McpLsFlags } from './ls.js';

const INTERRUPTED_HELP = `  ${EXIT.suspended}  interrupted (Ctrl-C, SIGTERM) while the servers started; every one started is stopped`;

export function registerMcpCommands(program: Command, environment: Environment): void {
  const mcp = program.command('mcp').description("the MCP tool servers of a config (agent.yaml's mcp: list)");
  mcp
    .command('ls')
    .description('start the configured MCP servers, list the tools each exposes with their annotations and side-effect policy, stop them')
    .option('--config <file>', `the config file (default: ${CONFIG_SEARCH})`)
    .option('--no-color', 'no color (also NO_COLOR=1)')
    .option('--verbose', 'show where an error came from (also LOGBOOK_DEBUG=1)')
    .addHelpText('after', `${helpAfter(['LOGBOOK_CONFIG', 'LOGBOOK_DEBUG', 'NO_COLOR'], ['ok', 'error'])}\n${INTERRUPTED_HELP}`)
    .action(async (flags: McpLsFlags) => {
      const { listMcpServers } = await import('./ls.js');
      process.exitCode = await listMcpServers(flags, environment);
    });
}
