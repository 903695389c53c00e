/**
 * Agents over NATS, on the reference's A2A wire: `logbook serve` answers for
 * this config's tools; `logbook agents ls|show` finds the agents a connection
 * reaches. What each does (and the NATS client) loads only when it runs.
 */
import type { Command } from 'commander';
import type { Environment } from '../environment.js';
import { helpAfter } from '../help.js';
import { CONFIG_SEARCH } from '../store.js';
import type { AgentsFlags } from './agents.js';
import type { ServeFlags } from './serve.js';

const SERVE_HELP = `
It answers as the NATS micro service named by a2a.identity (queue group = identity, so instances
of one identity share the calls), on the subjects choria.fisk-ai.discovery.IDENTITY and
choria.fisk-ai.tool.IDENTITY, for the config's command tools and MCP tools that expose: picks,
never a tool with confirm (no operator is there to approve it) or without a description.
SIGTERM or Ctrl-C stops it taking calls, lets those in flight finish, and exits 0; a second one
leaves at once. A line per call goes to stderr. A served call is not a run: nothing is journaled.
See docs/guide/agents.md.
  logbook serve --config agent.yaml`;

const AGENTS_HELP = `
  logbook agents ls                 the agents reachable on the config's nats: connection
  logbook agents show build-box     its card, and its tools as a run of this config would import them`;

export function registerA2ACommands(program: Command, environment: Environment): void {
  program
    .command('serve')
    .description("answer other agents' discovery and tool calls for this config's tools over NATS (A2A), until stopped")
    .option('--config <file>', `the config file (default: ${CONFIG_SEARCH})`)
    .option('--verbose', 'show where an error came from (also LOGBOOK_DEBUG=1)')
    .addHelpText('after', `${SERVE_HELP}\n${helpAfter(['LOGBOOK_CONFIG', 'LOGBOOK_DEBUG'], ['ok', 'error'])}\n  130  a second SIGTERM or Ctrl-C while draining: it left at once, cutting the calls in flight`)
    .action(async (flags: ServeFlags) => {
      const { serve } = await import('./serve.js');
      process.exitCode = await serve(flags, environment);
    });

  const agents = program.command('agents').description('the agents reachable over NATS (A2A), and what a run would import of their tools');
  agents
    .command('ls')
    .description('list the agents that answer as NATS micro services on the connection: identity, instances, version, tool count')
    .option('--config <file>', `the config file whose nats: connection to use (default: ${CONFIG_SEARCH})`)
    .option('--json', 'print them as JSON')
    .option('--verbose', 'show where an error came from (also LOGBOOK_DEBUG=1)')
    .addHelpText('after', `${AGENTS_HELP}\n${helpAfter(['LOGBOOK_CONFIG', 'LOGBOOK_DEBUG'], ['ok', 'error'])}`)
    .action(async (flags: AgentsFlags) => {
      const { agentsLs } = await import('./agents.js');
      process.exitCode = await agentsLs(flags, environment);
    });
  agents
    .command('show')
    .description("an agent's card, and its tools with the names and policies a run of this config would import them with")
    .argument('<identity>', "the agent's identity")
    .option('--config <file>', `the config file (default: ${CONFIG_SEARCH})`)
    .option('--json', 'print it as JSON')
    .option('--verbose', 'show where an error came from (also LOGBOOK_DEBUG=1)')
    .addHelpText('after', `${AGENTS_HELP}\n${helpAfter(['LOGBOOK_CONFIG', 'LOGBOOK_DEBUG'], ['ok', 'error', 'usage'])}`)
    .action(async (identity: string, flags: AgentsFlags) => {
      const { agentsShow } = await import('./agents.js');
      process.exitCode = await agentsShow(identity, flags, environment);
    });
}
