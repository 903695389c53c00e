/**
 * One bounded retry loop for every HTTP provider. The SDKs' own retries are turned
 * off: they honour any `retry-after` a server sends, however long, and they cannot
 * retry an error that arrives inside an event stream. Here the number of attempts,
 * each wait and the total wait are all capped, and every wait ends on abort.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { LogbookError, redactUrlCredentials } from '../../core/index.js';

/** How often and how long a failed model call is tried again. */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  /** First backoff; doubled per retry, with up to 25% jitter taken off. */
  baseDelayMs: number;
  /** Cap on one backoff, and on a server's `retry-after`. */
  maxDelayMs: number;
  /** Give up rather than wait past this in total. */
  maxTotalWaitMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 4,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  maxTotalWaitMs: 60_000,
};

/** A policy with `text` retries, as given in an environment variable named `name`; the default when unset. */
export function retryPolicyFromText(text: string | undefined, name: string): RetryPolicy {
  if (text === undefined || text === '') return DEFAULT_RETRY_POLICY;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 20) {
    throw new LogbookError('config', `${name} must be a whole number from 0 to 20, not "${text}"`);
  }
  return { ...DEFAULT_RETRY_POLICY, maxRetries: n };
}

/** Told, before each wait, why an attempt failed and that another follows: one line, for a person. */
export type RetryListener = (message: string) => void;

/** What one failed attempt means, as a provider classifies its SDK's error. */
export type Failure =
  | { kind: 'aborted' }
  /** Worth another attempt: 429, 5xx, overloaded, a dropped connection or stream. */
  | { kind: 'transient'; label: string; detail: string; retryAfterMs?: number }
  /** The API said no; another attempt would get the same answer. */
  | { kind: 'refused'; label: string; detail: string; status?: number; tooLong?: boolean }
  /** Not the API's answer at all (a bug, a malformed response): reported as is. */
  | { kind: 'fatal'; detail: string };

export function interrupted(cause?: unknown): LogbookError {
  return new LogbookError('interrupted', 'model call interrupted', { cause });
}

/** Folds whitespace so a server's multi-line message still makes one line. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** A failure's detail as a message says it: one line, any URL in it without its credentials (an SDK's message may quote the request's). */
function detailText(detail: string): string {
  return oneLine(redactUrlCredentials(detail));
}

/**
 * Runs `attempt` until it succeeds, a failure is not transient, or the policy is
 * spent. Throws LogbookError `interrupted` on abort, `provider` otherwise.
 */
export async function withRetries<T>(
  providerId: string,
  attempt: () => Promise<T>,
  classify: (err: unknown) => Failure,
  policy: RetryPolicy,
  signal?: AbortSignal,
  onRetry?: RetryListener,
): Promise<T> {
  let waited = 0;
  for (let retry = 0; ; retry++) {
    if (signal?.aborted) throw interrupted(signal.reason);
    let failure: Failure;
    try {
      return await attempt();
    } catch (err) {
      if (err instanceof LogbookError) throw err;
      failure = signal?.aborted ? { kind: 'aborted' } : classify(err);
      if (failure.kind === 'aborted') throw interrupted(err);
      if (failure.kind === 'refused') {
        if (failure.tooLong === true) {
          throw new LogbookError('context_exceeded', `${providerId} refused the request as longer than the model's context window (${failure.label}): ${detailText(failure.detail)}`, {
            cause: err,
          });
        }
        const code = failure.status === 401 || failure.status === 403 ? 'provider_auth' : 'provider_refused';
        throw new LogbookError(code, `${providerId} refused the request (${failure.label}): ${detailText(failure.detail)}`, {
          cause: err,
        });
      }
      if (failure.kind === 'fatal') throw new LogbookError('provider', `${providerId}: ${detailText(failure.detail)}`, { cause: err });
      const delay = backoff(policy, retry, failure.retryAfterMs);
      if (retry >= policy.maxRetries || waited + delay > policy.maxTotalWaitMs) {
        const tries = retry + 1;
        throw new LogbookError(
          'provider',
          `${providerId} failed after ${tries} attempt${tries === 1 ? '' : 's'} (${failure.label}): ${detailText(failure.detail)}`,
          { cause: err },
        );
      }
      onRetry?.(`${providerId}: ${failure.label}: ${detailText(failure.detail)}; trying again (attempt ${retry + 2} of ${policy.maxRetries + 1})`);
      try {
        await sleep(delay, undefined, { signal });
      } catch (abort) {
        throw interrupted(abort);
      }
      waited += delay;
    }
  }
}

function backoff(policy: RetryPolicy, retry: number, retryAfterMs: number | undefined): number {
  if (retryAfterMs !== undefined && retryAfterMs >= 0) return Math.min(retryAfterMs, policy.maxDelayMs);
  const exp = Math.min(policy.baseDelayMs * 2 ** retry, policy.maxDelayMs);
  return Math.round(exp * (1 - Math.random() * 0.25));
}

/** A server's `retry-after-ms` or `retry-after` (seconds or an HTTP date), in ms. */
export function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Number(ms);
  const after = headers?.get('retry-after');
  if (!after) return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds * 1000;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
