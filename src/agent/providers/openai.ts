/**
 * The `openai` provider: Chat Completions (not Responses) through the official
 * SDK, always streamed, so any compatible server works: Ollama, vLLM, llama.cpp's
 * server, LM Studio. The base URL is the config's `base_url`, else OPENAI_BASE_URL,
 * else the SDK's default. The key comes from OPENAI_API_KEY (or the variable
 * `apiKeyEnv` names); with a base URL set and OPENAI_API_KEY unset, a placeholder
 * key is sent, since local servers check none (credentials.ts). Retries are ours (see retry.ts).
 */
import { APIConnectionError, APIError, APIUserAbortError, OpenAI } from './openai-sdk.js';
import { baseUrlVariable, listingFailed, type ModelRequest, type ModelResponse, type Provider, type StreamObserver } from '../provider.js';
import { apiKeyOf, checkBaseUrl, envValue } from './credentials.js';
import { apiKeyVariable, type ProviderSettings } from './settings.js';
import { OpenAIStreamReader, toOpenAIParams } from './openai-map.js';
import { DEFAULT_RETRY_POLICY, type Failure, type RetryListener, type RetryPolicy } from './retry.js';
import { classifySdkError, type ApiErrorFields, type ErrorDescription } from './sdk-errors.js';
import { completeStreaming, DEFAULT_IDLE_TIMEOUT_MS, watchedFetch } from './streaming.js';

export { PLACEHOLDER_API_KEY } from './credentials.js';

export interface OpenAIOptions {
  model: string;
  apiKey: string;
  /** Unset: OpenAI itself, the SDK's default. */
  baseUrl?: string;
  retry: RetryPolicy;
  /** How long a call may hear nothing from the server before it is tried again, in ms. */
  idleTimeoutMs?: number;
  /** The config file idle_timeout is set in, for the message of a server that fell silent. */
  configFile?: string;
  onRetry?: RetryListener;
}

export class OpenAIProvider implements Provider {
  readonly id = 'openai';
  readonly model: string;
  private readonly client: OpenAI;
  private readonly retry: RetryPolicy;
  private readonly idleTimeoutMs: number;
  private readonly configFile: string | undefined;
  private readonly onRetry: RetryListener | undefined;
  /** Compatible servers know `max_tokens`; OpenAI's reasoning models want `max_completion_tokens`. */
  private readonly legacyMaxTokens: boolean;

  static fromSettings(settings: ProviderSettings): Provider {
    const baseUrl = settings.baseUrl ?? envValue(baseUrlVariable('openai'), settings.env);
    const keyEnv = apiKeyVariable('openai', settings.apiKeyEnv);
    checkBaseUrl('openai', baseUrl, keyEnv);
    const apiKey = apiKeyOf('openai', keyEnv, settings.apiKeyEnv !== undefined, baseUrl, settings.env);
    return new OpenAIProvider({
      model: settings.model,
      apiKey,
      ...(baseUrl !== undefined ? { baseUrl } : {}),
      retry: settings.retry ?? DEFAULT_RETRY_POLICY,
      ...(settings.idleTimeoutMs !== undefined ? { idleTimeoutMs: settings.idleTimeoutMs } : {}),
      ...(settings.configFile !== undefined ? { configFile: settings.configFile } : {}),
      ...(settings.onRetry !== undefined ? { onRetry: settings.onRetry } : {}),
    });
  }

  constructor(options: OpenAIOptions) {
    this.model = options.model;
    this.retry = options.retry;
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.configFile = options.configFile;
    this.onRetry = options.onRetry;
    this.legacyMaxTokens = options.baseUrl !== undefined;
    this.client = new OpenAI({
      apiKey: options.apiKey,
      ...(options.baseUrl !== undefined ? { baseURL: options.baseUrl } : {}),
      maxRetries: 0,
      fetch: openaiFetch,
    });
  }

  async complete(request: ModelRequest, observer?: StreamObserver): Promise<ModelResponse> {
    const params = toOpenAIParams(request, this.model, { legacyMaxTokens: this.legacyMaxTokens });
    return completeStreaming({
      providerId: this.id,
      open: (signal) => this.client.chat.completions.create(params, { signal: signal ?? null }),
      reader: () => new OpenAIStreamReader(observer),
      classify: classifyOpenAIError,
      policy: this.retry,
      idleTimeoutMs: this.idleTimeoutMs,
      configFile: this.configFile,
      onRetry: this.onRetry,
      signal: request.signal,
      observer,
    });
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    const ids: string[] = [];
    try {
      for await (const model of this.client.models.list({ signal: signal ?? null })) ids.push(model.id);
    } catch (err) {
      throw listingFailed(this.id, err);
    }
    return ids;
  }
}

const SDK_ERRORS = { APIError, APIUserAbortError, APIConnectionError };

/**
 * The SDK reads an error from the body's `error` member alone; some compatible
 * servers (vLLM's older releases) send the error as the body itself,
 * `{"object":"error","message":...,"type":"BadRequestError","code":400}`, which
 * the SDK would report as "(no body)". Such a body reaches the SDK wrapped, as
 * OpenAI sends it, so its message is read (and a refusal for length known).
 */
async function openaiFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await watchedFetch(input, init);
  if (response.ok || !(response.headers.get('content-type') ?? '').includes('json')) return response;
  const text = await response.text();
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.delete('content-encoding');
  return new Response(wrappedFlatError(text) ?? text, { status: response.status, statusText: response.statusText, headers });
}

/** A flat error body (an object with a string `message` and no `error` member) as `{"error": body}`; null for any other body. */
function wrappedFlatError(text: string): string | null {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body) || 'error' in body) return null;
  return typeof (body as { message?: unknown }).message === 'string' ? JSON.stringify({ error: body }) : null;
}

/**
 * The SDK keeps the body's `error` member: `{"message","type","param","code"}` from
 * OpenAI, a bare string from some compatible servers. The code names the cause
 * more precisely than the type (`invalid_api_key`, `rate_limit_exceeded`).
 */
function describe(e: ApiErrorFields): ErrorDescription {
  const body = e.error;
  if (typeof body === 'string') return { message: body };
  const inner = body as { message?: unknown; type?: unknown; code?: unknown } | undefined;
  const name = [inner?.code, inner?.type].find((x): x is string => typeof x === 'string' && x !== '');
  const message = typeof inner?.message === 'string' ? inner.message : e.message;
  const codes = [inner?.code, inner?.type].filter((x): x is string => typeof x === 'string');
  return { ...(name !== undefined ? { type: name } : {}), message, codes };
}

export function classifyOpenAIError(err: unknown): Failure {
  return classifySdkError(err, SDK_ERRORS, describe);
}
