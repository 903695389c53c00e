/**
 * A task's events: the pure projection of its run's journal onto the A2A
 * stream, defined here once. The same records always give the same event
 * bodies at the same sequence numbers, so an instance that takes a task over
 * from one that died derives exactly what that one published, and publishes
 * only what is missing (each with `Nats-Msg-Id` = `<request>-<sequence>`, so a
 * publish made twice is one message).
 *
 * Sequence 1 is the `ack`, made by the run's meta record. Then, for the run's
 * own records (a conversation's continuation holds its earlier turns first,
 * which are earlier tasks' and give nothing): per assistant record a `status`
 * event (its iteration, counted from 1, and its tokens) and one event per
 * block (text, thinking, a tool call, or an `agent_call` for a call that asks
 * another agent); per tool result a `tool_result` event; at the first
 * terminal record the end, a `result` or an `error`, after which the task is
 * over (a run resumed later by an operator is no longer this task). A request
 * that asked for no stream gets the ack and the end only. Headers (id, time,
 * addressing) are stamped when an event is sent; what is projected is each
 * body and its sequence.
 */
import {
  RawJson,
  quote,
  awaitedCall,
  commandEnvelope,
  shellQuote,
  fromByteField,
  initialState,
  interruptedCallMessage,
  isCanceledMessage,
  messageText,
  possiblyStartedCall,
  restsOnRefusal,
  step,
  REFUSAL_MESSAGE,
  type Block,
  type JournalRecord,
  type RunState,
  type ReadTerminalPayload,
  type ToolResultBody,
} from '../core/index.js';
import { encodeMessage } from './encode.js';
import { MAX_MESSAGE_BYTES, type BodyOf, type EventBlock, type Header, type StopReason, type Usage } from './protocol.js';
import { stampTaskReply } from './stamp.js';

/** One projected message: its kind, its own fields, and its place in the task's stream. */
export type TaskEvent =
  | { sequence: number; kind: 'ack'; body: BodyOf<'ack'> }
  | { sequence: number; kind: 'event'; body: BodyOf<'event'> }
  | { sequence: number; kind: 'result'; body: BodyOf<'result'> }
  | { sequence: number; kind: 'error'; body: BodyOf<'error'> };

/** The `code` of a task's error end that the journal itself tells (docs/reference/a2a.md). */
export const TASK_END_CODES = {
  /** Canceled: the run is suspended, naming who canceled it. */
  canceled: 'canceled',
  /** A call with side effects may have been cut short: an operator says whether to run it again. */
  interruptedCall: 'interrupted_call',
  /** A call waits for an operator's approval. */
  awaitingApproval: 'awaiting_approval',
  /**
   * The task was taken before (its stream has begun) by an instance whose store
   * this one does not reach: its run is elsewhere, and starting over could run a
   * call with side effects twice. The instances must share a store.
   */
  runNotInStore: 'run_not_in_store',
} as const;

/** Where a task's own records begin in its run, and what the projection names. */
export interface TaskProjectionOptions {
  /**
   * The first seq of the run that is this task's own: 2 for a task whose run it
   * started, the seq after the cut for a conversation's continuation (the
   * records before are the conversation's earlier tasks').
   */
  ownFrom: number;
  /** Whether the caller asked for the events (the request's `stream`, absent = true): without them, the ack and the end alone. */
  stream?: boolean;
  /**
   * For a tool call that asks another agent to do a task: that agent's identity
   * and the task's request id (the call is an `agent_call`); undefined for any
   * other call.
   */
  agentCall?: (toolName: string, callId: string) => { agent: string; task: string } | undefined;
}

/** Room a header takes beside a block, at most: a body whose block would pass the size limit with it is cut. */
export const HEADER_ROOM = 8 * 1024;
const BLOCK_LIMIT = MAX_MESSAGE_BYTES - HEADER_ROOM;
/** The most of a body a command run by a tool takes beside its output. */
const COMMAND_LIMIT = 16 * 1024;

/**
 * Whether every message of a task can echo `request`'s header (its ids,
 * conversation and parent, as the encoder writes them) within the room a body
 * leaves for it: a request that cannot is refused before anything is run.
 */
export function headerFits(request: Header, sender: string): boolean {
  return Buffer.byteLength(encodeMessage(stampTaskReply('ack', { accepted: true }, request, 1, sender)), 'utf8') <= HEADER_ROOM;
}

/** Folds a task's run record by record and says what each adds to the task's stream. */
export class TaskProjection {
  private state: RunState | null = null;
  private sequence = 0;
  private over = false;
  /** The task's own spend, and its last answer. */
  private readonly usage = { input_tokens: 0, output_tokens: 0 };
  private lastText = '';

  constructor(private readonly options: TaskProjectionOptions) {}

  /** Whether the task's end has been projected: nothing more belongs to it. */
  get ended(): boolean {
    return this.over;
  }

  /** The sequence of the last event projected (0 before the ack). */
  get lastSequence(): number {
    return this.sequence;
  }

  /** The events `record`, the run's next record, adds to the task's stream (often none). */
  push(record: JournalRecord): TaskEvent[] {
    if (this.state === null) {
      this.state = initialState(record);
      return [this.next('ack', { accepted: true })];
    }
    const state = step(this.state, record);
    if (this.over || record.seq < this.options.ownFrom) return [];
    if ('assistant' in record) return this.streamed(this.assistant(record.assistant));
    if ('tool_result' in record) return this.streamed([toolResultBlock(record.tool_result.result)]);
    if ('terminal' in record) {
      this.over = true;
      return [this.end(record.terminal, state)];
    }
    return []; // a user record: the continuation's prompt, which the caller sent
  }

  private next<K extends TaskEvent['kind']>(kind: K, body: Extract<TaskEvent, { kind: K }>['body']): TaskEvent {
    return { sequence: ++this.sequence, kind, body } as TaskEvent;
  }

  private streamed(blocks: EventBlock[]): TaskEvent[] {
    if (this.options.stream === false) return [];
    return blocks.map((block) => this.next('event', { block }));
  }

  private assistant(a: Extract<JournalRecord, { assistant: unknown }>['assistant']): EventBlock[] {
    this.usage.input_tokens += a.in_tokens;
    this.usage.output_tokens += a.out_tokens;
    this.lastText = messageText(a.message);
    // As the reference's own task exchange has it: the model call's iteration, counted from 1, and its phase; then what it spent.
    const status: EventBlock = { type: 'status', iteration: a.iteration + 1, phase: 'calling-llm', usage: { input_tokens: a.in_tokens, output_tokens: a.out_tokens } };
    return [status, ...a.message.content.flatMap((b) => this.block(b))];
  }

  private block(b: Block): EventBlock[] {
    if ('text' in b) return [{ type: 'text', ...fitText('text', b.text.text) }];
    if ('thinking' in b) {
      const signature = b.thinking.signature ? fromByteField(b.thinking.signature) : '';
      const text = fitText('text', b.thinking.text ?? '', signature.length).text;
      return [{ type: 'thinking', text, ...(signature ? { signature } : {}), provider: this.state!.fingerprint.provider }];
    }
    if ('tool_use' in b) {
      const { id, name, input } = b.tool_use;
      const asked = this.options.agentCall?.(name, id);
      if (asked !== undefined) return [{ type: 'agent_call', id, name: asked.agent, task: asked.task }];
      return [{ type: 'tool_call', id, name, ...callInput(input) }];
    }
    return []; // a tool result inside a model turn, or a provider's own block: nothing on the wire carries it
  }

  /** The task's last message, from its terminal record and the run's state with it. */
  private end(terminal: ReadTerminalPayload, state: RunState): TaskEvent {
    const usage: Usage = { ...this.usage };
    const text = this.lastText;
    const result = (stop_reason: StopReason): TaskEvent => this.next('result', { stop_reason, ...(text ? fitText('text', text) : {}), usage });
    const error = (stop_reason: StopReason, message: string, code?: string): TaskEvent =>
      this.next('error', { stop_reason, ...fitText('error', message), ...(code !== undefined ? { code } : {}) });
    const message = terminal.message ?? '';
    switch (terminal.reason) {
      case 'completed':
        return result(state.last_stop_reason === 'max_tokens' ? 'max_tokens' : 'end_turn');
      case 'budget':
        return result('budget_exhausted');
      case 'max_iterations':
        return result('max_iterations');
      case 'suspended': {
        if (isCanceledMessage(message)) return error('canceled', message, TASK_END_CODES.canceled);
        if (awaitedCall(state) !== undefined) return error('suspended', message, TASK_END_CODES.awaitingApproval);
        const cut = possiblyStartedCall(state);
        if (cut !== undefined && message === interruptedCallMessage(cut)) return error('suspended', message, TASK_END_CODES.interruptedCall);
        return message ? error('suspended', message) : result('suspended');
      }
      case 'error':
        if (message === REFUSAL_MESSAGE && restsOnRefusal(state)) return error('refusal', message);
        return error('error', message || 'the run failed');
      default:
        return error('error', `the run ended ${terminal.reason}${message ? `: ${message}` : ''}`); // a newer writer's reason
    }
  }
}

/**
 * A tool result as the wire carries it: a command that ran to an exit as the
 * reference serves one (its output, and `exec` with the command and a non-zero
 * exit code; not an error: a command that exited is no harness failure), any
 * other result as its content, an error when the journal says so.
 */
function toolResultBlock(r: ToolResultBody): EventBlock {
  const ran = commandEnvelope(r.content);
  if (ran !== null && ran.exitCode !== null && !ran.timedOut && ran.signal === undefined && ran.error === undefined) {
    const command = cutToBytes(typeof ran.command === 'string' ? ran.command : shellQuote(ran.command), COMMAND_LIMIT);
    return {
      type: 'tool_result',
      call_id: r.tool_use_id,
      ...fitText('output', ran.output, encodedBytes(command)),
      exec: { command, ...(ran.exitCode !== 0 ? { exit_code: ran.exitCode } : {}), ...(ran.truncated ? { truncated: true } : {}) },
    };
  }
  return { type: 'tool_result', call_id: r.tool_use_id, ...(r.is_error ? { is_error: true } : {}), ...fitText('output', r.content) };
}

/** Every event of a task's run, in order: what a server publishes for `records`, as TaskProjection gives them one by one. */
export function taskEvents(records: Iterable<JournalRecord>, options: TaskProjectionOptions): TaskEvent[] {
  const projection = new TaskProjection(options);
  const out: TaskEvent[] = [];
  for (const record of records) out.push(...projection.push(record));
  return out;
}

/** What a text cut to fit a body ends with. */
export const CUT_NOTE = "\n[cut: the rest is in the run's journal]";

/** `{ [key]: text }`, the text cut (on a character) to what a body may carry beside `taken` bytes, ending with CUT_NOTE when cut. */
function fitText<K extends string>(key: K, text: string, taken = 0): { [k in K]: string } {
  return { [key]: cutToBytes(text, BLOCK_LIMIT - taken) } as { [k in K]: string };
}

/** The bytes `text` takes in a body: as the encoder writes it, in Go's HTML-safe escapes (a `<` is `\u003c`, six bytes). */
export function encodedBytes(text: string): number {
  return Buffer.byteLength(quote(text), 'utf8');
}

/** `text`, or its longest head (whole characters) that fits `limit` encoded bytes with `note` (CUT_NOTE) after it. */
export function cutToBytes(text: string, limit: number, note = CUT_NOTE): string {
  if (text.length * 6 + 2 <= limit) return text; // each UTF-16 unit is at most six bytes of JSON
  if (encodedBytes(text) <= limit) return text;
  const chars = [...text];
  const room = limit - encodedBytes(note) + 2; // one pair of quotes is counted once
  let [fits, over] = [0, chars.length];
  while (over - fits > 1) {
    const mid = Math.floor((fits + over) / 2);
    if (encodedBytes(chars.slice(0, mid).join('')) <= room) fits = mid;
    else over = mid;
  }
  return `${chars.slice(0, fits).join('')}${note}`;
}

/** A call's input as a `tool_call` block carries it: an object, and only when it fits. */
function callInput(input: RawJson): { input?: RawJson } {
  const text = input.text;
  if (!text.startsWith('{') || Buffer.byteLength(text, 'utf8') > BLOCK_LIMIT) return {};
  return { input };
}
