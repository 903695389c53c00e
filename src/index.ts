/**
 * logbook's public API: the journal core, the store interface and backends, and
 * the record schemas. Layers, bottom up: core (pure) -> store -> agent -> render -> cli.
 */
export * from './core/index.js';
export {
  LISTED_STATUSES,
  listedStatus,
  runNotFound,
  type Journal,
  type ListedStatus,
  type LoadedRun,
  type LoadedState,
  type ListingOptions,
  type OpenOptions,
  type RecordsOptions,
  type ForkOrigin,
  type RunInfo,
  type RunPlace,
  type Store,
  type StoredLines,
  type StreamedRecord,
  type WatchOptions,
} from './store/store.js';
export type {
  Backend,
  BackendContext,
  BackendFactory,
  HeldRun,
  NatsSettings,
  OpenedRun,
  RunSummary,
  StoredRun,
  StreamOptions,
  Streamed,
} from './store/backend.js';
export { JournalStore } from './store/journal-store.js';
export { openStore, registerBackend, backends } from './store/registry.js';
export { decodeOptions, type OptionKind } from './store/options.js';
export { FileBackend, FileStore, fileBackendFromOptions } from './store/file/file-backend.js';
export { defaultStateDir, runsDir } from './store/file/paths.js';
// The NATS client itself loads only when a JetStream store connects.
export {
  JetStreamBackend,
  JetStreamStore,
  jetStreamBackendFromOptions,
  type JetStreamStoreOptions,
} from './store/jetstream/jetstream-store.js';
export { MemoryBackend, MemoryStore, memoryBackendFromOptions } from './store/memory/memory-store.js';
export { copyRun, type CopiedRun, type CopyOptions } from './store/copy.js';
export { forkRun, type ForkOptions, type ForkPoint, type Forked } from './store/fork.js';
export { byId, groupLineages, lineageOf, lineageRoot, listLineage, ownFrom, writtenIn, type Lineage, type RunsById } from './store/lineage.js';
export { validateRecord, recordSchema, type ValidationResult, type RecordSchemaName } from './schema/validate.js';
// The agent, for programs that embed logbook. Provider SDKs load only in createProvider.
export type { Provider, ModelRequest, ModelResponse, StreamObserver, Usage, ThinkingSetting } from './agent/provider.js';
export { createProvider, type ProviderSettings } from './agent/providers/index.js';
export { ScriptProvider } from './agent/providers/script.js';
export { defineTool, type Tool, type ToolContext, type ToolOutcome, type ToolPolicy, type FunctionToolSpec } from './agent/tools/tool.js';
export { ToolRegistry } from './agent/tools/registry.js';
export { CommandTool, type CommandToolSpec } from './agent/tools/command-tool.js';
export { fingerprintOf, RESUME_REMINDER, type Agent } from './agent/agent.js';
export { runLoop, awaitsInput, awaitsAnswer, textOf, type AnswerControl, type ChatInput, type ChatTurn, type LoopOptions, type RunObserver, type RunResult, type ToolCall } from './agent/runner.js';
export {
  allowCall,
  denyCall,
  suspendCall,
  policyOf,
  type BeforeToolCall,
  type CallContext,
  type CallDecision,
  type InterruptedCallAction,
} from './agent/approvals.js';
export {
  startRun,
  resumeRun,
  resumeRefusal,
  newRunMeta,
  generateRunId,
  AgentRun,
  type StartOptions,
  type ResumeOptions,
  type GateOptions,
} from './agent/run.js';
