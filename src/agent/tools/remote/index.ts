/**
 * Tools of other agents, for a run: one NATS connection (agent.yaml's `nats:`),
 * held for the run since every call goes over it; the agents of `remote_tools:`
 * discovered and their tools imported (import.ts); `close` lets the connection go.
 */
import { A2AClient } from '../../../a2a/client.js';
import { LogbookError } from '../../../core/index.js';
import type { NatsSettings } from '../../../store/backend.js';
import { connectNats } from '../../../store/jetstream/connection.js';
import { importNotes, importRemoteTools, type DiscoveryProgress, type HostImport } from './import.js';
import type { RemoteTool } from './remote-tool.js';
import { DEFAULT_CALLER_IDENTITY, type RemoteToolHost } from './spec.js';

export { importFromCard, type DiscoveryProgress, type HostImport } from './import.js';
export { RemoteTool, replyOutcome } from './remote-tool.js';
export { importedName, DEFAULT_CALLER_IDENTITY, REMOTE_DEFAULTS, type RemoteToolHost } from './spec.js';

/** How startRemoteTools reaches the agents. */
export interface RemoteToolsOptions {
  nats: NatsSettings;
  /** This agent's identity, the sender of every request. */
  identity?: string;
  /** Names the run's own tools already have. */
  taken: ReadonlySet<string>;
  /** Told which agents have answered, while they are asked for their tools. */
  onProgress?: (progress: DiscoveryProgress) => void;
  /** Aborting it gives the start up (`interrupted`). */
  signal?: AbortSignal;
}

/** The tools imported from other agents, and the connection they are called over. */
export interface RemoteTools {
  imports: HostImport[];
  /** Every imported tool, agent by agent in config order. */
  tools: RemoteTool[];
  /** What the operator should know (tools left out). */
  notes: string[];
  /** Lets the connection go. */
  close(): Promise<void>;
}

/** Connects to NATS, asks each agent of `hosts` for its tools, and gives the ones each entry imports (named with its alias); `close()` when the run is done. */
export async function startRemoteTools(hosts: readonly RemoteToolHost[], options: RemoteToolsOptions): Promise<RemoteTools> {
  const nc = await connectNats(options.nats);
  const close = async (): Promise<void> => {
    if (!nc.isClosed()) await nc.close();
  };
  try {
    const client = new A2AClient(nc, options.identity ?? DEFAULT_CALLER_IDENTITY);
    const work = importRemoteTools(client, hosts, { taken: options.taken, ...(options.onProgress ? { onProgress: options.onProgress } : {}) });
    const imports = await untilAborted(work, options.signal);
    return { imports, tools: imports.flatMap((i) => i.tools), notes: importNotes(imports), close };
  } catch (err) {
    await close();
    throw err;
  }
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return work;
  const stopped = (): LogbookError => new LogbookError('interrupted', 'interrupted while the agents of remote_tools were being asked for their tools');
  if (signal.aborted) return Promise.reject(stopped());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(stopped());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
