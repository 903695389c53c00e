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
  type TerminalPayload,
  type ToolResultBody,
} from './records.js';

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
  /** The last terminal record, or null when none, or when the run went on after it. */
  terminal: TerminalPayload | null;
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

/** The user turn that answers a tool batch: its results in the given order. */
export function toolResultsMessage(results: readonly ToolResultBody[]): Message {
  return { role: 'user', content: results.map((r) => ({ tool_result: { ...r } })) };
}

/**
 * The assistant turn the fold has open. Its ids are arrays, not sets: a batch
 * holds a handful of calls, and a long journal opens one turn per record pair.
 */
interface OpenTurn {
  message: Message;
  iteration: number;
  stopReason: string;
  toolUseIds: string[];
  results: ToolResultBody[];
  answered: string[];
}

function corrupt(message: string): never {
  throw new LogbookError('corrupt', message);
}

export function fold(records: readonly JournalRecord[]): RunState {
  const first = records[0];
  if (first === undefined) throw new LogbookError('empty', 'journal has no records');
  if (!('meta' in first)) throw new LogbookError('no_meta', `journal does not start with a meta record (seq ${first.seq} is ${payloadKind(first)})`);
  const meta = first.meta;
  if (meta.version !== VERSION) {
    throw new LogbookError('version', `journal is record format version ${meta.version}; this build reads only version ${VERSION}`);
  }
  if (first.seq !== 1) corrupt(`meta record has seq ${first.seq}, not 1`);

  const messages = promptMessages(meta.prompt);
  const counters = zeroCounters();
  let open: OpenTurn | null = null;
  let nextIteration = 0;
  let lastStopReason = '';
  let terminal: TerminalPayload | null = null;
  let lastSeq = first.seq;

  const commitOpen = (): void => {
    if (open === null) return;
    messages.push(open.message);
    if (open.results.length > 0) messages.push(toolResultsMessage(open.results));
    open = null;
  };

  for (let i = 1; i < records.length; i++) {
    const rec = records[i]!;
    if (rec.seq <= lastSeq) corrupt(`seq ${rec.seq} does not increase after seq ${lastSeq}`);
    lastSeq = rec.seq;

    if ('assistant' in rec) {
      const a = rec.assistant;
      commitOpen();
      open = {
        message: a.message,
        iteration: a.iteration,
        stopReason: a.stop_reason ?? '',
        toolUseIds: toolUses(a.message).map((t) => t.id),
        results: [],
        answered: [],
      };
      counters.llm_calls++;
      counters.in_tokens += a.in_tokens;
      counters.out_tokens += a.out_tokens;
      counters.cache_read_tokens += a.cache_read_tokens ?? 0;
      counters.cache_create_tokens += a.cache_create_tokens ?? 0;
      nextIteration = a.iteration + 1;
      lastStopReason = a.stop_reason ?? '';
      terminal = null;
    } else if ('tool_result' in rec) {
      const t = rec.tool_result;
      const turn: OpenTurn | null = open;
      if (turn === null) corrupt(`seq ${rec.seq}: tool result for ${t.tool_use_id} outside an assistant turn`);
      if (!turn.toolUseIds.includes(t.tool_use_id)) corrupt(`seq ${rec.seq}: tool result for ${t.tool_use_id}, which the assistant turn did not call`);
      if (turn.answered.includes(t.tool_use_id)) corrupt(`seq ${rec.seq}: second tool result for ${t.tool_use_id}`);
      turn.results.push(t.result);
      turn.answered.push(t.tool_use_id);
      counters.tool_calls++;
      if (t.remote) counters.remote_tool_calls++;
      terminal = null;
    } else if ('user' in rec) {
      commitOpen();
      appendUserMessage(messages, rec.user.message);
      terminal = null;
    } else if ('terminal' in rec) {
      terminal = rec.terminal;
    } else {
      corrupt(`seq ${rec.seq}: a second meta record`);
    }
  }

  let pending: PendingTurn | null = null;
  const last: OpenTurn | null = open;
  if (last !== null) {
    if (last.answered.length === new Set(last.toolUseIds).size) {
      commitOpen();
    } else {
      pending = {
        assistant: last.message,
        iteration: last.iteration,
        stop_reason: last.stopReason,
        results: last.results,
        answered: last.answered,
      };
    }
  }

  return {
    run_id: meta.run_id,
    version: meta.version,
    fingerprint: meta.fingerprint,
    prompt: meta.prompt,
    interactive: meta.interactive === true,
    messages,
    pending,
    counters,
    next_iteration: nextIteration,
    last_stop_reason: lastStopReason,
    terminal,
  };
}
