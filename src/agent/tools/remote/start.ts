/**
 * startRemoteTools, for the package's entry point: the NATS client and the
 * A2A wire load only when a program asks for remote tools, not when it
 * imports logbook.
 */
import type { RemoteTools, RemoteToolsOptions } from './index.js';
import type { RemoteToolHost } from './spec.js';

/**
 * Connects to NATS, asks each agent of `hosts` for its tools, and gives the
 * ones each entry imports (named with its alias), ready to register in a
 * ToolRegistry; `close()` when the run is done.
 */
export async function startRemoteTools(hosts: readonly RemoteToolHost[], options: RemoteToolsOptions): Promise<RemoteTools> {
  const { startRemoteTools: start } = await import('./index.js');
  return start(hosts, options);
}
