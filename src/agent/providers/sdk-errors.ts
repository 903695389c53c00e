/**
 * Classifies the errors of the official SDKs, which share one error design: an
 * `APIError` with the HTTP status (none when the error arrived inside an event
 * stream), a connection error, and a user-abort error.
 */
import type { Failure } from './retry.js';
import { retryAfterMs } from './retry.js';

type ErrorClass = abstract new (...args: never[]) => Error;

export interface SdkErrorClasses {
  APIError: ErrorClass;
  APIUserAbortError: ErrorClass;
  APIConnectionError: ErrorClass;
}

/** The status, headers and body an SDK's APIError carries. */
export interface ApiErrorFields {
  status: number | undefined;
  headers: Headers | undefined;
  error: unknown;
  message: string;
}

/** An API's own name and text for an error, from its JSON body. */
export interface ErrorDescription {
  type?: string;
  message: string;
  /** Every code and type the body gives (`type`, `code`), for recognising the refusal of a request too long. */
  codes?: readonly string[];
}

/**
 * The codes and types a server refuses a request longer than the context
 * window with: OpenAI's (and Groq's), and llama.cpp's server's, which it sends
 * from its Chat Completions and its Messages API alike.
 */
const TOO_LONG_CODES = new Set(['context_length_exceeded', 'exceed_context_size_error']);

/**
 * The words of those that send no such code: Anthropic's two (`prompt is too
 * long: ...`, `input length and \`max_tokens\` exceed context limit: ...`),
 * the older OpenAI, vLLM, OpenRouter and DeepSeek (`This model's maximum
 * context length is 8192 tokens. However, ...`), llama.cpp's (`the request
 * exceeds the available context size`).
 */
const TOO_LONG_WORDS = /^prompt is too long\b|\bexceed context limit\b|\bmaximum context length is\b|\bexceeds the available context size\b/i;

/**
 * Whether an API's refusal says the request is longer than the model's context
 * window, whichever provider's API the server speaks and whichever shape its
 * body has: one rule for every provider.
 */
export function refusedAsTooLong(description: ErrorDescription): boolean {
  return (description.codes ?? []).some((c) => TOO_LONG_CODES.has(c)) || TOO_LONG_WORDS.test(description.message);
}

/** Error types an API may send inside a stream that another attempt can fix. */
const TRANSIENT_STREAM_TYPES = new Set([
  'overloaded_error',
  'api_error',
  'rate_limit_error',
  'rate_limit_exceeded',
  'server_error',
  'timeout_error',
]);

/** A response that ended before it was complete: worth another attempt. */
export class IncompleteResponse extends Error {
  override readonly name = 'IncompleteResponse';
}

/** The server sent nothing for the idle timeout: no response yet, or no more of its stream. Worth another attempt. */
export class ServerSilent extends Error {
  override readonly name = 'ServerSilent';
  readonly label: string;
  /** `configFile`: where idle_timeout is set, named in the message (agent.yaml when not given). */
  constructor(ms: number, answered: boolean, configFile = 'agent.yaml') {
    const seconds = `${ms / 1000}s`;
    const key = `idle_timeout in ${configFile}`;
    super(answered ? `no event for ${seconds} (${key})` : `no response for ${seconds} (${key})`);
    this.label = answered ? 'stream stalled' : 'no response';
  }
}

export function classifySdkError(
  err: unknown,
  sdk: SdkErrorClasses,
  describe: (e: ApiErrorFields) => ErrorDescription,
): Failure {
  if (err instanceof sdk.APIUserAbortError || (err instanceof Error && err.name === 'AbortError')) return { kind: 'aborted' };
  if (err instanceof sdk.APIConnectionError) {
    // The SDK's own message ("Connection error.") only repeats the label: the cause says what failed.
    const cause = err.cause instanceof Error && err.cause.message !== err.message ? causeChain(err.cause) : undefined;
    return { kind: 'transient', label: 'connection error', detail: cause ?? err.message };
  }
  if (err instanceof IncompleteResponse) return { kind: 'transient', label: 'incomplete response', detail: err.message };
  if (err instanceof ServerSilent) return { kind: 'transient', label: err.label, detail: err.message };
  // undici's words for a response body cut off under the reader: the connection dropped mid-stream.
  if (err instanceof TypeError && err.message === 'terminated') {
    const cause = err.cause instanceof Error ? `: ${causeChain(err.cause)}` : '';
    return { kind: 'transient', label: 'connection dropped', detail: `the response stream was cut off${cause}` };
  }
  if (err instanceof sdk.APIError) {
    const fields = err as unknown as ApiErrorFields;
    const description = describe(fields);
    const { type, message } = description;
    const tooLong = refusedAsTooLong(description);
    const status = fields.status;
    const label = [status, type].filter((x) => x !== undefined && x !== '').join(' ') || 'stream error';
    const transient =
      status === undefined
        ? type === undefined || TRANSIENT_STREAM_TYPES.has(type)
        : status === 408 || status === 409 || status === 429 || status >= 500;
    return transient
      ? { kind: 'transient', label, detail: message, retryAfterMs: retryAfterMs(fields.headers) }
      : { kind: 'refused', label, detail: message, ...(status !== undefined ? { status } : {}), ...(tooLong ? { tooLong } : {}) };
  }
  return { kind: 'fatal', detail: err instanceof Error ? err.message : String(err) };
}

/** `fetch failed: connect ECONNREFUSED 127.0.0.1:9`, from an error and its causes. */
function causeChain(err: Error): string {
  const parts = [err.message];
  let cause = err.cause;
  while (cause instanceof Error && parts.length < 4) {
    parts.push(cause.message);
    cause = cause.cause;
  }
  return parts.join(': ');
}
