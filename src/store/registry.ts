/**
 * Session backends by name. Backends load lazily, so a command that uses the file
 * store never loads a NATS client. No identity is passed to a backend: a resume
 * must find its run whatever identity is active.
 */
import { LogbookError } from '../core/index.js';
import type { Store } from './store.js';

export interface NatsSettings {
  url: string;
  /** A NATS credentials file. */
  creds?: string;
}

export interface BackendContext {
  /** A state directory D: the file backend keeps journals in D/runs. */
  stateDir?: string;
  /** The directory of the config file, against which relative option paths resolve. */
  configDir?: string;
  /** Connection settings for backends that talk to NATS. */
  nats?: NatsSettings;
}

/** Builds a store, decoding `options` strictly; invalid options fail here. */
export type BackendFactory = (options: Record<string, unknown>, context: BackendContext) => Promise<Store>;

const factories = new Map<string, BackendFactory>();

export function registerBackend(name: string, factory: BackendFactory): void {
  factories.set(name, factory);
}

/** The names of the linked backends, sorted. */
export function backends(): string[] {
  return [...factories.keys()].sort();
}

export async function openStore(
  name: string,
  options: Record<string, unknown> = {},
  context: BackendContext = {},
): Promise<Store> {
  const factory = factories.get(name);
  if (factory === undefined) {
    throw new LogbookError('unknown_backend', `unknown session backend "${name}"; linked backends: ${backends().join(', ')}`);
  }
  return factory(options, context);
}

registerBackend('file', async (options, context) => (await import('./file/file-store.js')).fileStoreFromOptions(options, context));
registerBackend('jetstream', async (options, context) =>
  (await import('./jetstream/jetstream-store.js')).jetStreamStoreFromOptions(options, context),
);
registerBackend('memory', async (options) => (await import('./memory/memory-store.js')).memoryStoreFromOptions(options));
