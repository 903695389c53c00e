/**
 * One streamed model call, read whole and retried as a unit. An attempt that
 * hears nothing from the server for the idle timeout (no response at all, or
 * no byte of its event stream) is given up as a transient failure and tried
 * again, as a dropped connection is: a server that has stalled holds a call up
 * for the timeout, not for as long as the HTTP client would wait (minutes).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ModelResponse, StreamObserver } from '../provider.js';
import { interrupted, withRetries, type Failure, type RetryListener, type RetryPolicy } from './retry.js';
import { ServerSilent } from './sdk-errors.js';

/** How long an attempt may hear nothing from the server, unless the config's idle_timeout says. */
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

/** Turns one response's events into a ModelResponse; a fresh one per attempt. */
export interface StreamReader<E> {
  add(event: E): void;
  /** Throws when the events did not make a complete response. */
  result(): ModelResponse;
}

export interface StreamingCall<E> {
  providerId: string;
  open(signal: AbortSignal): Promise<AsyncIterable<E>>;
  reader(): StreamReader<E>;
  classify(err: unknown): Failure;
  policy: RetryPolicy;
  /** How long an attempt may hear nothing from the server, in ms. */
  idleTimeoutMs: number;
  /** The config file idle_timeout is set in (else agent.yaml is named), for the message when the server falls silent. */
  configFile?: string | undefined;
  onRetry?: RetryListener | undefined;
  signal?: AbortSignal | undefined;
  /**
   * Told when an attempt failed and another follows (before the retry is
   * announced), so that what the failed one streamed is not taken as the answer.
   */
  observer?: StreamObserver | undefined;
}

/**
 * One attempt's deadline for the next sign of life from the server: its
 * response, then each chunk of its body. Aborts the attempt when it passes,
 * and with the run's signal.
 */
class IdleWatch {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private answered = false;
  /** Set when the deadline passed: the attempt's own abort, not the run's. */
  silent: ServerSilent | undefined;

  constructor(
    private readonly ms: number,
    private readonly outer: AbortSignal | undefined,
    private readonly configFile: string | undefined,
  ) {
    this.timer = setTimeout(() => this.expire(), ms);
    outer?.addEventListener('abort', this.onOuterAbort, { once: true });
    if (outer?.aborted) this.onOuterAbort();
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  private readonly onOuterAbort = (): void => this.controller.abort(this.outer?.reason);

  /** The server answered or sent more: the deadline starts again. */
  alive(): void {
    this.answered = true;
    this.timer.refresh();
  }

  private expire(): void {
    this.silent = new ServerSilent(this.ms, this.answered, this.configFile);
    this.controller.abort(this.silent);
  }

  stop(): void {
    clearTimeout(this.timer);
    this.outer?.removeEventListener('abort', this.onOuterAbort);
  }
}

/** The attempt a request is made for, so the fetch below can tell it that bytes arrive. */
const attempts = new AsyncLocalStorage<IdleWatch>();

/**
 * `fetch` for the SDKs: a response, and every chunk of its body, is a sign of
 * life for the attempt that asked for it. Bytes count, not events, since the
 * SDKs pass on neither the pings nor the comments a server sends to keep a
 * slow stream alive.
 */
export async function watchedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const watch = attempts.getStore();
  const response = await fetch(input, init);
  if (watch === undefined) return response;
  watch.alive();
  if (response.body === null) return response;
  const watched = new Response(watchedBody(response.body, watch), { status: response.status, statusText: response.statusText, headers: response.headers });
  Object.defineProperty(watched, 'url', { value: response.url });
  return watched;
}

/**
 * `body`, each chunk a sign of life as it is read. Pulled chunk by chunk rather
 * than piped through a TransformStream: a pipe's writer, its queues and the
 * modules behind them held a one-shot run's end for milliseconds after the
 * body's last byte. Errors and cancels pass through as a pipe passes them.
 */
function watchedBody(body: ReadableStream<Uint8Array>, watch: IdleWatch): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      watch.alive();
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

export function completeStreaming<E>(call: StreamingCall<E>): Promise<ModelResponse> {
  const { signal } = call;
  const attempt = async (): Promise<ModelResponse> => {
    const watch = new IdleWatch(call.idleTimeoutMs, signal, call.configFile);
    try {
      const stream = await attempts.run(watch, () => call.open(watch.signal));
      const reader = call.reader();
      for await (const event of stream) reader.add(event);
      // The SDKs end an aborted stream quietly rather than throwing.
      if (watch.silent !== undefined) throw watch.silent;
      if (signal?.aborted) throw interrupted(signal.reason);
      return reader.result();
    } catch (err) {
      // Whatever the SDK made of the attempt's abort, the server fell silent.
      if (watch.silent !== undefined && !signal?.aborted) throw watch.silent;
      throw err;
    } finally {
      watch.stop();
    }
  };
  // What the failed attempt streamed is void before the retry is said, so the words and the note come in that order.
  const onRetry = (message: string): void => {
    call.observer?.onRestart?.();
    call.onRetry?.(message);
  };
  return withRetries(call.providerId, attempt, call.classify, call.policy, signal, onRetry);
}
