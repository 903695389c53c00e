/** One streamed model call, read whole and retried as a unit. */
import type { ModelResponse } from '../provider.js';
import { interrupted, withRetries, type Failure, type RetryPolicy } from './retry.js';

/** Turns one response's events into a ModelResponse; a fresh one per attempt. */
export interface StreamReader<E> {
  add(event: E): void;
  /** Throws when the events did not make a complete response. */
  result(): ModelResponse;
}

export interface StreamingCall<E> {
  providerId: string;
  open(signal: AbortSignal | undefined): Promise<AsyncIterable<E>>;
  reader(): StreamReader<E>;
  classify(err: unknown): Failure;
  policy: RetryPolicy;
  signal?: AbortSignal | undefined;
}

export function completeStreaming<E>(call: StreamingCall<E>): Promise<ModelResponse> {
  const { signal } = call;
  const attempt = async (): Promise<ModelResponse> => {
    const stream = await call.open(signal);
    const reader = call.reader();
    for await (const event of stream) reader.add(event);
    // The SDKs end an aborted stream quietly rather than throwing.
    if (signal?.aborted) throw interrupted(signal.reason);
    return reader.result();
  };
  return withRetries(call.providerId, attempt, call.classify, call.policy, signal);
}
