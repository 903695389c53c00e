/**
 * A task over A2A on HTTP as the projection of its run's journal: the same
 * records give the same Task and the same events (so a restarted server, or
 * another instance, says what the first one did); projecting a journal record
 * by record gives, at every point, the Task a reader of that prefix gets; a
 * context's continuation shows only its own records; and each way a run rests
 * is the A2A state the guide's table says.
 */
import { TaskState } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import { SERVER_STOPPED, TaskJournalProjection, projectTask } from '../../../src/a2a/http/projection.js';
import { RawJson, awaitingApprovalMessage, canceledMessage, interruptedCallMessage, type JournalRecord, type Payload } from '../../../src/core/index.js';
import { assistant, at, completed, meta, toolResult } from '../../helpers/records.js';

const id = { taskId: 't1', contextId: 'c1', ownFrom: 2 };

function run(...payloads: Payload[]): { record: JournalRecord; time: number }[] {
  return [{ seq: 1, meta: meta('task-a-t1') }, ...payloads.map((p, i) => at(i + 2, p))].map((record) => ({ record, time: 1_700_000_000_000 + record.seq * 1000 }));
}

const stateOf = (...tail: Payload[]) => projectTask(id, run(...tail)).task!.status!.state;

describe('a task projected from its run', () => {
  it('is the same Task and events from the same records, and every prefix gives the Task its reader gets', () => {
    const records = run(assistant(0, ['a']), toolResult('a'), assistant(1, [], 'done'), completed);
    const one = projectTask(id, records);
    expect(projectTask(id, records)).toEqual(one);
    expect(one.events.map((e) => e.kind)).toEqual(['task', 'statusUpdate', 'statusUpdate', 'statusUpdate', 'artifactUpdate', 'statusUpdate']);
    expect(one.task!.history.map((m) => m.messageId)).toEqual(['t1.1', 't1.2', 't1.3', 't1.4']);
    expect(one.task!.artifacts[0]!.parts[0]!.content).toEqual({ $case: 'text', value: 'done' });
    expect(one.task!.status!.timestamp).toBe(new Date(1_700_000_000_000 + 5000).toISOString());
    const live = new TaskJournalProjection(id);
    records.forEach((r, i) => {
      live.push(r.record, r.time);
      expect(live.task).toEqual(projectTask(id, records.slice(0, i + 1)).task);
    });
  });

  it("shows a context's continuation from its own records: its follow-up prompt, then its turns", () => {
    const records = run(assistant(0, [], 'first answer'), completed, { user: { message: { role: 'user', content: [{ text: { text: 'and then?' } }] } } }, assistant(1, [], 'second'), completed);
    const { task } = projectTask({ ...id, ownFrom: 4 }, records);
    expect(task!.history.map((m) => m.parts[0]!.content!.value)).toEqual(['and then?', 'second']);
    expect(task!.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it('rests in the state each end of a run means', () => {
    const call = { id: 'a', name: 'echo', input: RawJson.fromText('{"n":1.0,"big":12345678901234567890}') };
    expect(stateOf(assistant(0, [], 'x'), completed)).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(stateOf(assistant(0, [], 'x'), { terminal: { reason: 'budget', message: 'spent' } })).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(stateOf(assistant(0, ['a']), { terminal: { reason: 'suspended', message: awaitingApprovalMessage(call) } })).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(stateOf(assistant(0, ['a']), { terminal: { reason: 'suspended', message: interruptedCallMessage(call) } })).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(stateOf({ terminal: { reason: 'suspended', message: canceledMessage('an A2A client') } })).toBe(TaskState.TASK_STATE_CANCELED);
    expect(stateOf({ terminal: { reason: 'suspended', message: SERVER_STOPPED } })).toBe(TaskState.TASK_STATE_WORKING);
    expect(stateOf({ terminal: { reason: 'error', message: 'the API is down' } })).toBe(TaskState.TASK_STATE_FAILED);
    // after a final state, what a later resume by an operator adds is no longer the task's
    const after = projectTask(id, run({ terminal: { reason: 'error', message: 'x' } }, assistant(0, [], 'later'), completed));
    expect(after.task!.status!.state).toBe(TaskState.TASK_STATE_FAILED);
    // an approval answered goes on from INPUT_REQUIRED to the end
    expect(stateOf(assistant(0, ['a']), { terminal: { reason: 'suspended', message: awaitingApprovalMessage(call) } }, toolResult('a'), assistant(1, [], 'ok'), completed)).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});
