/**
 * What the records tell about a call beyond its result: which one a stop may
 * have left running, which one awaits an approval, and which results were
 * given instead of running the tool.
 */
import { describe, expect, it } from 'vitest';
import { RawJson, type Payload } from '../../src/index.js';
import { awaitedCall, awaitingApprovalMessage, batchCalls, deniedResult, interruptedCallMessage, notRerunResult, possiblyStartedCall, stoppedResult, unansweredCalls, withheldKind } from '../../src/core/index.js';
import { call, result, runOf, text, turn } from '../helpers/runs.js';

const batch = turn(0, [text('Deploying.'), call('a', 'note', {}), call('b', 'deploy', {}), call('c', 'note', {})]);
const b = { id: 'b', name: 'deploy', input: RawJson.fromValue({}) };
const suspend = (message?: string): Payload => ({ terminal: { reason: 'suspended', ...(message !== undefined ? { message } : {}) } });

describe('possiblyStartedCall', () => {
  it('is the first unanswered call after a crash: tools of a batch run in order, so no later one can have started', () => {
    expect(possiblyStartedCall(runOf([batch]))?.id).toBe('a');
    expect(possiblyStartedCall(runOf([batch, result('a', 'ok')]))?.id).toBe('b');
  });

  it('is that call after a signal, an error or a suspend that does not say it came before the call', () => {
    for (const end of [suspend(), suspend(interruptedCallMessage(b)), { terminal: { reason: 'error', message: 'disk full' } } as Payload]) {
      expect(possiblyStartedCall(runOf([batch, result('a', 'ok'), end]))?.id).toBe('b');
    }
  });

  it('is none when the last record is the suspend before that very call for its approval', () => {
    const state = runOf([batch, result('a', 'ok'), suspend(`awaiting approval of call b (deploy)`)]);
    expect(possiblyStartedCall(state)).toBeUndefined();
    expect(awaitedCall(state)?.id).toBe('b');
    // A suspend naming another call, or one followed by a record, proves nothing about b.
    expect(possiblyStartedCall(runOf([batch, result('a', 'ok'), suspend('awaiting approval of call a (note)')]))?.id).toBe('b');
    expect(awaitedCall(runOf([batch, suspend('awaiting approval of call b (deploy)')]))).toBeUndefined();
  });

  it('is none with no batch in flight, and for a call that repeats an id (it is never run)', () => {
    expect(possiblyStartedCall(runOf([turn(0, [text('done')])]))).toBeUndefined();
    const repeated = turn(0, [call('x', 'deploy', {}), call('x', 'deploy', {})]);
    expect(possiblyStartedCall(runOf([repeated, result('x', 'ok')]))).toBeUndefined();
  });
});

describe('batchCalls and unansweredCalls', () => {
  it('pair results with calls in order, also when an id repeats', () => {
    const repeated = turn(0, [call('x', 'deploy', { n: 1 }), call('y', 'note', {}), call('x', 'deploy', { n: 2 })]);
    const state = runOf([repeated, result('x', 'first')]);
    expect(batchCalls(state.pending!).map((c) => [c.call.id, c.use, c.result?.content])).toEqual([
      ['x', 1, 'first'],
      ['y', 1, undefined],
      ['x', 2, undefined],
    ]);
    expect(unansweredCalls(state).map((c) => c.id)).toEqual(['y']);
  });
});

describe('results given instead of running the tool', () => {
  it('are error results the model reads, told apart from a tool\'s own', () => {
    expect(deniedResult('b', 'not on Fridays')).toEqual({ tool_use_id: 'b', content: 'denied by the operator: not on Fridays', is_error: true });
    expect(deniedResult('b', '  ')).toEqual({ tool_use_id: 'b', content: 'denied by the operator', is_error: true });
    expect(notRerunResult('b')).toEqual({
      tool_use_id: 'b',
      content: 'not re-run after an interruption; whether it took effect is unknown',
      is_error: true,
    });
    expect(withheldKind(deniedResult('b'))).toBe('denied');
    expect(withheldKind(deniedResult('b', 'why'))).toBe('denied');
    expect(withheldKind(notRerunResult('b'))).toBe('not_rerun');
    expect(withheldKind(stoppedResult('b', true))).toBe('stopped');
    expect(withheldKind(stoppedResult('b', false))).toBe('stopped');
    expect(stoppedResult('b', false)).toEqual({ tool_use_id: 'b', content: 'stopped by the operator before it ran; it was not run', is_error: true });
    expect(withheldKind({ ...deniedResult('b', 'why'), is_error: false })).toBeUndefined();
    expect(withheldKind({ tool_use_id: 'b', content: 'denied by the operators', is_error: true })).toBeUndefined();
  });

  it('name the call in the suspend messages', () => {
    expect(awaitingApprovalMessage(b)).toBe('awaiting approval of call b (deploy)');
    expect(interruptedCallMessage(b)).toBe('interrupted during call b (deploy)');
  });
});
