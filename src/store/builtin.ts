/** The backends linked into logbook, each loaded only when a store of it is opened. */
import type { BackendFactory } from './backend.js';

export const BUILTIN_BACKENDS: Readonly<Record<string, () => Promise<BackendFactory>>> = {
  file: async () => (await import('./file/file-backend.js')).fileBackendFromOptions,
  jetstream: async () => (await import('./jetstream/jetstream-store.js')).jetStreamBackendFromOptions,
  memory: async () => (await import('./memory/memory-store.js')).memoryBackendFromOptions,
};
