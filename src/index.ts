/**
 * logbook's public API: the journal core, the store interface and backends, and
 * the record schemas. Layers, bottom up: core (pure) -> store -> agent -> replay -> cli.
 */
export * from './core/index.js';
export type { Journal, LoadedRun, RunInfo, RunStatus, Store } from './store/store.js';
export {
  openStore,
  registerBackend,
  backends,
  type BackendContext,
  type BackendFactory,
  type NatsSettings,
} from './store/registry.js';
export { decodeOptions, type OptionKind } from './store/options.js';
export { FileStore, fileStoreFromOptions } from './store/file/file-store.js';
// The NATS client itself loads only when a JetStreamStore connects.
export { JetStreamStore, jetStreamStoreFromOptions, type JetStreamStoreOptions } from './store/jetstream/jetstream-store.js';
export { copyRun } from './store/copy.js';
export { validateRecord, recordSchema, type ValidationResult, type RecordSchemaName } from './schema/validate.js';
// Last: it is written against the exports above.
export { MemoryStore } from './store/memory/memory-store.js';
