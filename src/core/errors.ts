/**
 * Every failure a caller may want to branch on carries a stable `code`; the
 * message is for people and may change. Codes are part of the public API.
 */
export type ErrorCode =
  // stores
  | 'not_found'
  | 'exists'
  | 'invalid_id'
  /** A meta record that names another run than the one it is created as. */
  | 'invalid_meta'
  | 'locked'
  | 'seq_gap'
  /** An append to a journal that was already closed (a caller's mistake). */
  | 'journal_closed'
  /**
   * The journal a writer holds was removed or replaced under it (what it writes
   * is kept nowhere), or one a watch follows was removed, replaced or cut short.
   */
  | 'journal_gone'
  /** A file system operation failed: read-only, full, permissions. */
  | 'io'
  /** A server the store needs did not answer: NATS down, no stream leader, a timeout. */
  | 'unavailable'
  /** A stream that is missing or cannot hold journals, with the `nats` command that fixes it. */
  | 'stream_config'
  /** A stream, or its account or server, refused a record for want of room: which limit, and how to raise it. */
  | 'stream_full'
  /** The native lock addon is not built. */
  | 'addon_missing'
  /** A run's workspace could not be snapshotted, diffed or restored (git missing, a snapshot absent, a file that cannot be written). */
  | 'workspace'
  /** A rewind (or its undo) refused before it changed anything: a path in the workspace holds what the snapshot does not track, in its way. */
  | 'workspace_conflict'
  // reading and folding a journal
  | 'empty'
  | 'no_meta'
  | 'version'
  | 'corrupt'
  /** A run of which no times are kept (written by the reference, copied, or its times note gone), asked for what needs them: its trace. */
  | 'untimed'
  /** Some runs could not be read by a command that went on past them (a search); each was named. */
  | 'unreadable'
  /** A search pattern that ran past its deadline over one record, or that the engine could not run to its end. */
  | 'regex_limit'
  // resume gates, in the order they run
  | 'already_completed'
  | 'interactivity_mismatch'
  | 'provider_changed'
  | 'config_drift'
  /** A follow-up to a run that is not waiting for one (a tool batch or a model call is due). */
  | 'not_at_input'
  /** A call with side effects may have started before the run stopped: a resume must be told to run it again or skip it. */
  | 'interrupted_call'
  /** An approval, denial, re-run or skip names a call the run is not waiting on. */
  | 'unknown_call'
  // configuration and wiring
  | 'usage'
  | 'config'
  | 'unknown_backend'
  | 'backend_options'
  // the agent
  /** The model API failed: unreachable or failing after every retry, or a malformed answer. */
  | 'provider'
  /** The model API refused the request for good (a 4xx that is not a rate limit): the same request gets the same answer. */
  | 'provider_refused'
  /** No API key is set where one is needed, or the model API refused the credentials (401, 403). */
  | 'provider_auth'
  /**
   * The model API refused a request as longer than the model's context window
   * (Anthropic's `prompt is too long`, Chat Completions' `context_length_exceeded`),
   * or a conversation compacted still does not fit in it.
   */
  | 'context_exceeded'
  /** A run that was compacted into a continuation: it goes on there, and the message names it. */
  | 'compacted'
  /** A compaction asked for inside a tool batch: the batch is finished first (a resume finishes it). */
  | 'in_tool_batch'
  /** A compaction asked for of a run with nothing to summarize: its first turn alone (a continuation's summary), no model turn since. */
  | 'nothing_to_compact'
  /** A paid step refused before it was paid (a compaction's summary call): the run's token budget is spent. */
  | 'budget_reached'
  /** The same at a spend cap (budget_usd, lineage_budget_usd). */
  | 'spend_cap_reached'
  /** An MCP tool server that did not start, or stopped answering (see src/agent/tools/mcp). */
  | 'tool_server'
  | 'interrupted'
  // agents over NATS (src/a2a)
  /** An A2A body refused: over the size limit, not valid against its schema, of another protocol than its path carries, or not understood where it must be. */
  | 'invalid_message'
  /** Another agent did not answer: no responders for its identity, or no reply before the deadline. */
  | 'agent_unavailable'
  /** Another agent answered with an error (a micro service error header). */
  | 'agent_refused'
  /** Nothing foreseen: a bug. The original error is kept as the cause. */
  | 'internal';

/**
 * What an error is about, where it is about one run or one call: for a program
 * to act on (resume that run, resolve that call) without reading the message.
 */
export interface ErrorDetails {
  /** The run the error concerns. */
  runId?: string;
  /** The tool call it concerns (its id, as the model gave it). */
  callId?: string;
  /** Where a compacted run's conversation goes on: its continuation's run id (`compacted`). */
  continuation?: string;
}

/**
 * The one error type logbook throws. Its message says what is wrong, for a
 * person reading a program's log; it names no command to type (the `logbook`
 * command adds that, keyed on the code). Branch on `code`, never on the message.
 */
export class LogbookError extends Error {
  override readonly name = 'LogbookError';
  /** The run and call it concerns, when it concerns one. */
  readonly details: ErrorDetails;
  constructor(
    /** Stable: part of the public API. */
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown; details?: ErrorDetails },
  ) {
    super(message, options?.cause !== undefined ? { cause: options.cause } : undefined);
    this.details = options?.details ?? {};
  }
}

/** True when `err` is a LogbookError, and when `code` is given, one with that code. */
export function isLogbookError(err: unknown, code?: ErrorCode): err is LogbookError {
  return err instanceof LogbookError && (code === undefined || err.code === code);
}
