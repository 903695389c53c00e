/**
 * `logbook agents ls` and `logbook agents show IDENTITY`: the agents reachable
 * as NATS micro services on the config's connection, and one agent's card with
 * its tools as a run of this config would import them (names, policies, and
 * why a tool would be left out). Everything an agent reports is sanitized.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import { A2AClient } from '../../a2a/client.js';
import { listAgents, type AgentListing } from '../../a2a/directory.js';
import type { AgentCard } from '../../a2a/protocol.js';
import { discoverySubject, toolSubject } from '../../a2a/subjects.js';
import { DEFAULT_CALLER_IDENTITY, REMOTE_DEFAULTS, importFromCard, type HostImport, type RemoteToolHost } from '../../agent/tools/remote/index.js';
import type { LogbookConfig } from '../../config/config.js';
import { LogbookError, isLogbookError } from '../../core/index.js';
import { sanitizeLine } from '../../render/sanitize.js';
import { connectNats, serversPhrase } from '../../store/jetstream/connection.js';
import type { Environment } from '../environment.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { fields, table } from '../output.js';
import { requireConfig } from '../store.js';
import { identityArgument, requireNats } from './serve.js';

export interface AgentsFlags {
  config?: string;
  json?: boolean;
}

const line = (s: string | undefined): string => sanitizeLine((s ?? '').split('\n')[0]!);
const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

async function withClient<T>(config: LogbookConfig, fn: (nc: NatsConnection, client: A2AClient) => Promise<T>): Promise<T> {
  const nc = await connectNats(requireNats(config, 'agents'));
  try {
    return await fn(nc, new A2AClient(nc, config.a2a.identity ?? DEFAULT_CALLER_IDENTITY));
  } finally {
    await nc.close();
  }
}

/** A card as JSON: input schemas as the values they hold. */
function cardJson(card: AgentCard): Record<string, unknown> {
  return { ...card, tools: (card.tools ?? []).map((t) => ({ ...t, ...(t.input_schema !== undefined ? { input_schema: t.input_schema.value() } : {}) })) };
}

function listingJson(a: AgentListing): Record<string, unknown> {
  return {
    identity: a.identity,
    instances: a.instances,
    ...(a.card !== undefined ? { version: a.card.version, description: a.card.description ?? '', protocols: a.card.protocols ?? [], tools: (a.card.tools ?? []).length } : {}),
    ...(a.problem !== undefined ? { problem: a.problem } : {}),
  };
}

export async function agentsLs(flags: AgentsFlags, environment: Environment): Promise<ExitCode> {
  const config = requireConfig(flags.config, environment);
  const onSkipped = (problem: string): void => void process.stderr.write(`warning: skipped an answer to $SRV.INFO: ${line(problem)}\n`);
  const agents = await withClient(config, (nc, client) => listAgents(nc, client, { onSkipped }));
  if (flags.json) {
    process.stdout.write(json(agents.map(listingJson)));
    return EXIT.ok;
  }
  if (agents.length === 0) {
    process.stdout.write(`no agents answer on ${serversPhrase(config.nats!.url)}\n`);
    return EXIT.ok;
  }
  const rows = [['AGENT', 'INSTANCES', 'VERSION', 'TOOLS', 'DESCRIPTION']];
  for (const a of agents) {
    const versions = [...new Set(a.instances.map((i) => i.version))].join(', ');
    rows.push([
      line(a.identity),
      String(a.instances.length),
      line(a.card?.version ?? versions),
      a.card !== undefined ? String((a.card.tools ?? []).length) : '?',
      a.card !== undefined ? line(a.card.description ?? a.instances[0]?.description) : `no card: ${line(a.problem)}`,
    ]);
  }
  process.stdout.write(table(rows));
  return EXIT.ok;
}

/** The remote_tools entry of this config for `identity`, or the one a run would use by default. */
function hostFor(config: LogbookConfig, identity: string): { host: RemoteToolHost; configured: boolean } {
  const configured = config.remote_tools.find((h) => h.name === identity);
  if (configured !== undefined) return { host: configured, configured: true };
  return {
    host: { name: identity, alias: identity, side_effects: REMOTE_DEFAULTS.side_effects, confirm: REMOTE_DEFAULTS.confirm, timeout: REMOTE_DEFAULTS.timeout, overrides: {} },
    configured: false,
  };
}

interface ToolRow {
  tool: string;
  description: string;
  imported_as?: string;
  not_imported?: string;
  side_effects?: boolean;
  confirm?: boolean;
}

function toolRows(imported: HostImport): ToolRow[] {
  const byTool = new Map(imported.tools.map((t) => [t.remote.tool, t]));
  const skipped = new Map(imported.skipped.map((s) => [s.tool, s.why]));
  return (imported.card.tools ?? []).map((d): ToolRow => {
    const tool = byTool.get(d.name);
    const base = { tool: d.name, description: d.description ?? '' };
    if (tool !== undefined) return { ...base, imported_as: tool.definition.name, side_effects: tool.policy.sideEffects, confirm: tool.policy.confirm };
    return { ...base, not_imported: skipped.get(d.name) ?? 'include/exclude leave it out' };
  });
}

export async function agentsShow(identity: string, flags: AgentsFlags, environment: Environment): Promise<ExitCode> {
  identityArgument(identity);
  const config = requireConfig(flags.config, environment);
  const { host, configured } = hostFor(config, identity);
  const { card, rows } = await withClient(config, async (_nc, client) => {
    let card: AgentCard;
    try {
      card = await client.discover(identity, { timeoutMs: host.timeout * 1000 });
    } catch (err) {
      throw new LogbookError(isLogbookError(err) ? err.code : 'agent_unavailable', `agent ${identity}: ${(err as Error).message}`, { cause: err });
    }
    return { card, rows: toolRows(importFromCard(host, card, client)) }; // the tools are made, and none is called
  });
  if (flags.json) {
    process.stdout.write(json({ card: cardJson(card), subjects: { discovery: discoverySubject(identity), tool: toolSubject(identity) }, remote_tools: configured ? 'configured' : 'defaults', alias: host.alias, tools: rows }));
    return EXIT.ok;
  }
  const yesNo = (b: boolean | undefined): string => (b === undefined ? '' : b ? 'yes' : 'no');
  let out = fields([
    ['agent', line(card.name)],
    ['version', line(card.version)],
    ['description', line(card.description) || '(none)'],
    ['protocols', (card.protocols ?? []).map(line).join(', ') || '(none)'],
    ['subjects', `${discoverySubject(identity)}, ${toolSubject(identity)}`],
    ['imported', configured ? `as remote_tools in ${config.path} says (alias ${host.alias})` : `with the defaults (alias ${host.alias}; not in this config's remote_tools)`],
  ]);
  if (rows.length > 0) {
    const table_ = [['', 'TOOL', 'IMPORTED AS', 'SIDE EFFECTS', 'CONFIRM', 'DESCRIPTION']];
    for (const r of rows) table_.push(['', line(r.tool), r.imported_as ?? `not imported: ${line(r.not_imported)}`, yesNo(r.side_effects), yesNo(r.confirm), line(r.description)]);
    out += `tools\n${table(table_)}`;
  } else {
    out += 'tools  (none)\n';
  }
  process.stdout.write(out);
  return EXIT.ok;
}
