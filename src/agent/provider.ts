/**
 * The provider-neutral model interface. A provider turns the journal's message
 * model into its API's and back; everything above it speaks only these types.
 */
import type { Message, ToolDefinition } from '../core/index.js';

export type ThinkingSetting = 'off' | 'summarized';

export interface ModelRequest {
  /** The system prompt as sent: may carry advisory text that is never fingerprinted. */
  system: string;
  messages: readonly Message[];
  tools: readonly ToolDefinition[];
  maxTokens: number;
  thinking: ThinkingSetting;
  /** Ask the provider to cache the stable prefix. Outside the fingerprint. */
  promptCache: boolean;
  /** Aborted when the run is being suspended; the call is then simply made again on resume. */
  signal?: AbortSignal;
}

export interface Usage {
  inTokens: number;
  outTokens: number;
  /** Undefined when the provider does not report cache usage at all. */
  cacheReadTokens?: number;
  cacheCreateTokens?: number;
}

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
  onText?(delta: string, block: number): void;
  onThinking?(delta: string, block: number): void;
  /** The call is being made again (a retry after a dropped stream): what was streamed of it so far is void. */
  onRestart?(): void;
}

export interface Provider {
  /** The provider's id, as recorded in the fingerprint (`anthropic`, `openai`, `script`). */
  readonly id: string;
  readonly model: string;
  complete(request: ModelRequest, observer?: StreamObserver): Promise<ModelResponse>;
}
