/**
 * What an assistant record's usage counts, per provider, in one place. The
 * Messages API (and the script provider, which imitates it) counts the input
 * read from and written to its prompt cache apart from `input_tokens`; Chat
 * Completions' `prompt_tokens`, which logbook journals as `in_tokens`, already
 * holds its `cached_tokens` (journaled as `cache_read_tokens`). Everything that
 * sizes a request or prices it reads the counters through here.
 */
import type { AssistantPayload } from './records.js';

/** The usage fields of one model call, or the sums of several. */
export type UsageCounts = Pick<AssistantPayload, 'in_tokens' | 'out_tokens' | 'cache_read_tokens' | 'cache_create_tokens'>;

/** The providers whose `in_tokens` already holds the cached input. */
const CACHE_INSIDE_INPUT = new Set(['openai']);

/** One call's tokens split as they are priced: uncached input, cache reads, cache writes, output. */
export interface TokenParts {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

/** A call's usage split as it is priced; where a provider counts cached tokens inside the input (OpenAI), they are taken out of it. */
export function tokenParts(provider: string, usage: UsageCounts): TokenParts {
  const cacheRead = usage.cache_read_tokens ?? 0;
  const cacheWrite = usage.cache_create_tokens ?? 0;
  const input = CACHE_INSIDE_INPUT.has(provider) ? Math.max(0, usage.in_tokens - cacheRead - cacheWrite) : usage.in_tokens;
  return { input, cacheRead, cacheWrite, output: usage.out_tokens };
}

/** The whole input of one request, its cached part included: how much of the context window it filled. */
export function requestInputTokens(provider: string, usage: UsageCounts): number {
  const p = tokenParts(provider, usage);
  return p.input + p.cacheRead + p.cacheWrite;
}
