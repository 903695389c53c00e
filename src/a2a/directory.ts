/**
 * Which agents a connection reaches: the NATS micro services that answer
 * `$SRV.INFO` with a discovery endpoint on the reference's subject for their own
 * name (other services on the bus are not agents), grouped by identity (one per
 * running instance), each then asked for its card.
 */
import type { NatsConnection } from '@nats-io/transport-node';
import type { ServiceInfo } from '@nats-io/services';
import type { A2AClient, CallOptions } from './client.js';
import type { AgentCard } from './protocol.js';
import { discoverySubject } from './subjects.js';

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

/** Every answer to `$SRV.INFO` within `waitMs`. */
async function serviceInfos(nc: NatsConnection, waitMs: number): Promise<ServiceInfo[]> {
  const { Svcm } = await import('@nats-io/services');
  const infos: ServiceInfo[] = [];
  try {
    const answers = await new Svcm(nc).client({ strategy: 'stall', maxWait: waitMs }).info();
    for await (const info of answers) infos.push(info);
  } catch (err) {
    if ((err as Error).name === 'NoResponders' || (err as { isNoResponders?: () => boolean }).isNoResponders?.()) return [];
    throw err;
  }
  return infos;
}

/** Whether a service is an agent: it answers discovery for its own name where the reference asks. */
export function isAgentService(info: ServiceInfo): boolean {
  return (info.endpoints ?? []).some((e) => e.subject === discoverySubject(info.name));
}

/** The agents reachable on `nc`, by identity, each with its card or why it has none. */
export async function listAgents(nc: NatsConnection, client: A2AClient, options: { waitMs?: number } & CallOptions = {}): Promise<AgentListing[]> {
  const byIdentity = new Map<string, AgentInstance[]>();
  for (const info of await serviceInfos(nc, options.waitMs ?? DEFAULT_LISTING_WAIT_MS)) {
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
