/**
 * Which agents a connection reaches: the NATS micro services that answer
 * `$SRV.INFO` with a discovery endpoint on the reference's subject for their own
 * name (other services on the bus are not agents), grouped by identity (one per
 * running instance), each then asked for its card.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { A2AClient, CallOptions } from './client.js';
import type { AgentCard } from './protocol.js';
import { EVENTS_BY_SENDER, EVENTS_METADATA, discoverySubject } from './subjects.js';

export interface AgentInstance {
  /** The micro service instance id. */
  id: string;
  /** The version its service registration gives. */
  version: string;
  description: string;
}

export interface AgentListing {
  identity: string;
  instances: AgentInstance[];
  /** Its card, when it answered discovery. */
  card?: AgentCard;
  /** Why it did not, when it did not. */
  problem?: string;
}

/** How long `$SRV.INFO` gathers answers. */
export const DEFAULT_LISTING_WAIT_MS = 2_000;

/** What an agent's answer to `$SRV.INFO` is read for. */
export interface ServiceAnswer {
  name: string;
  id: string;
  version: string;
  description?: string;
  endpoints: { subject: string }[];
  /** Its metadata's string values (any other is left out). */
  metadata: Record<string, string>;
}

/**
 * Every answer to `$SRV.INFO` within `waitMs` that reads as a service's info;
 * each other one (any service on the bus may answer, and anything may) is
 * passed to `skipped`, named as far as it names itself, and left out.
 */
async function serviceInfos(nc: NatsConnection, waitMs: number, skipped: (problem: string) => void, subject = '$SRV.INFO', stallMs?: number): Promise<ServiceAnswer[]> {
  const infos: ServiceAnswer[] = [];
  try {
    const answers = await nc.requestMany(subject, '', { strategy: 'stall', maxWait: waitMs, ...(stallMs !== undefined ? { stall: stallMs } : {}) });
    for await (const answer of answers) {
      const read = serviceAnswer(answer.data);
      if (typeof read === 'string') skipped(read);
      else infos.push(read);
    }
  } catch (err) {
    if ((err as Error).name === 'NoResponders' || (err as { isNoResponders?: () => boolean }).isNoResponders?.()) return [];
    throw err;
  }
  return infos;
}

/** One answer to `$SRV.INFO`, read as untrusted input: its info, or what is wrong with it. */
export function serviceAnswer(data: Uint8Array): ServiceAnswer | string {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(data));
  } catch {
    return `an answer of ${data.byteLength} bytes is not JSON`;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return `an answer is not a JSON object (${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value})`;
  const v = value as Record<string, unknown>;
  const who = typeof v.name === 'string' ? `the answer of service ${JSON.stringify(v.name.slice(0, 100))}` : 'an answer';
  const wrong = (what: string): string => `${who}${typeof v.id === 'string' ? ` (instance ${JSON.stringify(v.id.slice(0, 100))})` : ''} ${what}`;
  if (typeof v.name !== 'string') return wrong('has no name');
  if (typeof v.id !== 'string') return wrong('has no id');
  if (v.version !== undefined && typeof v.version !== 'string') return wrong('has a version that is not a string');
  if (v.description !== undefined && v.description !== null && typeof v.description !== 'string') return wrong('has a description that is not a string');
  if (v.endpoints !== undefined && v.endpoints !== null && !Array.isArray(v.endpoints)) return wrong('has endpoints that are not a list');
  const endpoints: { subject: string }[] = [];
  for (const e of (v.endpoints as unknown[] | null | undefined) ?? []) {
    if (e === null || typeof e !== 'object' || typeof (e as { subject?: unknown }).subject !== 'string') return wrong('has an endpoint without a subject');
    endpoints.push({ subject: (e as { subject: string }).subject });
  }
  const metadata: Record<string, string> = {};
  if (v.metadata !== null && typeof v.metadata === 'object' && !Array.isArray(v.metadata)) {
    for (const [key, value] of Object.entries(v.metadata as Record<string, unknown>)) if (typeof value === 'string') metadata[key] = value;
  }
  return {
    name: v.name,
    id: v.id,
    version: typeof v.version === 'string' ? v.version : '',
    ...(typeof v.description === 'string' ? { description: v.description } : {}),
    endpoints,
    metadata,
  };
}

/** Whether a service is an agent: it answers discovery for its own name where the reference asks. */
export function isAgentService(info: ServiceAnswer): boolean {
  return (info.endpoints ?? []).some((e) => e.subject === discoverySubject(info.name));
}

/** The agents reachable on `nc`, by identity, each with its card or why it has none; an answer that cannot be read is told to `onSkipped`. */
export async function listAgents(
  nc: NatsConnection,
  client: A2AClient,
  options: { waitMs?: number; onSkipped?: (problem: string) => void } & CallOptions = {},
): Promise<AgentListing[]> {
  const byIdentity = new Map<string, AgentInstance[]>();
  for (const info of await serviceInfos(nc, options.waitMs ?? DEFAULT_LISTING_WAIT_MS, options.onSkipped ?? (() => {}))) {
    if (!isAgentService(info)) continue;
    const instances = byIdentity.get(info.name) ?? [];
    instances.push({ id: info.id, version: info.version, description: info.description ?? '' });
    byIdentity.set(info.name, instances);
  }
  const identities = [...byIdentity.keys()].sort();
  return Promise.all(
    identities.map(async (identity): Promise<AgentListing> => {
      const instances = byIdentity.get(identity)!.sort((a, b) => (a.id < b.id ? -1 : 1));
      try {
        return { identity, instances, card: await client.discover(identity, options) };
      } catch (err) {
        return { identity, instances, problem: (err as Error).message };
      }
    }),
  );
}

/** How long a caller waits for more instances of an agent once one has answered `$SRV.INFO`. */
const INSTANCE_STALL_MS = 150;

/**
 * Whether every running instance of agent `identity` that answers
 * `$SRV.INFO.<identity>` within `waitMs` says it publishes a task's events
 * on its sender's subject when asked (EVENTS_METADATA): false when none
 * answers, or one does not say so (an older one), whose events would go on
 * the spec's subject alone. Bad answers are passed over.
 */
export async function eventsBySender(nc: NatsConnection, identity: string, waitMs: number): Promise<boolean> {
  const infos = (await serviceInfos(nc, waitMs, () => {}, `$SRV.INFO.${identity}`, INSTANCE_STALL_MS).catch(() => [])).filter(
    (info) => info.name === identity && isAgentService(info),
  );
  return infos.length > 0 && infos.every((info) => info.metadata[EVENTS_METADATA] === EVENTS_BY_SENDER);
}
