/**
 * Session backends by name. Built-in backends (builtin.ts) load lazily, so a
 * command that uses the file store never loads a NATS client.
 */
import { LogbookError } from '../core/index.js';
import type { BackendContext, BackendFactory } from './backend.js';
import { BUILTIN_BACKENDS } from './builtin.js';
import { JournalStore } from './journal-store.js';
import type { Store } from './store.js';

const added = new Map<string, BackendFactory>();

/** Links a backend under a new name; a name already linked is refused, never replaced. */
export function registerBackend(name: string, factory: BackendFactory): void {
  if (name in BUILTIN_BACKENDS || added.has(name)) {
    throw new LogbookError('backend_options', `a session backend named "${name}" is already linked`);
  }
  added.set(name, factory);
}

/** The names of the linked backends, sorted. */
export function backends(): string[] {
  return [...Object.keys(BUILTIN_BACKENDS), ...added.keys()].sort();
}

/** Builds the named backend from its options and wraps it in the journal rules. */
export async function openStore(name: string, options: Record<string, unknown> = {}, context: BackendContext = {}): Promise<Store> {
  const builtin = Object.hasOwn(BUILTIN_BACKENDS, name) ? BUILTIN_BACKENDS[name] : undefined;
  const factory = builtin !== undefined ? await builtin() : added.get(name);
  if (factory === undefined) {
    throw new LogbookError('unknown_backend', `unknown session backend "${name}"; linked backends: ${backends().join(', ')}`);
  }
  return new JournalStore(await factory(options, context));
}
