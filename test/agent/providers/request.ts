/** Shared builders and hooks for the provider tests. */
import { afterAll, afterEach, beforeAll, expect, vi } from 'vitest';
import type { ModelRequest } from '../../../src/agent/provider.js';
import type { RetryPolicy } from '../../../src/agent/providers/retry.js';
import { LogbookError } from '../../../src/core/index.js';
import type { RecordedRequest } from '../../helpers/fake-api-server.js';

/** What these helpers need of a fake API, whatever its replies. */
interface Fake {
  readonly requests: RecordedRequest[];
  waitForRequests(count: number): Promise<void>;
  reset(): void;
  close(): Promise<void>;
}

/** Runs one fake API for the test file, handed to `use`; reset, and env stubs undone, after each test. */
export function useFake<T extends Fake>(start: () => Promise<T>, use: (api: T) => void): void {
  let api: T | undefined;
  beforeAll(async () => {
    api = await start();
    use(api);
  });
  afterAll(async () => {
    await api?.close();
  });
  afterEach(() => {
    api?.reset();
    vi.unstubAllEnvs();
  });
}

/** Aborts the call once the server holds its request: it must fail `interrupted` and hang up. */
export async function expectAbortHangsUp(api: Fake, run: (signal: AbortSignal) => Promise<unknown>): Promise<void> {
  const controller = new AbortController();
  const call = run(controller.signal);
  await api.waitForRequests(1);
  controller.abort();
  const err = await rejection(call);
  expect(err).toBeInstanceOf(LogbookError);
  expect(err.code).toBe('interrupted');
  await api.requests[0]!.closedEarly; // the HTTP request really was cancelled
}

/** Retries without real waiting: tests stay fast and never time anything. */
export const FAST_RETRY: RetryPolicy = { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 5, maxTotalWaitMs: 1_000 };

export function modelRequest(overrides: Partial<ModelRequest> = {}): ModelRequest {
  return {
    system: 'You are a test.',
    messages: [{ role: 'user', content: [{ text: { text: 'hello' } }] }],
    tools: [],
    maxTokens: 4096,
    thinking: 'off',
    promptCache: false,
    ...overrides,
  };
}

/** The rejection of `promise`, which must reject. */
export async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the promise to reject');
}

/** A loopback port nothing listens on. */
export async function deadPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}
