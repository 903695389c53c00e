/**
 * logbook's public API: the journal core, the store interface and backends, and
 * the record schemas. Layers, bottom up: core (pure) -> store -> agent -> render -> cli.
 */
export * from './core/index.js';
export { runNotFound, type Journal, type LoadedRun, type RunInfo, type RunStatus, type Store } from './store/store.js';
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
export { copyRun, type CopyOptions } from './store/copy.js';
export { validateRecord, recordSchema, type ValidationResult, type RecordSchemaName } from './schema/validate.js';
// The agent, for programs that embed logbook. Provider SDKs load only in createProvider.
export type { Provider, ModelRequest, ModelResponse, StreamObserver, Usage, ThinkingSetting } from './agent/provider.js';
export { createProvider, type ProviderSettings } from './agent/providers/index.js';
export { ScriptProvider } from './agent/providers/script.js';
export { defineTool, type Tool, type ToolContext, type ToolOutcome, type FunctionToolSpec } from './agent/tools/tool.js';
export { ToolRegistry } from './agent/tools/registry.js';
export { CommandTool, type CommandToolSpec } from './agent/tools/command-tool.js';
export { JournalWriter } from './agent/journal-writer.js';
export {
  runAgent,
  textOf,
  RESUME_REMINDER,
  type AgentConfig,
  type ChatInput,
  type RunObserver,
  type RunOptions,
  type RunResult,
  type StartPoint,
  type ToolCall,
} from './agent/runner.js';
export { freshStart, resumeStart, resumeRun, newRunMeta, generateRunId, type ResumedRun } from './agent/session.js';
// Last: it is written against the exports above.
export { MemoryStore } from './store/memory/memory-store.js';
