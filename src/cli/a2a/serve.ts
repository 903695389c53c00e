/**
 * `logbook serve`: answers other agents' discovery and tool calls for this
 * config's tools (its command tools and its MCP servers'), as the NATS micro
 * service named by `a2a.identity`, and (unless `expose.tasks` is false) takes
 * the identity's tasks from the operator's work-queue stream, each a run in the
 * config's store, `--concurrency` at a time; until SIGTERM or Ctrl-C, which stop
 * it taking calls and tasks, let those in flight finish, and exit 0 (a second
 * one gives the tasks running back to the stream at once, for another instance
 * to take over, and leaves). A line per call and per task on stderr. A served
 * tool call is not a run and is not journaled; a task is a run.
 */
import { readFileSync } from 'node:fs';
import { IDENTITY_PATTERN } from '../../a2a/protocol.js';
import { ToolService, type ServedCall } from '../../a2a/service.js';
import { exposedTools, toolHost, type NotExposedReason } from '../../agent/exposure.js';
import type { TaskServer, ServedTask } from '../../agent/tasks/index.js';
import type { ToolRegistry } from '../../agent/tools/registry.js';
import type { Tool } from '../../agent/tools/tool.js';
import { agentFromConfig, localTools } from '../../config/agent.js';
import type { LogbookConfig } from '../../config/config.js';
import { LogbookError, isLogbookError } from '../../core/index.js';
import { sanitizeLine } from '../../render/sanitize.js';
import { dial, serversPhrase, type Link } from '../../store/jetstream/connection.js';
import { LEADER_WAIT_MS } from '../../store/jetstream/election.js';
import type { Store } from '../../store/store.js';
import { retryPolicyFromText } from '../../agent/providers/retry.js';
import type { Environment } from '../environment.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { discoveryLabel, startLabel } from '../mcp/start-label.js';
import { createProgress } from '../progress.js';
import { onStopSignals } from '../signals.js';
import { requireConfig, storeFor } from '../store.js';

export interface ServeFlags {
  config?: string;
  /** Tasks run at once (text from the command line). */
  concurrency?: string;
  /** Serve over A2A 1.0 on HTTP at this address instead (serve-http.ts). */
  http?: string;
}

const REASONS: Record<NotExposedReason, string> = {
  confirm: 'it asks for a confirmation, and a served call has no operator to give one',
  'no description': 'it has no description, and a caller does not import a tool without one',
  name: 'its name is not one the wire can carry (letters, digits, _ and -)',
  include: 'expose.tools.include leaves it out',
  exclude: 'expose.tools.exclude leaves it out',
};

/** The package's version: the agent card's and the micro service's. */
export function logbookVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/** This agent's identity on the wire; serving needs one. */
/** An agent's identity given on the command line, checked as the wire's subjects need it. */
export function identityArgument(text: string): string {
  if (!IDENTITY_PATTERN.test(text)) throw new LogbookError('usage', `${JSON.stringify(text)} is not an agent's identity (letters, digits, _ and -)`);
  return text;
}

export function requireIdentity(config: LogbookConfig, what: string): string {
  if (config.a2a.identity === undefined) {
    throw new LogbookError('config', `${what} needs this agent's identity: set a2a: { identity: NAME } in ${config.path}`);
  }
  return config.a2a.identity;
}

/** The NATS connection settings; agents over NATS need them. */
export function requireNats(config: LogbookConfig, what: string): NonNullable<LogbookConfig['nats']> {
  if (config.nats === undefined) throw new LogbookError('config', `${what} needs a nats: block (url, and creds if the server wants them) in ${config.path}`);
  return config.nats;
}

/** One line per answered request, for the operator's log. Names from the wire are sanitized. */
export function servedCallLine(call: ServedCall, now = new Date()): string {
  const at = now.toISOString();
  const clip = (s: string): string => sanitizeLine(s.length > 200 ? `${s.slice(0, 200)}...` : s);
  switch (call.kind) {
    case 'discovery':
      return `${at} discovery from ${clip(call.sender)}: card sent (${call.ms} ms)`;
    case 'refused':
      return `${at} ${call.endpoint} request refused (${call.code}): ${clip(call.detail)}`;
    case 'dropped':
      return `${at} tool ${clip(call.tool)} from ${clip(call.sender)}: dropped: ${clip(call.detail)}`;
    case 'tool': {
      const outcome =
        call.outcome === 'ok'
          ? call.exitCode !== undefined
            ? `exit ${call.exitCode}`
            : 'ok'
          : call.outcome === 'timeout'
            ? `timed out: ${clip(call.detail ?? '')}`
            : call.outcome === 'unknown_tool'
              ? 'no such tool'
              : call.outcome === 'busy'
                ? 'refused: busy'
              : `error: ${clip((call.detail ?? '').split('\n')[0]!)}`;
      return `${at} tool ${clip(call.tool)} from ${clip(call.sender)}: ${outcome} (${call.ms} ms)`;
    }
  }
}

/** One line per task that was taken, ended, refused or canceled, for the operator's log. Text from the wire is sanitized. */
export function servedTaskLine(task: ServedTask, now = new Date()): string {
  const at = now.toISOString();
  const clip = (s: string): string => sanitizeLine(s.length > 200 ? `${s.slice(0, 200)}...` : s);
  switch (task.kind) {
    case 'refused':
      return `${at} task ${clip(task.request)} from ${clip(task.sender)} refused: ${clip(task.reason)}`;
    case 'started':
      return task.takeover
        ? `${at} task ${clip(task.request)} from ${clip(task.sender)}: taking over run ${clip(task.run)} (delivery ${task.delivery})`
        : `${at} task ${clip(task.request)} from ${clip(task.sender)}: run ${clip(task.run)}`;
    case 'ended':
      return `${at} task ${clip(task.request)} ended ${clip(task.end.split('\n')[0]!)} (${task.ms} ms)`;
    case 'canceled':
      return `${at} task ${clip(task.request)} canceled by ${clip(task.by)}${task.running ? '' : ' (not running here)'}`;
    case 'cancelRefused':
      return `${at} task ${clip(task.request)}: cancel from ${clip(task.by)} refused: ${clip(task.reason)}`;
    case 'deferred':
    case 'dropped':
      return `${at} task ${clip(task.request)}: ${clip(task.detail)}`;
    case 'failed':
      return `${at} ${task.request ? `task ${clip(task.request)}: ` : ''}${clip(task.detail)}`;
  }
}

/** --concurrency as a number of tasks. */
function concurrencyOf(text: string | undefined): number {
  if (text === undefined) return 1;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 1024) throw new LogbookError('usage', `--concurrency takes a number of tasks from 1 to 1024, not ${JSON.stringify(text)}`);
  return n;
}

/** The exposed tools, or `config` naming why none are (none is fine when tasks are served). */
function exposure(config: LogbookConfig, tools: Tool[]): { exposed: Tool[]; notes: string[] } {
  const { exposed, withheld } = exposedTools(tools, config.expose);
  const notes = withheld.map((w) => `not served: ${w.name}: ${REASONS[w.reason]}`);
  if (exposed.length === 0 && !config.expose.tasks) {
    const why = withheld.length === 0 ? `${config.path} has no tools` : notes.map((n) => n.replace(/^not served: /, '')).join('; ');
    throw new LogbookError('config', `no tools to serve: ${why}`);
  }
  return { exposed, notes };
}

/** The tools this agent runs itself (not another agent's: they are not served again). */
function ownTools(tools: ToolRegistry): Tool[] {
  return tools
    .definitions()
    .map((d) => tools.get(d.name)!)
    .filter((t) => t.remote === undefined);
}

export async function serve(flags: ServeFlags, environment: Environment): Promise<ExitCode> {
  const concurrency = concurrencyOf(flags.concurrency);
  const config = requireConfig(flags.config, environment);
  const http = flags.http ?? config.a2a.http?.listen;
  if (http !== undefined) {
    if (flags.concurrency !== undefined) throw new LogbookError('usage', '--concurrency is for tasks over NATS; over HTTP each request is its own task');
    const { serveHttp } = await import('./serve-http.js');
    return serveHttp(config, http, environment);
  }
  if (flags.concurrency !== undefined && !config.expose.tasks) throw new LogbookError('usage', `--concurrency is for tasks, and ${config.path} says expose: { tasks: false }`);
  const identity = requireIdentity(config, 'serve');
  const nats = requireNats(config, 'serve');
  const write = (line: string): void => void process.stderr.write(`${line}\n`);
  const progress = createProgress(process.stderr, { tokens: false });
  let tasks: TaskServer | null = null;
  const stop = onStopSignals((sig, again) => {
    if (again) tasks?.handBack();
    write(
      again
        ? `${sig} again: leaving now; calls in flight are cut off${tasks?.running ? ', and the tasks running are given back for another instance to take over' : ''}`
        : `${sig}: draining the calls ${config.expose.tasks ? 'and tasks ' : ''}in flight (send it again to leave at once)`,
    );
  });
  let close = async (): Promise<void> => {};
  let link: Link | null = null;
  let store: Store | null = null;
  try {
    const gathered = await gatherTools(config, environment, stop.signal, progress).catch((err: unknown) => {
      if (isLogbookError(err, 'interrupted')) return null;
      throw err;
    });
    progress.stop();
    if (gathered === null) return EXIT.ok;
    close = gathered.close;
    const { exposed, notes } = exposure(config, ownTools(gathered.tools));
    link = await dial(nats, { leaderWaitMs: LEADER_WAIT_MS });
    const service = await ToolService.start(link.nc, toolHost(gathered.tools, exposed), {
      identity,
      version: logbookVersion(),
      ...(config.a2a.description !== undefined ? { description: config.a2a.description } : {}),
      maxConcurrent: config.expose.max_concurrent_tools,
      toolTimeoutMs: config.expose.tool_timeout * 1000,
      onCall: (call) => write(servedCallLine(call)),
    });
    for (const n of [...gathered.notes, ...notes]) write(sanitizeLine(n));
    if (gathered.agent !== undefined) {
      store = await storeFor(environment, { config });
      const { TaskServer } = await import('../../agent/tasks/index.js');
      tasks = await TaskServer.start({
        identity,
        link,
        streams: { tasks: config.a2a.tasks_stream, events: config.a2a.events_stream },
        store,
        agent: gathered.agent,
        concurrency,
        ackWaitMs: config.expose.task_ack_wait * 1000,
        onTask: (task) => write(servedTaskLine(task)),
      }).catch((err: unknown) => {
        if (!isLogbookError(err, 'stream_config')) throw err;
        throw new LogbookError('stream_config', `${err.message} (to serve the tools alone, set expose: { tasks: false } in ${config.path})`, { cause: err });
      });
    }
    write(sanitizeLine(startLine(config, identity, service.instanceId, exposed, tasks === null ? null : { concurrency, store: store!.location })));
    await new Promise<void>((resolve) => {
      if (stop.signal.aborted) resolve();
      stop.signal.addEventListener('abort', () => resolve(), { once: true });
      void link!.nc.closed().then(() => resolve());
    });
    if (link.nc.isClosed()) throw new LogbookError('unavailable', `the NATS connection to ${serversPhrase(nats.url)} closed; agent ${identity} is no longer served`);
    await Promise.all([service.drain(), tasks?.drain()]);
    write(`stopped serving agent ${identity}`);
    return EXIT.ok;
  } finally {
    progress.stop();
    await close();
    await store?.close();
    if (link !== null) await link.close().catch(() => {});
    stop.dispose();
  }
}

/** What `serve` says once it serves: the tools, the tasks, where. */
function startLine(config: LogbookConfig, identity: string, instance: string, exposed: Tool[], tasks: { concurrency: number; store: string } | null): string {
  const tools =
    exposed.length === 0
      ? 'no tools'
      : `${exposed.length} tool${exposed.length === 1 ? '' : 's'} (${exposed.map((t) => t.definition.name).join(', ')}; ${config.expose.max_concurrent_tools} at once, ${config.expose.tool_timeout} s each)`;
  const taking = tasks === null ? '' : ` and tasks from stream ${config.a2a.tasks_stream} (${tasks.concurrency} at once, runs in the ${tasks.store})`;
  return `serving ${tools}${taking} as agent ${identity} (instance ${instance}) on ${serversPhrase(config.nats!.url)}`;
}

interface Gathered {
  tools: ToolRegistry;
  /** The agent tasks run with, when tasks are served. */
  agent?: import('../../agent/agent.js').Agent;
  notes: string[];
  close: () => Promise<void>;
}

/**
 * The tools to serve, started once: with tasks, the whole agent a task runs
 * (its provider, its tools, other agents' tools and agents it may ask); without,
 * this agent's own tools alone.
 */
async function gatherTools(config: LogbookConfig, environment: Environment, signal: AbortSignal, progress: ReturnType<typeof createProgress>): Promise<Gathered> {
  const onServers = (p: Parameters<typeof startLabel>[0]): void => (p.ready.length === 0 ? progress.start(startLabel(p)) : progress.label(startLabel(p)));
  if (!config.expose.tasks) {
    const local = await localTools(config, { env: environment.env, signal, onServers });
    return { tools: local.tools, notes: [], close: local.close };
  }
  const configured = await agentFromConfig(config, {
    env: environment.env,
    retry: retryPolicyFromText(environment.maxRetries, 'LOGBOOK_PROVIDER_MAX_RETRIES'),
    ...(environment.scriptLog !== undefined ? { scriptLog: environment.scriptLog } : {}),
    signal,
    onServers,
    onAgents: (p) => (p.ready.length === 0 ? progress.start(discoveryLabel(p)) : progress.label(discoveryLabel(p))),
  });
  return { tools: configured.agent.tools, agent: configured.agent, notes: configured.notes, close: configured.close };
}
