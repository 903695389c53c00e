/**
 * The provider-neutral model interface. A provider turns the journal's message
 * model into its API's and back; everything above it speaks only these types.
 */
import { LogbookError, type Message, type ToolDefinition, type UsageCounts } from '../core/index.js';

/**
 * Whether the model is asked to think (and its thinking journaled): `summarized`
 * (a budget of thinking, or adaptive thinking on a model that deprecates a
 * budget), `adaptive` (the model chooses how much), or `off`.
 */
export type ThinkingSetting = 'off' | 'summarized' | 'adaptive';

/** One model call: the conversation so far and what the model may do. */
export interface ModelRequest {
  /** The system prompt as sent: may carry advisory text that is never fingerprinted. */
  system: string;
  messages: readonly Message[];
  tools: readonly ToolDefinition[];
  maxTokens: number;
  thinking: ThinkingSetting;
  /** Ask the provider to cache the stable prefix. Outside the fingerprint. */
  promptCache: boolean;
  /**
   * `none`: the model is to answer with text alone, told so by the API. The
   * tools are sent all the same: a conversation that holds calls needs their
   * definitions (a compaction's summary call).
   */
  toolChoice?: 'none';
  /** Aborted when the run is being suspended; the call is then simply made again on resume. */
  signal?: AbortSignal;
}

/** The tokens a model call spent. */
export interface Usage {
  inTokens: number;
  outTokens: number;
  /** Undefined when the provider does not report cache usage at all. */
  cacheReadTokens?: number;
  cacheCreateTokens?: number;
}

/** The environment variable a provider's SDK reads its base URL from when the config gives none. */
export function baseUrlVariable(provider: 'anthropic' | 'openai'): string {
  return provider === 'anthropic' ? 'ANTHROPIC_BASE_URL' : 'OPENAI_BASE_URL';
}

/** A call's usage as its assistant record keeps it: the cache counts only where the provider reports them. */
export function journalUsage(u: Usage): UsageCounts {
  return {
    in_tokens: u.inTokens,
    out_tokens: u.outTokens,
    ...(u.cacheReadTokens !== undefined ? { cache_read_tokens: u.cacheReadTokens } : {}),
    ...(u.cacheCreateTokens !== undefined ? { cache_create_tokens: u.cacheCreateTokens } : {}),
  };
}

/** A model call's answer: the assistant message, why the model stopped, and what it spent. */
export interface ModelResponse {
  /** The assistant message, role `assistant`. */
  message: Message;
  /**
   * Normalized stop reason: `end_turn`, `tool_use`, `max_tokens`, `stop_sequence`,
   * `pause_turn`, `refusal`, or a provider's own value passed through.
   */
  stopReason: string;
  usage: Usage;
  /**
   * The calls whose input the model sent as text that is not JSON, by id, with
   * what was wrong: the message holds `{}` for their input, and the run answers
   * them with an error instead of running them.
   */
  invalidToolInputs?: ReadonlyMap<string, string>;
}

/**
 * Streaming progress, for narration; a provider may call none of these. `block`
 * is the index of the response's content block the delta belongs to, so that a
 * listener can join the deltas of two text blocks as the message's text joins
 * them.
 */
export interface StreamObserver {
  /** A piece of the answer as it streams (`block`: which text block of the message it is in). */
  onText?(delta: string, block: number): void;
  /** A piece of thinking as it streams. */
  onThinking?(delta: string, block: number): void;
  /** The attempt in flight failed and the call is made again (a retry after a dropped stream): what was streamed of it so far is void. */
  onRestart?(): void;
  /**
   * What the attempt in flight has spent so far, where its API reports it as it
   * streams (the Messages API at its start and end; Chat Completions at the end):
   * totals of the attempt, each report replacing the one before.
   */
  onUsage?(usage: Usage): void;
}

/** A model, behind one call. Implement it to run a model of your own (or a function, offline): `id` and `model` are in the fingerprint a resume is checked against. */
export interface Provider {
  /** The provider's id, as recorded in the fingerprint (`anthropic`, `openai`, `script`). */
  readonly id: string;
  readonly model: string;
  /** Makes one model call; rejects with `provider` (or `provider_refused`, `provider_auth`) when the API fails, `interrupted` when `request.signal` aborts. */
  complete(request: ModelRequest, observer?: StreamObserver): Promise<ModelResponse>;
  /**
   * Refuses (`config`) settings every call of an agent would be refused for,
   * before any is made: what a config is checked with when it is loaded, by
   * `run` and `serve` alike. Absent: every setting is taken.
   */
  checkSettings?(settings: Pick<ModelRequest, 'maxTokens' | 'thinking'>): void;
  /** The ids of the models its API lists (GET /v1/models), where it can list them; rejects with `provider` when the API does not answer with a list. */
  listModels?(signal?: AbortSignal): Promise<string[]>;
}

/** The error of a model listing that failed, its cause kept. */
export function listingFailed(providerId: string, err: unknown): LogbookError {
  const why = err instanceof Error ? err.message : String(err);
  return new LogbookError('provider', `${providerId}: the API did not list its models (${why})`, { cause: err });
}
