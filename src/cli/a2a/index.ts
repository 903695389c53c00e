/**
 * Agents over NATS, on the reference's A2A wire: `logbook serve` answers for
 * this config's tools and takes its tasks; `logbook ask` hands an agent a task;
 * `logbook tasks ls|cancel` looks after the tasks queued; `logbook agents ls|show`
 * finds the agents a connection reaches. What each does (and the NATS client)
 * loads only when it runs.
 */
import { Option, type Command } from 'commander';
import type { Environment } from '../environment.js';
import { helpAfter } from '../help.js';
import { CONFIG_SEARCH } from '../store.js';
import type { AgentsFlags } from './agents.js';
import type { AskFlags } from './ask.js';
import type { ServeFlags } from './serve.js';
import type { TasksFlags } from './tasks.js';

const SERVE_HELP = `
It answers as the NATS micro service named by a2a.identity (queue group = identity, so instances
of one identity share the calls), on the subjects choria.fisk-ai.discovery.IDENTITY and
choria.fisk-ai.tool.IDENTITY, for the config's command tools and MCP tools that expose: picks,
never a tool with confirm (no operator is there to approve it) or without a description.
A served tool call is not a run: nothing is journaled.

Unless expose.tasks is false it also takes the identity's tasks from the work-queue stream
a2a.tasks_stream (A2A_TASKS, on choria.fisk-ai.task.>), publishing each task's events to
a2a.events_stream (A2A_EVENTS): each task is a run in the config's store, and an instance of
the identity takes over the task of one that died. The streams must exist (docs/operations.md).
SIGTERM or Ctrl-C stops it taking calls and tasks, lets those in flight finish, and exits 0; a
second one leaves at once, giving the tasks running back for another instance to take over.
A line per call and per task goes to stderr. See docs/guide/agents.md.

With --http HOST:PORT (or a2a.http.listen) it serves the agent over the A2A 1.0 protocol on
HTTP instead (JSON-RPC at /jsonrpc, HTTP+JSON at /rest, its card at
/.well-known/agent-card.json), no nats: needed: each task a run in the config's store, resumed
by the next server when this one dies or stops. Off loopback it needs a bearer token
(a2a.http.token_env). See docs/guide/a2a-http.md.
  logbook serve --config agent.yaml --concurrency 4
  logbook serve --http 127.0.0.1:8080`;

const ASK_HELP = `
The task goes into the work-queue stream a2a.tasks_stream; any logbook serve of IDENTITY takes it.
Its answer is printed as its events arrive (the agent's prose on stdout, its tool calls on
stderr); --json prints the events themselves, one JSON object a line. The request's id is said
first: the same command with --request ID (its prompt may be left out) reads that task's events
again from the start, and sends nothing new once it has them, so an interrupted ask re-attaches.
  logbook ask researcher "What changed in the build last week?"
  logbook ask researcher --conversation 3Msp4n8OJSH2TwVSVhvglPQYBto "And the week before?"
  logbook ask researcher --request 3Msp4n8OJSH2TwVSVhvglPQYBto

Given a URL instead of an identity, it asks the A2A 1.0 agent served there over HTTP (JSON-RPC or
HTTP+JSON, as its card offers), with the official SDK's client: no config needed.
  logbook ask http://127.0.0.1:8080 "What changed in the build last week?"
  logbook ask https://agents.example.com --token-env AGENT_TOKEN "Summarize the incident"`;

const TASKS_HELP = `
  logbook tasks ls                               the tasks waiting or being worked on, and their runs
  logbook tasks cancel researcher 3Msp4n8OJSH2TwVSVhvglPQYBto --reason "not needed"`;

const AGENTS_HELP = `
  logbook agents ls                 the agents reachable on the config's nats: connection
  logbook agents show build-box     its card, and its tools as a run of this config would import them`;

export function registerA2ACommands(program: Command, environment: Environment): void {
  program
    .command('serve')
    .description("answer other agents' discovery and tool calls for this config's tools over NATS (A2A), until stopped")
    .option('--config <file>', `the config file (default: ${CONFIG_SEARCH})`)
    .option('--concurrency <n>', 'tasks run at once (default 1)')
    .option('--http <addr>', 'serve over A2A 1.0 on HTTP at HOST:PORT instead of NATS (also a2a.http.listen; loopback unless a bearer token is set)')
    .option('--verbose', 'show where an error came from (also LOGBOOK_DEBUG=1)')
    .addHelpText(
      'after',
      `${SERVE_HELP}\n${helpAfter(['LOGBOOK_CONFIG', 'LOGBOOK_DEBUG', 'LOGBOOK_PROVIDER', 'ANTHROPIC', 'XDG_STATE'], ['ok', 'error', 'usage'])}\n  130  a second SIGTERM or Ctrl-C while draining: it left at once, cutting the calls in flight and giving the tasks back`,
    )
    .action(async (flags: ServeFlags) => {
      const { serve } = await import('./serve.js');
      process.exitCode = await serve(flags, environment);
    });

  program
    .command('ask')
    .description('hand another agent one task over NATS (A2A), or an A2A agent at a URL over HTTP, and print its answer as it streams')
    .argument('<identity>', "the agent's identity, or the URL of an A2A agent served over HTTP (its card's, or its base URL)")
    .argument('[prompt...]', 'the task (else read from stdin when piped)')
    .option('--config <file>', `the config file whose nats: connection and streams to use (default: ${CONFIG_SEARCH})`)
    .option('--conversation <id>', "continue the conversation this request id began (the first task's request id)")
    .option('--request <id>', "this task's request id: given again, read that task's events again instead of asking anew")
    .option('--json', "over NATS: the task's events as they come, one JSON object a line; for a URL: the task once it rests, one object of A2A 1.0's JSON (as a GetTask answers)")
    .option('--tool-output', "show the results of the agent's tool calls")
    .option('--task <id>', 'for an agent named by its URL: read this task again (subscribe to it) instead of sending one')
    .option('--token-env <name>', "for an agent named by its URL: the environment variable holding the bearer token its server wants")
    .option('--approve', 'with --task: approve what the task, waiting for input, asks')
    .option('--deny', 'with --task: deny what the task, waiting for input, asks')
    .option('--reason <text>', 'with --deny: why, told to the agent')
    .addOption(new Option('--no-tui', 'no spinner'))
    .addOption(new Option('--no-color', 'no color (also: NO_COLOR=1)'))
    .option('--verbose', "show the agent's thinking; where an error came from")
    .addHelpText('after', `${ASK_HELP}\n${helpAfter(['LOGBOOK_CONFIG', 'LOGBOOK_DEBUG', 'NO_COLOR'], ['ok', 'error', 'usage', 'interrupted'])}`)
    .action(async (identity: string, words: string[], flags: AskFlags) => {
      const { ask } = await import('./ask.js');
      process.exitCode = await ask(identity, words, flags, environment);
    });

  const tasks = program.command('tasks').description("the tasks in the work-queue stream (A2A over NATS): list them, cancel one");
  tasks
    .command('ls')
    .description('list the tasks waiting in the work-queue stream or being worked on, with their runs in the config\'s store')
    .option('--config <file>', `the config file (default: ${CONFIG_SEARCH})`)
    .option('--json', 'one JSON object per task and line')
    .option('--limit <n>', `at most this many (default 100)`)
    .option('--verbose', 'show where an error came from (also LOGBOOK_DEBUG=1)')
    .addHelpText('after', `${TASKS_HELP}\n${helpAfter(['LOGBOOK_CONFIG', 'LOGBOOK_DEBUG'], ['ok', 'error', 'usage'])}`)
    .action(async (flags: TasksFlags) => {
      const { tasksLs } = await import('./tasks.js');
      process.exitCode = await tasksLs(flags, environment);
    });
  tasks
    .command('cancel')
    .description("cancel a task: the agent's server running it stops it, its run suspended naming who canceled it; one no server has taken up is withdrawn from the queue")
    .argument('<identity>', 'the agent doing the task')
    .argument('<request>', "the task's request id")
    .option('--config <file>', `the config file (default: ${CONFIG_SEARCH})`)
    .option('--reason <text>', 'why: the task\'s end and its run say it')
    .option('--wait <seconds>', 'how long to wait for the task to end canceled (default 10; 0: do not wait)')
    .option('--verbose', 'show where an error came from (also LOGBOOK_DEBUG=1)')
    .addHelpText('after', `${TASKS_HELP}\n${helpAfter(['LOGBOOK_CONFIG', 'LOGBOOK_DEBUG'], ['ok', 'error', 'usage'])}`)
    .action(async (identity: string, request: string, flags: TasksFlags) => {
      const { tasksCancel } = await import('./tasks.js');
      process.exitCode = await tasksCancel(identity, request, flags, environment);
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
