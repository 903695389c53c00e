/**
 * logbook as a library: everything the `logbook` command does to a run, for a
 * program that runs agents on the same journals. Build an agent (from
 * agent.yaml with `loadAgent`, or from a provider and tools with
 * `defineAgent`), open a store, then start, resume or follow up a run and
 * `execute` it; fork, list, watch, search, export and copy runs; answer
 * approvals and interrupted calls with callbacks. Errors are `LogbookError`s
 * with stable codes.
 *
 * This is the package's whole public surface; what it does not export is
 * internal and may change.
 *
 * @packageDocumentation
 */

// ---- errors -----------------------------------------------------------------
export { LogbookError, isLogbookError, type ErrorCode, type ErrorDetails } from './core/errors.js';

// ---- the agent: providers, tools, limits ------------------------------------
export { contextWindowOf, defineAgent, fingerprintOf, AGENT_DEFAULTS, type Agent, type AgentOptions } from './agent/agent.js';
export type { Provider, ModelRequest, ModelResponse, StreamObserver, Usage, ThinkingSetting } from './agent/provider.js';
export { createProvider, type ProviderSettings } from './agent/providers/index.js';
export type { RetryPolicy, RetryListener } from './agent/providers/retry.js';
export type { SdkWarningListener } from './agent/providers/sdk-warnings.js';
export { scriptProvider, type ScriptTurn } from './agent/providers/script.js';
export { defineTool, type Tool, type ToolContext, type ToolOutcome, type ToolPolicy, type FunctionToolSpec, type CommandRun, type RemoteOrigin, type ToolCallInfo, type ToolProgress, type OperatorAnswer } from './agent/tools/tool.js';
export { ToolRegistry } from './agent/tools/registry.js';
export {
  commandTool,
  CommandTool,
  COMMAND_TOOL_DEFAULTS,
  type CommandToolInput,
  type CommandToolOptions,
  type CommandToolSpec,
} from './agent/tools/command-tool.js';
export { startMcpServers, McpTool, type McpServers, type StartedServer, type StartProgress, type StartOptions as McpStartOptions } from './agent/tools/mcp/index.js';
export {
  MCP_DEFAULTS,
  type McpServerInput,
  type McpServerSpec,
  type StdioServerSpec,
  type HttpServerSpec,
  type ToolPolicyOverride,
} from './agent/tools/mcp/spec.js';
// The NATS client and the A2A wire load only when startRemoteTools is called.
export { startRemoteTools } from './agent/tools/remote/start.js';
export type { RemoteTool, RemoteToolsOptions, RemoteTools, DiscoveryProgress, HostImport } from './agent/tools/remote/index.js';
export { REMOTE_DEFAULTS, DEFAULT_CALLER_IDENTITY, type RemoteToolHost } from './agent/tools/remote/spec.js';
export type { Env } from './agent/tools/env-refs.js';

// ---- agent.yaml -------------------------------------------------------------
export type { ExposeSettings } from './agent/exposure.js';
export { loadConfig, parseConfig, DEFAULT_CONFIG_FILE, type LogbookConfig, type ProviderName, type CommandToolConfig, type OtelBlock, type ModelPriceConfig, type A2AHttpSettings } from './config/config.js';
export { loadAgent, agentFromConfig, type AgentEnvironment, type ConfiguredAgent, type LoadedAgent } from './config/agent.js';
export { storeFromConfig, type ConfiguredStoreOptions } from './config/store.js';

// ---- runs: start, resume, follow up, execute --------------------------------
export {
  startRun,
  resumeRun,
  followUpRun,
  resumeRefusal,
  generateRunId,
  AgentRun,
  type StartOptions,
  type ResumeOptions,
  type FollowUpOptions,
  type ExecuteOptions,
  type GateOptions,
} from './agent/run.js';
export { awaitsInput, awaitsAnswer, type SpendCap } from './agent/run-rests.js';
export {
  textOf,
  type AnswerControl,
  type ChatInput,
  type ChatTurn,
  type Compaction,
  type LiveSpend,
  type LoopOptions,
  type RunObserver,
  type RunResult,
  type ToolCall,
} from './agent/runner.js';
// A long run compacted into a continuation (compact_at, a refusal for length, AgentRun.compact), and what runs spend.
export { DEFAULT_COMPACTION, type CompactionSettings } from './agent/agent.js';
export { findInstructions, type ProjectInstructions } from './agent/instructions.js';
export { SUMMARY_PROMPT, CompactedError, continuationPrompt, keptText, type CompactionCause } from './agent/compaction.js';
export { loadPriceBook, usdText, OVERRIDE_SOURCE, type ModelPrices, type PriceBook, type PriceBookOptions, type PriceOverride } from './agent/prices.js';
export { runSpend, lineageSpend, noSpend, addSpend, type Spend, type UnheldSpend } from './agent/spend.js';
export {
  allowCall,
  denyCall,
  suspendCall,
  type BeforeToolCall,
  type CallContext,
  type CallDecision,
  type InterruptedCallAction,
  type InterruptedCallContext,
  type OnInterruptedCall,
} from './agent/approvals.js';

// ---- tasks: agents as durable services over NATS (docs/guide/agents.md) ----
// The NATS client loads only when one connects.
export {
  TaskServer,
  TaskCaller,
  AgentTaskTool,
  connectTasks,
  startRemoteAgents,
  bindTaskStreams,
  taskRunId,
  callRequestId,
  followTask,
  type TaskServerOptions,
  type ServedTask,
  type TaskRequest,
  type TaskEnd,
  type AskOptions,
  type TaskMessage,
  type Withdrawal,
  type TaskOrigin,
  type RemoteAgent,
  type TaskStreams,
  type BoundTaskStreams,
  type RemoteAgents,
  type FollowOptions,
  type TaskEvents,
} from './agent/tasks/index.js';
// The reference's A2A bodies a task exchanges (docs/reference/a2a.md).
export { A2A_NAMESPACE, MESSAGE_KINDS } from './a2a/protocol.js';
export type {
  RequestMessage,
  AckMessage,
  EventMessage,
  ResultMessage,
  ErrorMessage,
  Budget,
  BodyOf,
  Header,
  Identity,
  EventBlock,
  MessageKind,
  ProtocolOf,
  A2AProtocol,
  Usage as A2AUsage,
  ToolOutcomeFields,
  ExecResult,
} from './a2a/protocol.js';
export { TaskProjection, taskEvents, TASK_END_CODES, type TaskEvent, type TaskProjectionOptions } from './a2a/task-events.js';
export { SuspendReason, type ExecutionLimits } from './agent/runner.js';
export type { Link } from './store/jetstream/connection.js';

// ---- stores: where journals are kept ----------------------------------------
export {
  LISTED_STATUSES,
  listedStatus,
  type Journal,
  type ListedStatus,
  type FoldedRun,
  type LoadedRun,
  type LoadedState,
  type LoadFoldedOptions,
  type LoadStateOptions,
  type ListingOptions,
  type NoteReadOptions,
  type OpenOptions,
  type RecordsOptions,
  type RunInfo,
  type Store,
  type StreamedRecord,
  type WatchOptions,
  type ForkOrigin,
  type RunPlace,
  type StoredLines,
  type CreateFromLinesOptions,
  type WorkspaceStorage,
} from './store/store.js';
export { LiveTextWriter, type LiveText } from './store/live-text.js';
export type { Backend, BackendContext, BackendFactory, HeldRun, NatsSettings, ObjectShelf, OpenedRun, RunNames, RunSummary, StoredRun, StreamOptions, Streamed, WaitListener } from './store/backend.js';
export { JournalStore } from './store/journal-store.js';
export { openStore, registerBackend, backends } from './store/registry.js';
// Each built-in backend as a store, and as a backend a backend of your own can wrap (registerBackend).
export { FileStore, FileBackend, fileBackendFromOptions } from './store/file/file-backend.js';
export { defaultStateDir, runsDir } from './store/file/paths.js';
// The NATS client itself loads only when a JetStream store connects.
export { JetStreamStore, JetStreamBackend, jetStreamBackendFromOptions, type JetStreamStoreOptions } from './store/jetstream/jetstream-store.js';
export { MemoryStore, MemoryBackend, memoryBackendFromOptions } from './store/memory/memory-store.js';
export { newestFirst } from './store/listing.js';
export { resolveRunId } from './store/resolve.js';

// ---- what is done to stored runs --------------------------------------------
export { forkRun, type ForkOptions, type ForkPoint, type Forked } from './store/fork.js';
export { copyRun, type CopiedRun, type CopyOptions } from './store/copy.js';
export { byId, groupLineages, lineageOf, lineageRoot, listLineage, ownFrom, writtenIn, type Lineage, type RunsById } from './store/lineage.js';
export {
  searchRuns,
  searchRun,
  searchedRuns,
  type SearchHit,
  type RunSearchHit,
  type BatchMatcher,
  type RecordTexts,
  type SearchFilter,
  type SearchOptions,
  type SearchRole,
} from './api/search.js';
export { textMatcher, type TextMatcher, type TextMatch } from './core/search.js';
// What a run changed in its workspace (snapshots beside its journal), and a rewind of it (docs/guide/workspace.md).
export {
  runDiff,
  rewindRun,
  undoRewind,
  redoRewind,
  runSnapshots,
  type RunDiff,
  type RunDiffOptions,
  type ChangeSpan,
  type ChangeAuthor,
  type RewindStepKind,
  type CallRef,
  type MissingSnapshot,
  type RewindOptions,
  type RewindPlan,
  type Rewound,
  type UndoOptions,
  type Undone,
  type ChangedFile,
  type FileChange,
  type ChangeStatus,
  type SnapshotNote,
  type SnapshotMoment,
  type RewindNote,
  type WorkspaceSettings,
} from './api/workspace.js';
export { WorkspaceTracker, type WorkspaceSnapshots } from './agent/workspace.js';
export { WorkspaceRepo, TooLarge, WORKSPACE_DEFAULTS, DEFAULT_EXCLUDES, type Snapshot } from './store/workspace/repo.js';
export type { ResumableRun } from './core/gates.js';
export { exportSession, SESSION_FORMATS, type SessionFormat, type SessionExportOptions } from './api/export.js';
// A run's OpenTelemetry trace: the OpenTelemetry packages load only when it is made.
export { runTrace, traceJson, sendTrace, type RunTrace, type RunTraceOptions } from './api/trace.js';
export { OTLP_PROTOCOLS, type OtlpTarget, type OtlpProtocol } from './otel/export.js';

// ---- records: what a journal holds, and what it folds to --------------------
export {
  VERSION,
  PROTOCOL_NAMESPACE,
  PAYLOAD_KINDS,
  PROTOCOL_IDS,
  TERMINAL_REASONS,
  toolUses,
  type JournalRecord,
  type Payload,
  type ReadPayload,
  type PayloadKind,
  type ProtocolId,
  type MetaPayload,
  type AssistantPayload,
  type UserPayload,
  type ToolResultPayload,
  type TerminalPayload,
  type ReadTerminalPayload,
  type TerminalReason,
  type ReadTerminalReason,
  type Message,
  type Role,
  type Block,
  type TextBlock,
  type ThinkingBlock,
  type ToolUseBlock,
  type ToolResultBlock,
  type ToolResultBody,
  type ProviderBlock,
  type Fingerprint,
} from './core/records.js';
// `fold` reads a whole journal; `initialState` (of its meta record) and `step` (one record more) fold a watched run as it comes.
export { fold, initialState, step, type RunState, type RunStatus, type PendingTurn, type Counters } from './core/fold.js';
export { LinesDigest, type ModelCall } from './core/fold-checkpoint.js';
export { requestInputTokens, tokenParts, type TokenParts, type UsageCounts } from './core/usage.js';
// When a run's records became durable (LoadedRun.times, Store.times), and what a run's calls took.
export {
  runTimings,
  callDurations,
  timeSummary,
  toolKey,
  NO_TIMES,
  type RunTimes,
  type RunTimings,
  type CallDurations,
  type TimeSummary,
  type Interval,
  type Step,
  type StepKind,
} from './core/timing.js';
export type { ToolDefinition } from './core/fingerprint.js';
export { RawJson } from './core/raw-json.js';
export { encodeRecord } from './core/encode.js';
export { decodeRecord } from './core/decode.js';
export { parseJournal } from './core/journal-text.js';
export { validateId, isValidId, MAX_ID_LENGTH } from './core/ids.js';
export { validateRecord, recordSchema, type ValidationResult, type RecordSchemaName } from './schema/validate.js';
