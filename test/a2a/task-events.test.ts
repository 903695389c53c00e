/**
 * A task's events as the projection of its run's journal: the same records
 * give the same bodies at the same sequences (so an instance that takes a task
 * over publishes what the first would have), every prefix of a journal gives a
 * prefix of the events (so publishing as records become durable is publishing
 * the whole), a continuation's copied turns give nothing, and each way a run
 * can end is the end the binding says, with the codes that need an operator.
 * Every body, once stamped, meets the schemas and the reference's field lists.
 */
import { describe, expect, it } from 'vitest';
import {
  TaskProjection,
  encodeMessage,
  stampTaskReply,
  stampTaskRequest,
  taskEvents,
  type TaskEvent,
  type TaskProjectionOptions,
} from '../../src/a2a/index.js';
import {
  RawJson,
  REFUSAL_MESSAGE,
  awaitingApprovalMessage,
  canceledMessage,
  interruptedCallMessage,
  toByteField,
  type JournalRecord,
  type Payload,
} from '../../src/core/index.js';
import { fixtureBodies, wireProblems } from '../helpers/a2a.js';
import { assistant, at, meta, toolResult } from '../helpers/records.js';

const request = stampTaskRequest({ prompt: 'what is 2+2' }, { id: '3Msp4n8OJSH2TwVSVhvglPQYBto', sender: 'probe-caller', recipient: 'probe' });

/** The records of a run, numbered from 1. */
function run(...payloads: Payload[]): JournalRecord[] {
  return [{ seq: 1, meta: meta('task-probe-1') }, ...payloads.map((p, i) => at(i + 2, p))];
}

const fresh: TaskProjectionOptions = { ownFrom: 2 };

/** The bodies as the server sends them: stamped, encoded. */
const bodies = (events: TaskEvent[]): string[] => events.map((e) => encodeMessage(stampTaskReply(e.kind, e.body as never, request, e.sequence, 'probe')));

const kinds = (events: TaskEvent[]): string[] => events.map((e) => (e.kind === 'event' ? `event:${(e.body as { block: { type: string } }).block.type}` : e.kind));

const answer = (text: string): Payload => ({
  assistant: { iteration: 0, message: { role: 'assistant', content: [{ text: { text } }] }, stop_reason: 'end_turn', in_tokens: 1, out_tokens: 1 },
});

describe("a task's events", () => {
  it("are the reference's own task exchange for a run that answers at once: ack, status, text, result", () => {
    const events = taskEvents(run(answer('probe answer to: what is 2+2'), { terminal: { reason: 'completed' } }), fresh);
    expect(events.map((e) => e.sequence)).toEqual([1, 2, 3, 4]);
    const fixture = fixtureBodies()
      .filter((b) => JSON.parse(b.body).request === request.id && b.dir === 'in')
      .map((b) => JSON.parse(b.body) as Record<string, unknown>);
    const ours = bodies(events).map((b) => JSON.parse(b) as Record<string, unknown>);
    const own = (m: Record<string, unknown>): Record<string, unknown> => {
      const { id: _i, time: _t, ...rest } = m;
      return rest;
    };
    // The same messages, sequence for sequence; the status event also says what the call spent.
    expect(ours.map(own)).toEqual(
      fixture.map(own).map((m) => ('block' in m && (m.block as { type: string }).type === 'status' ? { ...m, block: { ...(m.block as object), usage: { input_tokens: 1, output_tokens: 1 } } } : m)),
    );
    expect(wireProblems(bodies(events))).toEqual([]);
  });

  it('follow the journal record by record: tool calls, command results with exec, thinking, and the end with the whole task\'s text and usage', () => {
    const records = run(
      {
        assistant: {
          iteration: 0,
          message: {
            role: 'assistant',
            content: [
              { thinking: { text: 'hmm', signature: toByteField('sig-1') } },
              { text: { text: 'Let me look.' } },
              { tool_use: { id: 'c1', name: 'echo', input: RawJson.fromText('{"text":"hi"}') } },
              { tool_use: { id: 'c2', name: 'fail', input: RawJson.fromText('{}') } },
              { provider: { kind: 'server_tool_use', raw: RawJson.fromText('{"x":1}') } },
            ],
          },
          stop_reason: 'tool_use',
          in_tokens: 100,
          out_tokens: 20,
        },
      },
      toolResult('c1', JSON.stringify({ command: ['printf', '%s', 'hi there'], exit_code: 0, output: 'hi there' })),
      { tool_result: { tool_use_id: 'c2', result: { tool_use_id: 'c2', content: JSON.stringify({ command: ['sh', '-c', 'exit 3'], exit_code: 3, output: 'nope' }), is_error: true } } },
      { assistant: { iteration: 1, message: { role: 'assistant', content: [{ text: { text: 'Done.' } }] }, stop_reason: 'end_turn', in_tokens: 130, out_tokens: 5 } },
      { terminal: { reason: 'completed' } },
    );
    const events = taskEvents(records, fresh);
    expect(kinds(events)).toEqual([
      'ack',
      'event:status',
      'event:thinking',
      'event:text',
      'event:tool_call',
      'event:tool_call',
      'event:tool_result',
      'event:tool_result',
      'event:status',
      'event:text',
      'result',
    ]);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    const blocks = events.flatMap((e) => (e.kind === 'event' ? [e.body.block] : []));
    expect(blocks[1]).toEqual({ type: 'thinking', text: 'hmm', signature: 'sig-1', provider: 'script' });
    expect(blocks[5]).toEqual({ type: 'tool_result', call_id: 'c1', output: 'hi there', exec: { command: "printf %s 'hi there'" } });
    // A command that exited non-zero ran: the reference serves it as a result with its exit code, not as a harness error.
    expect(blocks[6]).toEqual({ type: 'tool_result', call_id: 'c2', output: 'nope', exec: { command: "sh -c 'exit 3'", exit_code: 3 } });
    expect(events.at(-1)!.body).toEqual({ stop_reason: 'end_turn', text: 'Done.', usage: { input_tokens: 230, output_tokens: 25 } });
    expect(wireProblems(bodies(events))).toEqual([]);
  });

  it('are the same whatever prefix of the journal they are made from: each record adds its own events', () => {
    const records = run(assistant(0, ['a', 'b']), toolResult('a'), toolResult('b'), assistant(1, ['c']), toolResult('c'), answer('fine'), { terminal: { reason: 'completed' } });
    const whole = bodies(taskEvents(records, fresh)).map((b) => b.replace(/"id":"[^"]+",/, '').replace(/"time":"[^"]+",/, ''));
    for (let n = 1; n <= records.length; n++) {
      const part = bodies(taskEvents(records.slice(0, n), fresh)).map((b) => b.replace(/"id":"[^"]+",/, '').replace(/"time":"[^"]+",/, ''));
      expect(whole.slice(0, part.length)).toEqual(part);
    }
    // One record at a time, as a server publishes them, is the same again.
    const projection = new TaskProjection(fresh);
    const stepwise = records.flatMap((r) => projection.push(r));
    expect(stepwise).toEqual(taskEvents(records, fresh));
    expect(projection.ended).toBe(true);
  });

  it("of a conversation's continuation start at its own records: the turns it copied are earlier tasks'", () => {
    const copied = run(assistant(0, ['a']), toolResult('a'), answer('first answer'));
    const follow: Payload = { user: { message: { role: 'user', content: [{ text: { text: 'and then?' } }] } } };
    const records = [...copied, at(5, follow), at(6, { assistant: { iteration: 2, message: { role: 'assistant', content: [{ text: { text: 'second' } }] }, stop_reason: 'end_turn', in_tokens: 7, out_tokens: 3 } }), at(7, { terminal: { reason: 'completed' } })];
    const events = taskEvents(records, { ownFrom: 5 });
    expect(kinds(events)).toEqual(['ack', 'event:status', 'event:text', 'result']);
    expect(events[1]!.body).toEqual({ block: { type: 'status', iteration: 3, phase: 'calling-llm', usage: { input_tokens: 7, output_tokens: 3 } } });
    expect(events.at(-1)!.body).toEqual({ stop_reason: 'end_turn', text: 'second', usage: { input_tokens: 7, output_tokens: 3 } });
  });

  it('end at the first end of the task: what an operator does with the run later is no longer the task', () => {
    const call = { id: 'c1', name: 'deploy', input: RawJson.fromText('{}') };
    const records = run(assistant(0, ['c1']), { terminal: { reason: 'suspended', message: interruptedCallMessage(call) } }, toolResult('c1'), answer('later'), { terminal: { reason: 'completed' } });
    const events = taskEvents(records.map((r) => ('assistant' in r && r.seq === 2 ? { ...r, assistant: { ...r.assistant, message: { role: 'assistant' as const, content: [{ tool_use: { ...call } }] } } } : r)), fresh);
    expect(kinds(events)).toEqual(['ack', 'event:status', 'event:tool_call', 'error']);
    expect(events.at(-1)!.body).toEqual({ stop_reason: 'suspended', error: interruptedCallMessage(call), code: 'interrupted_call' });
  });

  const endOf = (...tail: Payload[]): TaskEvent => taskEvents(run(...tail), fresh).at(-1)!;

  it('end as the binding says for each way a run ends', () => {
    expect(endOf(answer('x'), { terminal: { reason: 'budget', message: 'token budget spent' } }).body).toMatchObject({ stop_reason: 'budget_exhausted', text: 'x' });
    expect(endOf(assistant(0, ['a']), toolResult('a'), { terminal: { reason: 'max_iterations', message: 'stopped after 1 model calls' } }).body).toMatchObject({ stop_reason: 'max_iterations' });
    expect(endOf({ terminal: { reason: 'suspended' } })).toMatchObject({ kind: 'result', body: { stop_reason: 'suspended' } });
    expect(endOf({ terminal: { reason: 'suspended', message: canceledMessage('lead', 'not needed') } })).toMatchObject({
      kind: 'error',
      body: { stop_reason: 'canceled', error: 'canceled by lead: not needed', code: 'canceled' },
    });
    const deploy = { id: 'd1', name: 'echo', input: RawJson.fromText('{"n":1.0,"big":12345678901234567890}') };
    expect(endOf(assistant(0, ['d1']), { terminal: { reason: 'suspended', message: awaitingApprovalMessage(deploy) } }).body).toEqual({
      stop_reason: 'suspended',
      error: awaitingApprovalMessage(deploy),
      code: 'awaiting_approval',
    });
    expect(endOf(assistant(0, ['d1']), { terminal: { reason: 'suspended', message: interruptedCallMessage(deploy) } }).body).toMatchObject({ code: 'interrupted_call' });
    expect(endOf({ terminal: { reason: 'suspended', message: 'tool server mcp__fs stopped answering' } }).body).toEqual({ stop_reason: 'suspended', error: 'tool server mcp__fs stopped answering' });
    const refusal: Payload = { assistant: { iteration: 0, message: { role: 'assistant', content: [{ text: { text: 'no' } }] }, stop_reason: 'refusal', in_tokens: 1, out_tokens: 1 } };
    expect(endOf(refusal, { terminal: { reason: 'error', message: REFUSAL_MESSAGE } }).body).toEqual({ stop_reason: 'refusal', error: REFUSAL_MESSAGE });
    expect(endOf({ terminal: { reason: 'error', message: 'the API is down' } }).body).toEqual({ stop_reason: 'error', error: 'the API is down' });
    expect(endOf({ terminal: { reason: 'paused' } as never }).body).toEqual({ stop_reason: 'error', error: 'the run ended paused' });
    const cut: Payload = { assistant: { iteration: 0, message: { role: 'assistant', content: [{ text: { text: 'half' } }] }, stop_reason: 'max_tokens', in_tokens: 1, out_tokens: 1 } };
    expect(endOf(cut, { terminal: { reason: 'completed' } }).body).toMatchObject({ stop_reason: 'max_tokens', text: 'half' });
  });

  it('without a stream are the ack and the end alone, numbered 1 and 2', () => {
    const events = taskEvents(run(assistant(0, ['a']), toolResult('a'), answer('fine'), { terminal: { reason: 'completed' } }), { ownFrom: 2, stream: false });
    expect(kinds(events)).toEqual(['ack', 'result']);
    expect(events.map((e) => e.sequence)).toEqual([1, 2]);
  });

  it("say agent_call for a call that hands another agent a task, naming the task's request", () => {
    const records = run({
      assistant: {
        iteration: 0,
        message: { role: 'assistant', content: [{ tool_use: { id: 'k1', name: 'ask_research', input: RawJson.fromText('{"prompt":"find it"}') } }] },
        stop_reason: 'tool_use',
        in_tokens: 1,
        out_tokens: 1,
      },
    });
    const events = taskEvents(records, { ownFrom: 2, agentCall: (name, id) => (name === 'ask_research' ? { agent: 'researcher', task: `task-of-${id}` } : undefined) });
    expect(events.at(-1)!.body).toEqual({ block: { type: 'agent_call', id: 'k1', name: 'researcher', task: 'task-of-k1' } });
    expect(wireProblems(bodies(events))).toEqual([]);
  });

  it('cut a text too long for one body, on a character, saying the rest is in the journal', () => {
    const long = 'ü'.repeat(600_000);
    const events = taskEvents(run(answer(long), { terminal: { reason: 'completed' } }), fresh);
    const encoded = bodies(events);
    for (const b of encoded) expect(Buffer.byteLength(b)).toBeLessThanOrEqual(768 * 1024);
    const text = (events[2]!.body as { block: { text: string } }).block.text;
    expect(text.endsWith("\n[cut: the rest is in the run's journal]")).toBe(true);
    expect(long.startsWith(text.split('\n')[0]!)).toBe(true);
    expect(wireProblems(encoded)).toEqual([]);
  });
});
