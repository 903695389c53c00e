/**
 * What each JetStream API error means to the backend, for the errors servers
 * answer publishes with (their codes and descriptions as nats-server 2.9 and
 * 2.12 send them, in the client's own error class). The servers themselves
 * give them in full-stream.test.ts, failures.test.ts and the failover tests.
 */
import { JetStreamApiError } from '@nats-io/jetstream';
import { describe, expect, it } from 'vitest';
import { apiRefusal, apiVerdict, mayBeStored, type StoreLimit } from '../../../src/store/jetstream/api-errors.js';

const refusal = (err_code: number, description: string): JetStreamApiError => new JetStreamApiError({ code: 400, err_code, description });

describe('JetStream API errors', () => {
  it.each<[string, number, string, ReturnType<typeof apiVerdict>, StoreLimit | null]>([
    ['the fence: another last sequence', 10071, 'wrong last sequence: 7', 'fenced', null],
    ['the subject already holding its one message', 10077, 'maximum messages per subject exceeded', 'fenced', null],
    ["the stream's max_bytes", 10077, 'maximum bytes exceeded', 'full', 'max_bytes'],
    ["the stream's max_msgs", 10077, 'maximum messages exceeded', 'full', 'max_msgs'],
    ["the stream's max_msg_size, from its store", 10077, 'message too large', 'too_large', null],
    ["the stream's max_msg_size", 10054, 'message size exceeds maximum allowed', 'too_large', null],
    ["the account's limit", 10002, 'resource limits exceeded for account', 'full', 'account'],
    ["the server's limit", 10023, 'insufficient resources', 'full', 'server'],
    ["the server's storage", 10047, 'insufficient storage resources available', 'full', 'server'],
    ['no meta leader', 10008, 'JetStream system temporarily unavailable', 'leaderless', null],
    ['a stream offline', 10118, 'stream is offline', 'leaderless', null],
    ['the same message still being replicated (2.11+)', 10158, 'duplicate message id is in process', 'leaderless', null],
    ['a publish fenced alike still being replicated (2.11+)', 10164, 'wrong last sequence', 'leaderless', null],
    ['any other store failure', 10077, 'something else', 'other', null],
    ['anything else', 10039, 'jetstream not enabled for account', 'other', null],
  ])('%s (%d %s) is %s', (_what, code, description, verdict, limit) => {
    const err = refusal(code, description);
    expect(apiVerdict(err)).toBe(verdict);
    expect(apiRefusal(err)).toEqual(limit === null ? { verdict } : { verdict, limit });
  });

  it('is no verdict for what is not an API error', () => {
    expect(apiVerdict(new Error('timeout'))).toBeNull();
    expect(apiVerdict(undefined)).toBeNull();
  });

  it('takes a publish that went unanswered, or is still being replicated, as maybe stored; a refusal as not', () => {
    expect(mayBeStored(Object.assign(new Error('timeout'), { name: 'TimeoutError' }))).toBe(true);
    expect(mayBeStored(refusal(10158, 'duplicate message id is in process'))).toBe(true);
    expect(mayBeStored(refusal(10164, 'wrong last sequence'))).toBe(true);
    expect(mayBeStored(refusal(10077, 'maximum bytes exceeded'))).toBe(false);
    expect(mayBeStored(refusal(10071, 'wrong last sequence: 7'))).toBe(false);
  });
});
