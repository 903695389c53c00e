/** Shared builders for the provider tests. */
import type { ModelRequest } from '../../../src/agent/provider.js';
import type { RetryPolicy } from '../../../src/agent/providers/retry.js';

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
