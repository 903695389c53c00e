/**
 * The rules of tasks that need no server: a budget only lowers an agent's
 * limits (one above them is refused, naming it); a task's run and a sub-task's
 * request are named by derivation, so the same request or the same call gives
 * the same name; the notes beside a task's run read back as written; and the
 * two streams are checked as the journal stream is, each problem with its fix.
 */
import { describe, expect, it } from 'vitest';
import { mintedAt } from '../../../src/a2a/index.js';
import { budgetLimits, budgetProblem, parseGoDuration } from '../../../src/agent/tasks/budget.js';
import {
  callRequestId,
  encodeCancellation,
  encodeTaskOrigin,
  ownFrom,
  parseCancellation,
  parseTaskOrigin,
  taskRunId,
} from '../../../src/agent/tasks/origin.js';
import { eventsStreamAdd, eventsStreamProblems, tasksStreamAdd, tasksStreamProblems } from '../../../src/agent/tasks/streams.js';
import { isValidId } from '../../../src/core/index.js';
import type { StreamShape } from '../../../src/store/jetstream/binding.js';

describe('a request budget', () => {
  const agent = { maxIterations: 20, budget: 50_000 };

  it('reads Go durations', () => {
    expect(parseGoDuration('90s')).toBe(90_000);
    expect(parseGoDuration('1m30s')).toBe(90_000);
    expect(parseGoDuration('1.5h')).toBe(5_400_000);
    expect(parseGoDuration('250ms')).toBe(250);
    expect(parseGoDuration('0')).toBe(0);
    expect(parseGoDuration('-2s')).toBe(-2000);
    // Go's microseconds, in its three spellings (U+00B5 and U+03BC).
    for (const us of ['1500us', '1500\u00b5s', '1500\u03bcs']) expect(parseGoDuration(us)).toBe(1.5);
    for (const bad of ['', '90', 's', '1d', '1 m', '1m x']) expect(parseGoDuration(bad)).toBeNull();
  });

  it('may lower every limit, and is refused above one, naming it', () => {
    expect(budgetProblem(undefined, agent)).toBeNull();
    expect(budgetProblem({ max_iterations: 5, max_tokens: 1000, call_timeout: '30s' }, agent)).toBeNull();
    expect(budgetProblem({ max_iterations: 21 }, agent)).toBe("budget max_iterations 21 is above this agent's limit of 20 model calls");
    expect(budgetProblem({ max_tokens: 50_001 }, agent)).toBe("budget max_tokens 50001 is above this agent's token budget of 50000");
    expect(budgetProblem({ max_tokens: 10 ** 9 }, { maxIterations: 20 })).toBeNull(); // an agent without a budget spends without bound
    expect(budgetProblem({ call_timeout: 'soon' }, agent)).toBe('budget call_timeout "soon" is not a duration (Go\'s: 90s, 2m, 1h30m)');
    expect(budgetProblem({ call_timeout: '-1s' }, agent)).toBe('budget call_timeout -1s is negative');
  });

  it('becomes the execution limits, never journaled', () => {
    expect(budgetLimits({ max_iterations: 5, max_tokens: 1000, call_timeout: '2m' })).toEqual({ maxIterations: 5, budget: 1000, modelCallTimeoutMs: 120_000 });
    expect(budgetLimits({})).toEqual({});
    expect(budgetLimits(undefined)).toEqual({});
  });
});

describe("a task's names", () => {
  it("name the run from the agent and the request, valid everywhere a run id goes", () => {
    expect(taskRunId('probe', '3Msp4n8OJSH2TwVSVhvglPQYBto')).toBe('task-probe-3Msp4n8OJSH2TwVSVhvglPQYBto');
    const odd = taskRunId('probe', 'ä request/with:odd=chars');
    expect(isValidId(odd)).toBe(true);
    expect(odd).toMatch(/^task-[0-9a-f]{40}$/);
    expect(taskRunId('probe', 'ä request/with:odd=chars')).toBe(odd);
    expect(taskRunId('other', 'ä request/with:odd=chars')).not.toBe(odd);
    expect(isValidId(taskRunId('a'.repeat(100), 'b'.repeat(100)))).toBe(true);
  });

  it("name a sub-task's request from the calling run and the call: the same call, the same task", () => {
    const call = { runId: '20261201-101010-abcdef', runCreated: '2026-12-01T10:10:10.5Z', callId: 'toolu_01' };
    const id = callRequestId(call);
    expect(id).toMatch(/^[0-9A-Za-z]{27}$/);
    expect(callRequestId({ ...call })).toBe(id);
    expect(callRequestId({ ...call, callId: 'toolu_02' })).not.toBe(id);
    expect(callRequestId({ ...call, runId: 'another' })).not.toBe(id);
    expect(mintedAt(id)?.toISOString()).toBe('2026-12-01T10:10:10.000Z');
  });

  it('keep an origin and a cancel beside the run as they were', () => {
    const origin = { request: 'r2', conversation: 'r1', sender: 'lead', parent: 'p', agent: 'probe', continues: { run: 'task-probe-r1', at: 4 } };
    expect(parseTaskOrigin(encodeTaskOrigin(origin))).toEqual(origin);
    expect(parseTaskOrigin(encodeTaskOrigin({ request: 'r', conversation: 'r', sender: 's', agent: 'a' }))).toEqual({ request: 'r', conversation: 'r', sender: 's', agent: 'a' });
    expect(parseTaskOrigin('not json')).toBeNull();
    expect(parseTaskOrigin('{"request":1}')).toBeNull();
    expect(ownFrom(origin)).toBe(5);
    expect(ownFrom({})).toBe(2);
    expect(parseCancellation(encodeCancellation({ by: 'lead', reason: 'stop' }))).toEqual({ by: 'lead', reason: 'stop' });
    expect(parseCancellation(encodeCancellation({ by: 'lead' }))).toEqual({ by: 'lead' });
  });
});

describe('the task streams', () => {
  const tasks: StreamShape = { name: 'A2A_TASKS', subjects: ['choria.fisk-ai.task.>'], retention: 'workqueue', discard: 'old', storage: 'file' };
  const events: StreamShape = { name: 'A2A_EVENTS', subjects: ['choria.fisk-ai.events.>'], retention: 'limits', discard: 'old', storage: 'file' };

  it('are fit as the add lines make them, and take what they must', () => {
    expect(tasksStreamProblems(tasks)).toEqual([]);
    expect(tasksStreamProblems(tasks, 'choria.fisk-ai.task.probe')).toEqual([]);
    expect(tasksStreamProblems({ ...tasks, subjects: ['choria.fisk-ai.>'] }, 'choria.fisk-ai.task.probe')).toEqual([]);
    expect(tasksStreamProblems({ ...tasks, subjects: ['choria.fisk-ai.task.probe'] }, 'choria.fisk-ai.task.probe')).toEqual([]);
    expect(tasksStreamProblems({ ...tasks, max_msgs: 100, discard: 'new' })).toEqual([]); // full: a sender is refused, nothing is dropped
    expect(eventsStreamProblems(events)).toEqual([]);
    expect(eventsStreamProblems({ ...events, max_age: 86_400e9, max_bytes: 1e9 })).toEqual([]); // old tasks' events may go
    expect(tasksStreamAdd('A2A_TASKS')).toBe("nats stream add A2A_TASKS --subjects 'choria.fisk-ai.task.>' --retention=work --defaults");
    expect(eventsStreamAdd('A2A_EVENTS')).toBe("nats stream add A2A_EVENTS --subjects 'choria.fisk-ai.events.>' --defaults");
  });

  it.each<[string, Partial<StreamShape>, string]>([
    ['a subject that does not take the agent', { subjects: ['choria.fisk-ai.task.other'] }, "(fix: nats stream edit A2A_TASKS --subjects 'choria.fisk-ai.task.>')"],
    ['subjects that do not take the agent, one of them elsewhere', { subjects: ['other.>', 'choria.fisk-ai.task.other'] }, "(fix: nats stream edit A2A_TASKS --subjects 'other.>' --subjects 'choria.fisk-ai.task.>')"],
    ['limits retention', { retention: 'limits' }, "nats stream rm A2A_TASKS, then nats stream add A2A_TASKS --subjects 'choria.fisk-ai.task.>' --retention=work --defaults"],
    ['a max age', { max_age: 60e9 }, 'nats stream edit A2A_TASKS --max-age=0'],
    ['a limit that drops the oldest tasks', { max_msgs: 10 }, 'nats stream edit A2A_TASKS --max-msgs=-1'],
    ['a per-subject limit that drops the oldest tasks', { max_msgs_per_subject: 1 }, 'nats stream edit A2A_TASKS --max-msgs-per-subject=-1'],
    ['memory storage', { storage: 'memory' }, 'nats stream rm A2A_TASKS, then'],
    ['a small message size', { max_msg_size: 1024 }, 'nats stream edit A2A_TASKS --max-msg-size=-1'],
    ['no acks', { no_ack: true }, 'nats stream edit A2A_TASKS --ack'],
  ])('refuse a tasks stream with %s, with its fix', (_what, change, fix) => {
    const problems = tasksStreamProblems({ ...tasks, ...change }, 'choria.fisk-ai.task.probe');
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(fix);
  });

  it.each<[string, Partial<StreamShape>, string]>([
    ['no subject for events', { subjects: ['other.>'] }, "nats stream edit A2A_EVENTS --subjects 'other.>' --subjects 'choria.fisk-ai.events.>'"],
    ['interest retention', { retention: 'interest' }, 'nats stream rm A2A_EVENTS, then'],
    ['a per-subject limit', { max_msgs_per_subject: 100 }, 'nats stream edit A2A_EVENTS --max-msgs-per-subject=-1'],
    ['a limit that refuses new events once full', { discard: 'new', max_bytes: 1e6 }, 'nats stream edit A2A_EVENTS --max-bytes=-1'],
    ['memory storage', { storage: 'memory' }, 'nats stream rm A2A_EVENTS, then'],
  ])('refuse an events stream with %s, with its fix', (_what, change, fix) => {
    const problems = eventsStreamProblems({ ...events, ...change });
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain(fix);
  });
});
