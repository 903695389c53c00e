/**
 * A task over A2A 1.0 as the pure projection of its run's journal: the same
 * records (and the times kept beside them) always give the same Task and the
 * same events, numbered in order, so a server that restarts, or another
 * instance that takes the run over, derives exactly what the first one sent,
 * and an event a client names by its number is found again.
 *
 * - The record that asks the task (the meta record's prompt, or for a
 *   continuation of a context the user record of its follow-up) gives the
 *   `task` event: state SUBMITTED, the prompt as the history's user message.
 * - Each assistant record gives a WORKING status whose message holds its text
 *   and, as data parts, its tool calls; each tool result a WORKING status whose
 *   message holds it. These messages are the task's history after the prompt.
 * - A terminal record gives the status its end means (TASK_STATES_BY_END):
 *   a completed run (and a budget or iteration limit reached) first an
 *   artifact `answer` with the last text, then COMPLETED; a call awaiting an
 *   approval, or cut short with side effects, INPUT_REQUIRED saying which call
 *   and how to answer; a canceled run CANCELED; an error FAILED. After a final
 *   state nothing more belongs to the task.
 *
 * Records before `ownFrom` are a context's earlier tasks': folded, never shown.
 */
import type { Artifact, Message, Part, Task, TaskStatus } from '@a2a-js/sdk';
import { Role, TaskState } from '@a2a-js/sdk';
import type { AgentExecutionEvent } from '@a2a-js/sdk/server';
import {
  REFUSAL_MESSAGE,
  awaitedCall,
  commandEnvelope,
  shellQuote,
  initialState,
  interruptedCallMessage,
  isCanceledMessage,
  messageText,
  possiblyStartedCall,
  restsOnRefusal,
  step,
  type Block,
  type JournalRecord,
  type ReadTerminalPayload,
  type RunState,
  type ToolResultBody,
} from '../../core/index.js';

/** What names a task beside its records. */
export interface TaskIdentity {
  taskId: string;
  contextId: string;
  /** The first seq of the run that is this task's own (2, or the seq after a continuation's cut). */
  ownFrom: number;
}

/** The suspend message of a run whose server stopped under it: it goes on when it is served again. */
export const SERVER_STOPPED = 'the A2A server serving this task stopped; it goes on when the agent is served again';

/**
 * The metadata key every event (and every Task read) carries its number under:
 * the count of the task's events up to it, the SSE event id a client names in
 * `Last-Event-ID` to have every event after it again.
 */
export const EVENT_NUMBER = 'logbookEvent';

/** The id of the artifact holding a task's answer. */
export const ANSWER_ARTIFACT = 'answer';

/** Final states: nothing follows them. */
const FINAL = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);

export function isFinalState(state: TaskState | undefined): boolean {
  return state !== undefined && FINAL.has(state);
}

/** Folds a task's run record by record into its Task and the events each record adds. */
export class TaskJournalProjection {
  private state: RunState | null = null;
  private snapshot: Task | null = null;
  private events = 0;
  private lastText = '';
  private lastTime = 0;

  constructor(private readonly id: TaskIdentity) {}

  /** The task as its records so far say; null before the record that asks it. */
  get task(): Task | null {
    if (this.snapshot === null) return null;
    const task = structuredClone(this.snapshot);
    task.metadata = { ...task.metadata, [EVENT_NUMBER]: this.events };
    return task;
  }

  /** The number of events projected so far: the last one's number. */
  get eventCount(): number {
    return this.events;
  }

  /** Whether the task reached a final state. */
  get final(): boolean {
    return isFinalState(this.snapshot?.status?.state);
  }

  /** The run's fold so far. */
  get runState(): RunState | null {
    return this.state;
  }

  /** The events `record` adds (often none); `time`, ms since the epoch, is when it became durable. */
  push(record: JournalRecord, time?: number): AgentExecutionEvent[] {
    const at = time ?? this.lastTime;
    if (time !== undefined) this.lastTime = time;
    if (this.state === null) {
      this.state = initialState(record);
      if ('meta' in record && this.lastTime === 0) this.lastTime = Date.parse(record.meta.created) || 0;
      if ('meta' in record && this.id.ownFrom <= 2) return this.open(record.meta.prompt, record.seq, at || this.lastTime);
      return [];
    }
    this.state = step(this.state, record);
    if (record.seq < this.id.ownFrom || this.final) return [];
    if (this.snapshot === null) {
      if ('user' in record) return this.open(messageText(record.user.message), record.seq, at);
      return [];
    }
    if ('assistant' in record) {
      const text = messageText(record.assistant.message);
      if (text !== '') this.lastText = text;
      const parts = record.assistant.message.content.flatMap((b) => blockParts(b));
      return [this.status(TaskState.TASK_STATE_WORKING, parts.length > 0 ? this.message(record.seq, parts) : undefined, at)];
    }
    if ('tool_result' in record) {
      const part = dataPart({ toolResult: toolResultData(record.tool_result.result, record.tool_result.remote === true) });
      return [this.status(TaskState.TASK_STATE_WORKING, this.message(record.seq, [part]), at)];
    }
    if ('terminal' in record) return this.end(record.terminal, record.seq, at);
    return [];
  }

  private open(prompt: string, seq: number, at: number): AgentExecutionEvent[] {
    const user: Message = { ...this.message(seq, [textPart(prompt)]), role: Role.ROLE_USER };
    this.snapshot = {
      id: this.id.taskId,
      contextId: this.id.contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: iso(at) },
      artifacts: [],
      history: [user],
      metadata: {},
    };
    return [this.count({ kind: 'task', data: structuredClone(this.snapshot) })];
  }

  private count(event: AgentExecutionEvent): AgentExecutionEvent {
    this.events++;
    if (event.kind !== 'message') event.data.metadata = { ...event.data.metadata, [EVENT_NUMBER]: this.events };
    return event;
  }

  private message(seq: number, parts: Part[]): Message {
    return {
      messageId: `${this.id.taskId}.${seq}`,
      contextId: this.id.contextId,
      taskId: this.id.taskId,
      role: Role.ROLE_AGENT,
      parts,
      metadata: { seq },
      extensions: [],
      referenceTaskIds: [],
    };
  }

  private status(state: TaskState, message: Message | undefined, at: number): AgentExecutionEvent {
    const status: TaskStatus = { state, message, timestamp: iso(at) };
    const task = this.snapshot!;
    task.status = structuredClone(status);
    if (message !== undefined) task.history.push(structuredClone(message));
    return this.count({ kind: 'statusUpdate', data: { taskId: task.id, contextId: task.contextId, status, metadata: {} } });
  }

  private end(terminal: ReadTerminalPayload, seq: number, at: number): AgentExecutionEvent[] {
    const state = this.state!;
    const said = (text: string): Message => this.message(seq, [textPart(text)]);
    const message = terminal.message ?? '';
    switch (terminal.reason) {
      case 'completed':
      case 'budget':
      case 'max_iterations': {
        const note = terminal.reason === 'completed' ? undefined : said(terminal.reason === 'budget' ? `the task's budget is spent${message ? `: ${message}` : ''}` : 'the task reached its iteration limit');
        return [this.answer(), this.status(TaskState.TASK_STATE_COMPLETED, note, at)];
      }
      case 'suspended': {
        if (isCanceledMessage(message)) return [this.status(TaskState.TASK_STATE_CANCELED, said(message), at)];
        if (message === SERVER_STOPPED) return [this.status(TaskState.TASK_STATE_WORKING, said(message), at)];
        const awaited = awaitedCall(state);
        if (awaited !== undefined) {
          return [this.status(TaskState.TASK_STATE_INPUT_REQUIRED, this.question(seq, `call ${awaited.id} (${awaited.name}) needs an approval`, awaited), at)];
        }
        const cut = possiblyStartedCall(state);
        if (cut !== undefined && message === interruptedCallMessage(cut)) {
          return [this.status(TaskState.TASK_STATE_INPUT_REQUIRED, this.question(seq, `call ${cut.id} (${cut.name}) may have taken effect before the run stopped: approve runs it again, deny skips it`, cut), at)];
        }
        return [this.status(TaskState.TASK_STATE_FAILED, said(message || 'the run was suspended'), at)];
      }
      case 'error':
        if (message === REFUSAL_MESSAGE && restsOnRefusal(state)) return [this.status(TaskState.TASK_STATE_FAILED, said(message), at)];
        return [this.status(TaskState.TASK_STATE_FAILED, said(message || 'the run failed'), at)];
      default:
        return [this.status(TaskState.TASK_STATE_FAILED, said(`the run ended ${terminal.reason}${message ? `: ${message}` : ''}`), at)];
    }
  }

  /** The INPUT_REQUIRED message: what is asked, the call, and the answers it takes. */
  private question(seq: number, text: string, call: { id: string; name: string; input: { text: string } }): Message {
    return this.message(seq, [
      textPart(`${text}; answer on this task with "approve" or "deny" (or a data part {"approval": "approve" | "deny"})`),
      dataPart({ approval: { callId: call.id, tool: call.name, input: parseInput(call.input.text) } }),
    ]);
  }

  private answer(): AgentExecutionEvent {
    const artifact: Artifact = { artifactId: ANSWER_ARTIFACT, name: 'answer', description: '', parts: [textPart(this.lastText)], metadata: {}, extensions: [] };
    const task = this.snapshot!;
    task.artifacts = [structuredClone(artifact)];
    return this.count({ kind: 'artifactUpdate', data: { taskId: task.id, contextId: task.contextId, artifact, append: false, lastChunk: true, metadata: {} } });
  }
}

/** The number an event (or a Task) carries, when it is one of a projection's. */
export function eventNumber(event: AgentExecutionEvent): number | undefined {
  const n = (event.data.metadata as Record<string, unknown> | undefined)?.[EVENT_NUMBER];
  return typeof n === 'number' ? n : undefined;
}

/** The task `records` make, with every event on the way. */
export function projectTask(id: TaskIdentity, records: Iterable<{ record: JournalRecord; time?: number }>): { task: Task | null; events: AgentExecutionEvent[] } {
  const p = new TaskJournalProjection(id);
  const events: AgentExecutionEvent[] = [];
  for (const { record, time } of records) events.push(...p.push(record, time));
  return { task: p.task, events };
}

function iso(ms: number): string {
  return new Date(ms > 0 ? ms : Date.now()).toISOString();
}

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

function dataPart(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

function parseInput(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/**
 * A tool result as a data part carries it: a command's output with its command
 * and exit code (as the journal's envelope has them), any other result as its
 * content; an error, and a call another agent answered (`remote`), said so.
 */
function toolResultData(r: ToolResultBody, remote: boolean): Record<string, unknown> {
  const ran = commandEnvelope(r.content);
  const flags = { ...(r.is_error ? { isError: true } : {}), ...(remote ? { remote: true } : {}) };
  if (ran === null) return { callId: r.tool_use_id, output: r.content, ...flags };
  return {
    callId: r.tool_use_id,
    output: ran.output,
    command: typeof ran.command === 'string' ? ran.command : shellQuote(ran.command),
    ...(ran.exitCode !== null ? { exitCode: ran.exitCode } : {}),
    ...(ran.timedOut ? { timedOut: true } : {}),
    ...(ran.signal !== undefined ? { signal: ran.signal } : {}),
    ...(ran.error !== undefined ? { error: ran.error } : {}),
    ...(ran.truncated ? { truncated: true } : {}),
    ...flags,
  };
}

function blockParts(b: Block): Part[] {
  if ('text' in b) return b.text.text === '' ? [] : [textPart(b.text.text)];
  if ('tool_use' in b) return [dataPart({ toolCall: { id: b.tool_use.id, name: b.tool_use.name, input: parseInput(b.tool_use.input.text) } })];
  return [];
}
