/**
 * The `anthropic` provider: the Messages API through the official SDK, always
 * streamed. The key comes from ANTHROPIC_API_KEY (or the variable `apiKeyEnv`
 * names); with a base URL set and ANTHROPIC_API_KEY unset, a placeholder key is
 * sent, as local servers check none (credentials.ts). The base URL is the
 * config's `base_url`, else ANTHROPIC_BASE_URL, else the SDK's default.
 * Retries are ours (see retry.ts), so the SDK's are off.
 */
import { APIConnectionError, APIError, APIUserAbortError, SdkClient, type Middleware } from './anthropic-sdk.js';
import { baseUrlVariable, listingFailed, type ModelRequest, type ModelResponse, type Provider, type StreamObserver } from '../provider.js';
import { AnthropicStreamReader, prefersAdaptiveThinking, thinkingBudget, toAnthropicParams } from './anthropic-map.js';
import { apiKeyOf, checkBaseUrl, envValue } from './credentials.js';
import { apiKeyVariable, type ProviderSettings } from './settings.js';
import { RawSplicer } from './raw-splice.js';
import { DEFAULT_RETRY_POLICY, type Failure, type RetryListener, type RetryPolicy } from './retry.js';
import { classifySdkError, type ApiErrorFields, type ErrorDescription } from './sdk-errors.js';
import { withSdkWarnings, type SdkWarningListener } from './sdk-warnings.js';
import { completeStreaming, DEFAULT_IDLE_TIMEOUT_MS, watchedFetch } from './streaming.js';

export interface AnthropicOptions {
  model: string;
  apiKey: string;
  /** Unset: the SDK's default. */
  baseUrl?: string;
  retry: RetryPolicy;
  /** How long a call may hear nothing from the server before it is tried again, in ms. */
  idleTimeoutMs?: number;
  /** The config file idle_timeout is set in, for the message of a server that fell silent. */
  configFile?: string;
  onRetry?: RetryListener;
  /** Told what the SDK warns of (sdk-warnings.ts). */
  onWarning?: SdkWarningListener;
}

export class AnthropicProvider implements Provider {
  readonly id = 'anthropic';
  readonly model: string;
  private readonly client: SdkClient;
  private readonly retry: RetryPolicy;
  private readonly idleTimeoutMs: number;
  private readonly configFile: string | undefined;
  private readonly onRetry: RetryListener | undefined;
  private readonly onWarning: SdkWarningListener | undefined;

  static fromSettings(settings: ProviderSettings): Provider {
    const keyEnv = apiKeyVariable('anthropic', settings.apiKeyEnv);
    const baseUrl = settings.baseUrl ?? envValue(baseUrlVariable('anthropic'), settings.env);
    checkBaseUrl('anthropic', baseUrl, keyEnv);
    const apiKey = apiKeyOf('anthropic', keyEnv, settings.apiKeyEnv !== undefined, baseUrl, settings.env);
    return new AnthropicProvider({
      model: settings.model,
      apiKey,
      ...(baseUrl !== undefined ? { baseUrl } : {}),
      retry: settings.retry ?? DEFAULT_RETRY_POLICY,
      ...(settings.idleTimeoutMs !== undefined ? { idleTimeoutMs: settings.idleTimeoutMs } : {}),
      ...(settings.configFile !== undefined ? { configFile: settings.configFile } : {}),
      ...(settings.onRetry !== undefined ? { onRetry: settings.onRetry } : {}),
      ...(settings.onWarning !== undefined ? { onWarning: settings.onWarning } : {}),
    });
  }

  constructor(options: AnthropicOptions) {
    this.model = options.model;
    this.retry = options.retry;
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.configFile = options.configFile;
    this.onRetry = options.onRetry;
    this.onWarning = options.onWarning;
    this.client = new SdkClient({
      apiKey: options.apiKey,
      ...(options.baseUrl !== undefined ? { baseURL: options.baseUrl } : {}),
      maxRetries: 0,
      fetch: watchedFetch,
      openTelemetry: false,
    });
  }

  checkSettings(settings: Pick<ModelRequest, 'maxTokens' | 'thinking'>): void {
    // A budget is half of max_tokens; a model that thinks adaptively instead needs none.
    if (settings.thinking === 'summarized' && !prefersAdaptiveThinking(this.model)) thinkingBudget(settings.maxTokens);
  }

  async complete(request: ModelRequest, observer?: StreamObserver): Promise<ModelResponse> {
    const splicer = new RawSplicer();
    const params = toAnthropicParams(request, this.model, splicer);
    // The SDK serializes the body; the stand-ins for raw JSON are swapped in after.
    const splice: Middleware = (req, next) => next(typeof req.body === 'string' ? { ...req, body: splicer.splice(req.body) } : req);
    return completeStreaming({
      providerId: this.id,
      open: (signal) => withSdkWarnings(() => this.client.messages.create(params, { signal: signal ?? null, middleware: [splice] }), this.onWarning),
      reader: () => new AnthropicStreamReader(observer),
      classify: classifyAnthropicError,
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
      for await (const model of this.client.models.list({ limit: 100 }, { signal: signal ?? null })) ids.push(model.id);
    } catch (err) {
      throw listingFailed(this.id, err);
    }
    return ids;
  }
}

const SDK_ERRORS = { APIError, APIUserAbortError, APIConnectionError };

/**
 * The API's error body is `{"type":"error","error":{"type":...,"message":...}}`;
 * a compatible server may send its own shape (llama.cpp's server sends
 * OpenAI's, `{"error":{"type","code","message"}}`, from its Messages API too),
 * or the error as the body itself.
 */
function describe(e: ApiErrorFields): ErrorDescription {
  const body = e.error as { error?: unknown; type?: unknown; message?: unknown } | undefined;
  const inner = (typeof body?.error === 'object' && body.error !== null ? body.error : body) as { type?: unknown; code?: unknown; message?: unknown } | undefined;
  const type = typeof inner?.type === 'string' && inner.type !== 'error' ? inner.type : undefined;
  const message = typeof inner?.message === 'string' ? inner.message : typeof body?.error === 'string' ? body.error : e.message;
  const codes = [inner?.type, inner?.code].filter((x): x is string => typeof x === 'string');
  return { ...(type !== undefined ? { type } : {}), message, codes };
}

export function classifyAnthropicError(err: unknown): Failure {
  return classifySdkError(err, SDK_ERRORS, describe);
}
