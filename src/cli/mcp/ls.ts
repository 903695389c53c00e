/**
 * `logbook mcp ls`: starts the servers of a config's `mcp:` list as a run would,
 * lists what each exposes to the model (names, annotations as the server reports
 * them, the policy derived from them and from agent.yaml) and stops them, so a
 * config can be checked before a run. Everything a server reports is sanitized.
 */
import { startMcpServers, type McpTool, type StartedServer } from '../../agent/tools/mcp/index.js';
import type { PolicyReasons, ToolAnnotations } from '../../agent/tools/mcp/index.js';
import { isLogbookError } from '../../core/index.js';
import { sanitizeLine } from '../../render/index.js';
import type { Environment } from '../environment.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { table } from '../output.js';
import { createProgress } from '../progress.js';
import { requireConfig } from '../store.js';
import { terminalFor, type Terminal } from '../terminal.js';
import { startLabel } from './start-label.js';

export interface McpLsFlags {
  config?: string;
  /** False from --no-color. */
  color: boolean;
}

/** The hints a server gave, in words; `none` when it gave none. */
export function annotationWords(a: ToolAnnotations | undefined): string {
  const words: string[] = [];
  if (a?.readOnlyHint !== undefined) words.push(a.readOnlyHint ? 'read-only' : 'writes');
  if (a?.destructiveHint !== undefined) words.push(a.destructiveHint ? 'destructive' : 'additive');
  if (a?.idempotentHint !== undefined) words.push(a.idempotentHint ? 'idempotent' : 'not idempotent');
  if (a?.openWorldHint !== undefined) words.push(a.openWorldHint ? 'open world' : 'closed world');
  return words.length ? words.join(', ') : 'none';
}

const SIDE_EFFECT_REASONS: Record<PolicyReasons['sideEffects'], string> = {
  'read-only': 'read-only',
  idempotent: 'idempotent',
  annotations: 'neither read-only nor idempotent',
  'no annotations': 'no hints: the protocol default',
  'agent.yaml': 'agent.yaml',
};

function policyCells(tool: McpTool): [string, string] {
  const side = `${tool.policy.sideEffects ? 'yes' : 'no'} (${SIDE_EFFECT_REASONS[tool.reasons.sideEffects]})`;
  const confirm = `${tool.policy.confirm ? 'yes' : 'no'}${tool.reasons.confirm === 'agent.yaml' ? ' (agent.yaml)' : ''}`;
  return [side, confirm];
}

function formatServer(server: StartedServer, term: Terminal): string {
  const total = server.tools.length + server.hidden.length;
  const exposed = server.hidden.length === 0 ? `${total} tool${total === 1 ? '' : 's'}` : `${server.tools.length} of ${total} tools exposed`;
  let out = `${term.style.strong(server.spec.name)}  ${server.spec.transport}  ${sanitizeLine(server.where)}  (${exposed})\n`;
  if (server.tools.length > 0) {
    const rows = [['', 'TOOL', 'ANNOTATIONS', 'SIDE EFFECTS', 'CONFIRM']];
    for (const t of server.tools) rows.push(['', t.definition.name, annotationWords(t.annotations), ...policyCells(t)]);
    out += table(rows);
  }
  if (server.hidden.length > 0) {
    out += `  not exposed (its tools: list in agent.yaml leaves them out): ${server.hidden.map(sanitizeLine).join(', ')}\n`;
  }
  return out;
}

export async function listMcpServers(flags: McpLsFlags, environment: Environment): Promise<ExitCode> {
  const config = requireConfig(flags.config, environment);
  if (config.mcp.length === 0) {
    process.stdout.write(`no MCP servers in ${config.path}; an mcp: list adds them (see docs/guide/mcp.md)\n`);
    return EXIT.ok;
  }
  const term = terminalFor(process.stdout, { color: flags.color, env: environment.env });
  const progress = createProgress(process.stderr, { tokens: false });
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let started;
  try {
    started = await startMcpServers(config.mcp, {
      env: environment.env,
      signal: stop.signal,
      onProgress: (p) => (p.ready.length === 0 ? progress.start(startLabel(p)) : progress.label(startLabel(p))),
    });
  } catch (err) {
    if (!isLogbookError(err, 'interrupted')) throw err;
    process.stderr.write('logbook: interrupted; every MCP server it had started is stopped\n');
    return EXIT.suspended;
  } finally {
    progress.stop();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  try {
    process.stdout.write(started.servers.map((s) => formatServer(s, term)).join('\n'));
  } finally {
    await started.close();
  }
  return EXIT.ok;
}
