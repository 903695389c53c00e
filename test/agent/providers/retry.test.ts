/** The bounded retry loop shared by the HTTP providers, and the raw JSON splicer. */
import { describe, expect, it } from 'vitest';
import { thinkingBudget } from '../../../src/agent/providers/anthropic-map.js';
import { RawSplicer } from '../../../src/agent/providers/raw-splice.js';
import { retryAfterMs, retryPolicyFromText, withRetries, type Failure } from '../../../src/agent/providers/retry.js';
import { LogbookError } from '../../../src/core/index.js';
import { rejection } from './request.js';

const transient: Failure = { kind: 'transient', label: '503', detail: 'busy' };
const policy = { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 2, maxTotalWaitMs: 100 };

function failing(failures: Failure[], value = 'ok') {
  let calls = 0;
  const attempt = async () => {
    calls++;
    if (calls <= failures.length) throw failures[calls - 1];
    return value;
  };
  return { attempt, calls: () => calls, classify: (f: unknown) => f as Failure };
}

describe('withRetries', () => {
  it('retries transient failures up to the policy, then succeeds', async () => {
    const f = failing([transient, transient, transient]);
    expect(await withRetries('p', f.attempt, f.classify, policy)).toBe('ok');
    expect(f.calls()).toBe(4);
  });

  it('gives up after maxRetries with a one-line provider error', async () => {
    const f = failing([transient, transient, { ...transient, detail: 'still\n  busy' }]);
    const err = await rejection(withRetries('p', f.attempt, f.classify, { ...policy, maxRetries: 2 }));
    expect(err).toBeInstanceOf(LogbookError);
    expect(err.code).toBe('provider');
    expect(err.message).toBe('p failed after 3 attempts (503): still busy');
  });

  it('never quotes the credentials of a URL the error names', async () => {
    for (const failure of [
      { ...transient, detail: 'cannot reach http://u:pw@proxy.test/v1' },
      { kind: 'refused', label: '400', detail: 'bad http://u:pw@proxy.test/v1' },
      { kind: 'fatal', detail: 'broke at http://u:pw@proxy.test/v1' },
    ] as Failure[]) {
      const f = failing([failure]);
      const err = await rejection(withRetries('p', f.attempt, f.classify, { ...policy, maxRetries: 0 }));
      expect(err.message).toContain('http://u:***@proxy.test/v1');
      expect(err.message).not.toContain('pw');
    }
  });

  it('never retries a refusal or a fatal error', async () => {
    const refused = failing([{ kind: 'refused', label: '401 auth', detail: 'no' }]);
    expect((await rejection(withRetries('p', refused.attempt, refused.classify, policy))).message).toBe('p refused the request (401 auth): no');
    expect(refused.calls()).toBe(1);
    const fatal = failing([{ kind: 'fatal', detail: 'bug' }]);
    expect((await rejection(withRetries('p', fatal.attempt, fatal.classify, policy))).message).toBe('p: bug');
    expect(fatal.calls()).toBe(1);
  });

  it('stops rather than wait past the total budget', async () => {
    const f = failing([{ ...transient, retryAfterMs: 50 }, { ...transient, retryAfterMs: 50 }]);
    const err = await rejection(withRetries('p', f.attempt, f.classify, { ...policy, maxDelayMs: 50, maxTotalWaitMs: 60 }));
    expect(err.message).toBe('p failed after 2 attempts (503): busy');
    expect(f.calls()).toBe(2);
  });

  it('passes LogbookErrors through untouched, and turns abort into interrupted', async () => {
    const own = new LogbookError('config', 'bad config');
    expect(await rejection(withRetries('p', () => Promise.reject(own), () => transient, policy))).toBe(own);
    const controller = new AbortController();
    controller.abort();
    const err = await rejection(withRetries('p', async () => 'never', () => transient, policy, controller.signal));
    expect(err.code).toBe('interrupted');
    const aborted = failing([{ kind: 'aborted' }]);
    expect((await rejection(withRetries('p', aborted.attempt, aborted.classify, policy))).code).toBe('interrupted');
  });
});

describe('retry settings', () => {
  it('reads retry-after-ms, retry-after seconds and dates', () => {
    expect(retryAfterMs(new Headers({ 'retry-after-ms': '250' }))).toBe(250);
    expect(retryAfterMs(new Headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(new Headers({ 'retry-after': new Date(0).toUTCString() }))).toBe(0);
    expect(retryAfterMs(new Headers())).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });

  it('takes the retry count from the environment, strictly', () => {
    expect(retryPolicyFromText(undefined, 'LOGBOOK_PROVIDER_MAX_RETRIES').maxRetries).toBe(4);
    expect(retryPolicyFromText('0', 'LOGBOOK_PROVIDER_MAX_RETRIES').maxRetries).toBe(0);
    expect(() => retryPolicyFromText('-1', 'LOGBOOK_PROVIDER_MAX_RETRIES')).toThrow(/LOGBOOK_PROVIDER_MAX_RETRIES must be a whole number/);
  });
});

describe('thinkingBudget', () => {
  it('is half of max_tokens, at least 1024, always below max_tokens', () => {
    expect(thinkingBudget(16000)).toBe(8000);
    expect(thinkingBudget(2048)).toBe(1024);
    expect(thinkingBudget(1500)).toBe(1024);
    expect(thinkingBudget(1025)).toBe(1024);
    expect(() => thinkingBudget(1024)).toThrow(LogbookError);
  });
});

describe('RawSplicer', () => {
  it('puts raw JSON text in place of its slots, anywhere in a document', () => {
    const s = new RawSplicer();
    const doc = { a: s.slot('{"n":1.0}'), list: [s.slot('12345678901234567890'), 'plain'], t: 'x' };
    expect(s.stringify(doc)).toBe('{"a":{"n":1.0},"list":[12345678901234567890,"plain"],"t":"x"}');
  });

  it('leaves strings that merely resemble a slot alone', () => {
    const s = new RawSplicer();
    const slot = s.slot('1.0');
    const stand = (slot as { toJSON(): string }).toJSON();
    const other = new RawSplicer();
    expect(s.stringify({ v: slot, text: `${stand}`.replace(/-[0-9a-f]{8}/, '-00000000') })).toMatch(/^\{"v":1\.0,"text":"\\u0000raw-00000000/);
    expect(other.stringify({ text: stand })).toBe(JSON.stringify({ text: stand }));
  });
});
