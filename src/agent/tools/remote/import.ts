/**
 * Importing other agents' tools when a run starts (agent.yaml's `remote_tools:`):
 * every agent is asked for its card at once, then each card's tools go through
 * the reference's import rules: `include`, then `exclude`, by name; only tools
 * with a description and an object input schema; each named `<alias>_<tool>`.
 * An agent that cannot be reached fails the start (the prompt may need its
 * tools), naming it; so does a name that collides, with a local tool or another
 * agent's, whatever order the cards came in. A tool the rules leave out is a
 * note for the operator, not a failure. The imported definitions are part of
 * the tool set the fingerprint hashes, so a resume, which imports again, is
 * refused when an agent's tools changed.
 */
import { LogbookError, isLogbookError, type ToolDefinition } from '../../../core/index.js';
import type { AgentCard, ToolDescriptor } from '../../../a2a/protocol.js';
import { TOOL_NAME_RULE } from '../mcp/spec.js';
import { RemoteTool, type RemoteCaller } from './remote-tool.js';
import { importedName, type RemoteToolHost } from './spec.js';

/** What the wire must do for an import: ask for a card, and call tools. */
export interface RemoteDirectory extends RemoteCaller {
  discover(agent: string, options: { timeoutMs: number }): Promise<AgentCard>;
}

/** Which agents have answered while the cards are asked for, in config order. */
export interface DiscoveryProgress {
  ready: string[];
  pending: string[];
}

/** One agent's import: its card, the tools taken, those its card lists that were left out and why. */
export interface HostImport {
  host: RemoteToolHost;
  /** @internal */
  card: AgentCard;
  tools: RemoteTool[];
  /** Left out by include or exclude. */
  filtered: string[];
  /** Listed, picked, and still not importable. */
  skipped: { tool: string; why: string }[];
}

export interface ImportOptions {
  /** Names already taken (the run's local tools). */
  taken: ReadonlySet<string>;
  onProgress?: (progress: DiscoveryProgress) => void;
}

const matchesAny = (name: string, patterns: readonly string[] | undefined): boolean => (patterns ?? []).some((p) => new RegExp(p).test(name));

/** Why a descriptor cannot become a tool the model is given, or null when it can. */
function unimportable(d: ToolDescriptor, name: string): string | null {
  if (!d.description) return 'it has no description';
  if (d.input_schema !== undefined) {
    const type = (d.input_schema.value() as { type?: unknown }).type;
    if (type !== undefined && type !== 'object') return 'its input schema is not for an object';
  }
  if (!TOOL_NAME_RULE.test(name)) return `its name would be ${JSON.stringify(name)}, which breaks the model APIs' rule for tool names (letters, digits, _ and -, at most 64 characters)`;
  return null;
}

/** A host's tools by its include/exclude and the import rules, its overrides checked against what its card lists. */
export function importFromCard(host: RemoteToolHost, card: AgentCard, caller: RemoteCaller): HostImport {
  const listed = card.tools ?? [];
  const names = new Set(listed.map((t) => t.name));
  for (const tool of Object.keys(host.overrides)) {
    if (!names.has(tool)) {
      const offers = names.size ? `it offers ${[...names].join(', ')}` : 'it offers no tools';
      throw new LogbookError('config', `remote_tools entry for agent ${host.name}: overrides names "${tool}", which the agent does not offer; ${offers}`);
    }
  }
  const out: HostImport = { host, card, tools: [], filtered: [], skipped: [] };
  for (const d of listed) {
    if ((host.include !== undefined && !matchesAny(d.name, host.include)) || matchesAny(d.name, host.exclude)) {
      out.filtered.push(d.name);
      continue;
    }
    const name = importedName(host.alias, d.name);
    const why = unimportable(d, name);
    if (why !== null) {
      out.skipped.push({ tool: d.name, why });
      continue;
    }
    const definition: ToolDefinition = { name, description: d.description!, input_schema: d.input_schema?.value() ?? { type: 'object' } };
    const override = host.overrides[d.name] ?? {};
    const policy = { confirm: override.confirm ?? host.confirm, sideEffects: override.side_effects ?? host.side_effects };
    out.tools.push(new RemoteTool(definition, policy, { agent: host.name, tool: d.name }, caller, host.timeout * 1000));
  }
  for (const tool of Object.keys(host.overrides)) {
    if (out.filtered.includes(tool)) {
      throw new LogbookError('config', `remote_tools entry for agent ${host.name}: overrides names "${tool}", which its include/exclude leave out`);
    }
  }
  return out;
}

/** Refuses names that collide, with a local tool or across agents, naming every one (config order, so always the same line). */
function checkCollisions(imports: readonly HostImport[], taken: ReadonlySet<string>): void {
  const owners = new Map<string, string[]>();
  for (const i of imports) for (const t of i.tools) owners.set(t.definition.name, [...(owners.get(t.definition.name) ?? []), i.host.name]);
  const clashes: string[] = [];
  for (const [name, agents] of owners) {
    if (taken.has(name)) clashes.push(`${name} (agent ${agents.join(', agent ')}) is also a local tool`);
    else if (agents.length > 1) clashes.push(`${name} comes from agents ${agents.join(' and ')}`);
  }
  if (clashes.length > 0) {
    throw new LogbookError('config', `imported tool names collide: ${clashes.join('; ')}; give the remote_tools entry another alias`);
  }
}

/** The cards of every host, asked for at once; the start fails naming each agent that did not answer. */
async function discoverAll(directory: RemoteDirectory, hosts: readonly RemoteToolHost[], onProgress?: (p: DiscoveryProgress) => void): Promise<AgentCard[]> {
  const ready = new Set<string>();
  const report = (): void =>
    onProgress?.({ ready: hosts.filter((h) => ready.has(h.name)).map((h) => h.name), pending: hosts.filter((h) => !ready.has(h.name)).map((h) => h.name) });
  report();
  const settled = await Promise.allSettled(
    hosts.map(async (host) => {
      const card = await directory.discover(host.name, { timeoutMs: host.timeout * 1000 });
      ready.add(host.name);
      report();
      return card;
    }),
  );
  const failed = settled.flatMap((s, i) => (s.status === 'rejected' ? [{ host: hosts[i]!, err: s.reason as Error }] : []));
  if (failed.length > 0) {
    const what = failed.map(({ host, err }) => `agent ${host.name} cannot be reached (${err.message})`).join('; ');
    const first = failed[0]!.err;
    const code = isLogbookError(first) ? first.code : 'agent_unavailable';
    throw new LogbookError(code, `${what}; start ${failed.length > 1 ? 'them' : 'it'} (logbook serve) or take ${failed.length > 1 ? 'them' : 'it'} out of remote_tools`, { cause: first });
  }
  return settled.map((s) => (s as PromiseFulfilledResult<AgentCard>).value);
}

/** The tools of every host, in config order, host by host. */
export async function importRemoteTools(directory: RemoteDirectory, hosts: readonly RemoteToolHost[], options: ImportOptions): Promise<HostImport[]> {
  if (hosts.length === 0) return [];
  const cards = await discoverAll(directory, hosts, options.onProgress);
  const imports = hosts.map((host, i) => importFromCard(host, cards[i]!, directory));
  checkCollisions(imports, options.taken);
  return imports;
}

/** What the operator is told of an import: tools left out, and agents that gave none. */
export function importNotes(imports: readonly HostImport[]): string[] {
  const notes: string[] = [];
  for (const i of imports) {
    for (const s of i.skipped) notes.push(`tool ${s.tool} of agent ${i.host.name} is not imported: ${s.why}`);
    if (i.tools.length === 0) notes.push(`agent ${i.host.name} gives this run no tools (its card lists ${(i.card.tools ?? []).length})`);
  }
  return notes;
}
