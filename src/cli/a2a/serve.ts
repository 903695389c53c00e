/**
 * `logbook serve`: answers other agents' discovery and tool calls for this
 * config's tools (its command tools and its MCP servers'), as the NATS micro
 * service named by `a2a.identity`, until SIGTERM or Ctrl-C, which stop it taking
 * calls, let the calls in flight finish and be answered, and exit 0. A line per
 * call on stderr. Nothing is journaled: a served call is not a run.
 */
import { readFileSync } from 'node:fs';
import type { NatsConnection } from '@nats-io/transport-node';
import { ToolService, type ServedCall } from '../../a2a/service.js';
import { exposedTools, toolHost, type NotExposedReason } from '../../agent/exposure.js';
import type { Tool } from '../../agent/tools/tool.js';
import { localTools } from '../../config/agent.js';
import type { LogbookConfig } from '../../config/config.js';
import { LogbookError, isLogbookError } from '../../core/index.js';
import { sanitizeLine } from '../../render/sanitize.js';
import { connectNats, serversPhrase } from '../../store/jetstream/connection.js';
import type { Environment } from '../environment.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { startLabel } from '../mcp/start-label.js';
import { createProgress } from '../progress.js';
import { onStopSignals } from '../signals.js';
import { requireConfig } from '../store.js';

export interface ServeFlags {
  config?: string;
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
              : `error: ${clip((call.detail ?? '').split('\n')[0]!)}`;
      return `${at} tool ${clip(call.tool)} from ${clip(call.sender)}: ${outcome} (${call.ms} ms)`;
    }
  }
}

/** The exposed tools, or `config` naming why none are. */
function exposure(config: LogbookConfig, tools: Tool[]): { exposed: Tool[]; notes: string[] } {
  const { exposed, withheld } = exposedTools(tools, config.expose);
  const notes = withheld.map((w) => `not served: ${w.name}: ${REASONS[w.reason]}`);
  if (exposed.length === 0) {
    const why = withheld.length === 0 ? `${config.path} has no tools` : notes.map((n) => n.replace(/^not served: /, '')).join('; ');
    throw new LogbookError('config', `no tools to serve: ${why}`);
  }
  return { exposed, notes };
}

export async function serve(flags: ServeFlags, environment: Environment): Promise<ExitCode> {
  const config = requireConfig(flags.config, environment);
  const identity = requireIdentity(config, 'serve');
  const nats = requireNats(config, 'serve');
  const write = (line: string): void => void process.stderr.write(`${line}\n`);
  const progress = createProgress(process.stderr, { tokens: false });
  const stop = onStopSignals((sig, again) => write(again ? `${sig} again: leaving now; calls in flight are cut off` : `${sig}: draining the calls in flight (send it again to leave at once)`));
  let close = async (): Promise<void> => {};
  let nc: NatsConnection | null = null;
  try {
    const local = await localTools(config, {
      env: environment.env,
      signal: stop.signal,
      onServers: (p) => (p.ready.length === 0 ? progress.start(startLabel(p)) : progress.label(startLabel(p))),
    }).catch((err: unknown) => {
      if (isLogbookError(err, 'interrupted')) return null;
      throw err;
    });
    progress.stop();
    if (local === null) return EXIT.ok;
    close = local.close;
    const all = local.tools.definitions().map((d) => local.tools.get(d.name)!);
    const { exposed, notes } = exposure(config, all);
    nc = await connectNats(nats);
    const service = await ToolService.start(nc, toolHost(local.tools, exposed), {
      identity,
      version: logbookVersion(),
      ...(config.a2a.description !== undefined ? { description: config.a2a.description } : {}),
      maxConcurrent: config.expose.max_concurrent_tools,
      toolTimeoutMs: config.expose.tool_timeout * 1000,
      onCall: (call) => write(servedCallLine(call)),
    });
    for (const n of notes) write(sanitizeLine(n));
    write(
      sanitizeLine(
        `serving ${exposed.length} tool${exposed.length === 1 ? '' : 's'} as agent ${identity} (instance ${service.instanceId}) on ${serversPhrase(nats.url)}: ` +
          `${exposed.map((t) => t.definition.name).join(', ')}; ${config.expose.max_concurrent_tools} at once, ${config.expose.tool_timeout} s each`,
      ),
    );
    await new Promise<void>((resolve) => {
      if (stop.signal.aborted) resolve();
      stop.signal.addEventListener('abort', () => resolve(), { once: true });
      void nc!.closed().then(() => resolve());
    });
    if (nc.isClosed()) throw new LogbookError('unavailable', `the NATS connection to ${serversPhrase(nats.url)} closed; agent ${identity} is no longer served`);
    await service.drain();
    write(`stopped serving agent ${identity}`);
    return EXIT.ok;
  } finally {
    progress.stop();
    await close();
    if (nc !== null && !nc.isClosed()) await nc.drain().catch(() => {});
    stop.dispose();
  }
}
