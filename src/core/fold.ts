/**
 * fold(records) -> RunState: the whole resume position, derived from the records
 * alone. Pure and IO-free; counters and positions are never stored, so they
 * cannot drift from the events that produced them.
 */
import { LogbookError } from './errors.js';
import {
  VERSION,
  payloadKind,
  toolUses,
  type Fingerprint,
  type JournalRecord,
  type Message,
  type ReadTerminalPayload,
  type ReadTerminalReason,
  type ToolResultBody,
} from './records.js';
import { requestInputTokens } from './usage.js';

/** What a run has spent and done, counted from its records by the fold. */
export interface Counters {
  llm_calls: number;
  tool_calls: number;
  remote_tool_calls: number;
  in_tokens: number;
  out_tokens: number;
  cache_read_tokens: number;
  cache_create_tokens: number;
}

/** The partly answered assistant turn, kept outside `messages` until complete. */
export interface PendingTurn {
  assistant: Message;
  iteration: number;
  stop_reason: string;
  /** Results so far, in journal order. */
  results: ToolResultBody[];
  /** The tool_use ids that have a result, in journal order. */
  answered: string[];
}

/** A run as its records fold: the conversation (always at a boundary the model APIs accept), the turn in flight, the counters, and where it stands. */
export interface RunState {
  run_id: string;
  version: number;
  fingerprint: Fingerprint;
  prompt: string;
  interactive: boolean;
  /** The committed conversation; always ends on a boundary the model API accepts. */
  messages: Message[];
  pending: PendingTurn | null;
  counters: Counters;
  /** The last assistant record's iteration + 1, or 0 when there is none. */
  next_iteration: number;
  last_stop_reason: string;
  /** The payload of the last terminal record seen, even when records follow it (as the reference folds it); null when none. */
  terminal: ReadTerminalPayload | null;
  /** The tool_use ids whose result another agent gave (journaled `remote`), in journal order; not part of the state's JSON. */
  remote_calls: string[];
  /**
   * Where the run stands, derived and never stored: the terminal reason when the
   * journal ends on a terminal record, else `open` (running, or crashed). Only a
   * `completed` status refuses a resume.
   */
  status: RunStatus;
  /** The seq of the last record folded in. */
  last_seq: number;
  /**
   * The input tokens of the last model request, as its assistant record's
   * usage says (cached input included: requestInputTokens), or 0 before the
   * first: how full the context window was. Derived, and not part of the
   * state's JSON (the fold's keys are the reference's).
   */
  last_input_tokens: number;
}

/**
 * Where a run stands by its last record: the terminal reason when it ends on one
 * (a newer writer's reason included), else open (running, or crashed).
 */
export type RunStatus = 'open' | ReadTerminalReason;

export function runStatus(last: JournalRecord | undefined): RunStatus {
  return last !== undefined && 'terminal' in last ? last.terminal.reason : 'open';
}

export function zeroCounters(): Counters {
  return {
    llm_calls: 0,
    tool_calls: 0,
    remote_tool_calls: 0,
    in_tokens: 0,
    out_tokens: 0,
    cache_read_tokens: 0,
    cache_create_tokens: 0,
  };
}

/** The message that opens a run: its prompt as one text block (none for an empty prompt). */
export function promptMessages(prompt: string): Message[] {
  return prompt === '' ? [] : [{ role: 'user', content: [{ text: { text: prompt } }] }];
}

/**
 * Appends typed user blocks the way the live loop does: merged into a trailing
 * user message (tool results, or an earlier follow-up) rather than a second user
 * turn. The live path and the fold both call this, so they cannot disagree.
 */
export function appendUserMessage(messages: Message[], message: Message): void {
  const last = messages[messages.length - 1];
  if (last !== undefined && last.role === 'user') {
    messages[messages.length - 1] = { role: 'user', content: [...last.content, ...message.content] };
  } else {
    messages.push({ role: 'user', content: [...message.content] });
  }
}

/**
 * The user turn that answers a tool batch: its results in the given order,
 * each body itself (never changed once made), so an output kept as its
 * literal stays one (output-literal.ts).
 */
export function toolResultsMessage(results: readonly ToolResultBody[]): Message {
  return { role: 'user', content: results.map((r) => ({ tool_result: r })) };
}

function corrupt(message: string): never {
  throw new LogbookError('corrupt', message);
}

/**
 * The state of a run that holds only its meta record: the prompt as its
 * conversation, nothing spent. `corrupt`/`version`/`no_meta` when `first` cannot
 * open a journal.
 */
export function initialState(first: JournalRecord): RunState {
  if (!('meta' in first)) throw new LogbookError('no_meta', `journal does not start with a meta record (seq ${first.seq} is ${payloadKind(first)})`);
  const meta = first.meta;
  if (meta.version !== VERSION) {
    throw new LogbookError('version', `journal is record format version ${meta.version}; this build reads only version ${VERSION}`);
  }
  if (first.seq !== 1) corrupt(`meta record has seq ${first.seq}, not 1`);
  return {
    run_id: meta.run_id,
    version: meta.version,
    fingerprint: meta.fingerprint,
    prompt: meta.prompt,
    interactive: meta.interactive === true,
    messages: promptMessages(meta.prompt),
    pending: null,
    counters: zeroCounters(),
    next_iteration: 0,
    last_stop_reason: '',
    terminal: null,
    remote_calls: [],
    status: 'open',
    last_seq: first.seq,
    last_input_tokens: 0,
  };
}

/** Commits the pending turn as it stands: its message, then its results (journal order) as one user turn. */
function commitPending(state: RunState): void {
  const p = state.pending;
  if (p === null) return;
  state.messages.push(p.assistant);
  if (p.results.length > 0) state.messages.push(toolResultsMessage(p.results));
  state.pending = null;
}

/**
 * Whether every tool_use of the turn has a result. A turn that repeats an id has
 * one result per use of it (so `answered` may hold an id more than once), and
 * results only ever answer calls the turn made, so counting them is enough.
 */
function isAnswered(p: PendingTurn): boolean {
  return p.answered.length >= callsOf(p.assistant);
}

/** How many tool calls `message` makes, with id `id` when given: counted in place, as the fold does for every record. */
function callsOf(message: Message, id?: string): number {
  let n = 0;
  for (const b of message.content) if ('tool_use' in b && (id === undefined || b.tool_use.id === id)) n++;
  return n;
}

/** How many times `id` occurs in `ids`. */
export function occurrences(ids: readonly string[], id: string): number {
  let n = 0;
  for (const x of ids) if (x === id) n++;
  return n;
}

/** The tool_use ids of the last committed assistant turn, when the conversation ends on its results. */
function lastCommittedCalls(state: RunState): string[] {
  const m = state.messages;
  const assistant = m[m.length - 2];
  return m[m.length - 1]?.role === 'user' && assistant?.role === 'assistant' ? toolUses(assistant).map((t) => t.id) : [];
}

/**
 * How many model turns the conversation holds (its assistant messages): every
 * assistant record is a model call, whose turn is committed to the
 * conversation or, while its calls are unanswered, pending. Read from the
 * counters, so it holds for a state whose conversation was taken out as it
 * folded (StateJsonStream, `session show`).
 */
export function committedTurns(state: RunState): number {
  return state.counters.llm_calls - (state.pending === null ? 0 : 1);
}

/** Seqs strictly increase through a journal: `corrupt` when `seq` does not come after `previous`. */
export function checkSeqOrder(previous: number, seq: number): void {
  if (seq <= previous) corrupt(`seq ${seq} does not increase after seq ${previous}`);
}

/**
 * Applies one record to the state, in place, and returns it. After every record
 * the state is the fold of the records so far: an assistant turn is committed to
 * `messages` as soon as every one of its tool calls has a result (at once when
 * it has none), and is `pending` until then. A terminal record stays `terminal`
 * until another replaces it, while `status` follows the last record. The live
 * loop applies each record it makes durable with this same function, so its
 * state is the fold.
 */
export function step(state: RunState, rec: JournalRecord): RunState {
  checkSeqOrder(state.last_seq, rec.seq);
  state.last_seq = rec.seq;

  if ('assistant' in rec) {
    const a = rec.assistant;
    commitPending(state);
    const c = state.counters;
    c.llm_calls++;
    c.in_tokens += a.in_tokens;
    c.out_tokens += a.out_tokens;
    c.cache_read_tokens += a.cache_read_tokens ?? 0;
    c.cache_create_tokens += a.cache_create_tokens ?? 0;
    state.next_iteration = a.iteration + 1;
    state.last_stop_reason = a.stop_reason ?? '';
    state.last_input_tokens = requestInputTokens(state.fingerprint.provider, a);
    state.pending = { assistant: a.message, iteration: a.iteration, stop_reason: a.stop_reason ?? '', results: [], answered: [] };
    if (isAnswered(state.pending)) commitPending(state);
  } else if ('tool_result' in rec) {
    const t = rec.tool_result;
    const turn = state.pending;
    if (turn === null) {
      if (lastCommittedCalls(state).includes(t.tool_use_id)) corrupt(`seq ${rec.seq}: second tool result for ${t.tool_use_id}`);
      corrupt(`seq ${rec.seq}: tool result for ${t.tool_use_id} outside an assistant turn`);
    }
    const calls = callsOf(turn.assistant, t.tool_use_id);
    if (calls === 0) corrupt(`seq ${rec.seq}: tool result for ${t.tool_use_id}, which the assistant turn did not call`);
    if (occurrences(turn.answered, t.tool_use_id) >= calls) corrupt(`seq ${rec.seq}: second tool result for ${t.tool_use_id}`);
    turn.results.push(t.result);
    turn.answered.push(t.tool_use_id);
    state.counters.tool_calls++;
    if (t.remote) {
      state.counters.remote_tool_calls++;
      state.remote_calls.push(t.tool_use_id);
    }
    if (isAnswered(turn)) commitPending(state);
  } else if ('user' in rec) {
    commitPending(state);
    appendUserMessage(state.messages, rec.user.message);
  } else if ('terminal' in rec) {
    state.terminal = rec.terminal;
  } else {
    corrupt(`seq ${rec.seq}: a second meta record`);
  }
  state.status = runStatus(rec);
  return state;
}

/** The whole resume position of a journal: its records reduced with `step`. Pure; no IO. */
export function fold(records: readonly JournalRecord[]): RunState {
  const first = records[0];
  if (first === undefined) throw new LogbookError('empty', 'journal has no records');
  let state = initialState(first);
  for (let i = 1; i < records.length; i++) state = step(state, records[i]!);
  return state;
}
