/**
 * The one walk over a folded run that every rendering shares. Each tool call is
 * paired with its result by tool_use id across the whole conversation, so calls
 * and results interleave as they did live; the pending (in-flight) turn comes
 * after the committed messages, where an unanswered call stands alone.
 *
 * All text in an item is sanitized; a call's `input` is raw JSON text, which
 * formatCall sanitizes when it renders it.
 */
import { awaitedCall, toolKey, withheldKind, type Block, type CallDurations, type Message, type RunState, type ToolResultBody, type WithheldKind } from '../core/index.js';
import type { ToolAgents } from './remote-count.js';
import { showResult, type ShownResult } from './results.js';
import { sanitize, sanitizeLine } from './sanitize.js';

export type TranscriptItem =
  | { kind: 'prompt'; text: string }
  /** Text the operator typed as a follow-up. */
  | { kind: 'user'; text: string }
  /** Empty text for redacted or signature-only thinking. */
  | { kind: 'thinking'; text: string }
  | { kind: 'text'; text: string }
  | {
      kind: 'call';
      id: string;
      name: string;
      /** The arguments as raw JSON text. */
      input: string;
      /** True for a call of the pending turn. */
      pending: boolean;
      answered: boolean;
      /** A call the run stopped before for its approval, or one answered without running (see callNoteText). */
      note?: CallNote;
      /** A call another agent answered (its result is journaled remote): that agent, when known. */
      remote?: RemoteCall;
      /** How long it ran, in milliseconds, where the run's times say (TranscriptOptions.durations). */
      took?: number;
    }
  /** A model call, before the turn it answered with: how long it took (only given with TranscriptOptions.durations). */
  | { kind: 'model'; turn: number; took: number }
  | ({ kind: 'result'; id: string; name: string } & ShownResult)
  /** A provider's own block (server tool, redacted thinking), shown by kind. */
  | { kind: 'provider'; providerKind: string }
  /** Starts the pending turn: what a resume completes first. */
  | { kind: 'pending'; answered: number; total: number }
  /** Model turns left out of a shortened rendering. */
  | { kind: 'elided'; turns: number }
  /** The run's end, when it stands ended (its status); the reason may be one a newer writer added. */
  | { kind: 'end'; reason: string; message?: string };

export type ItemKind = TranscriptItem['kind'];

/** What the records tell of a call beyond its result (core: call-facts). */
export type CallNote = 'awaiting' | WithheldKind;

/** A remote call's agent: its identity, or null when nothing beside the run names it. */
export interface RemoteCall {
  agent: string | null;
}

export type { ToolAgents } from './remote-count.js';

/** A tool result as an item: a command's envelope unwrapped, every string sanitized. */
export function resultItem(body: ToolResultBody, name: string): TranscriptItem {
  const shown = showResult(body.content, body.is_error === true);
  const item: TranscriptItem = { kind: 'result', id: sanitizeLine(body.tool_use_id), name, ...shown, output: sanitize(shown.output) };
  if (shown.command !== undefined) item.command = shown.command.map(sanitizeLine);
  if (shown.signal !== undefined) item.signal = sanitizeLine(shown.signal);
  if (shown.error !== undefined) item.error = sanitizeLine(shown.error);
  return item;
}

export interface TranscriptOptions {
  /**
   * False to leave out result and thinking items, for a rendering that shows
   * neither: on a long run, rendering every tool output only to drop it is most
   * of the walk's cost. Calls still say whether they were answered.
   */
  details?: boolean;
  /** Which agent runs each remote tool, to name it on the run's remote calls. */
  agents?: ToolAgents;
  /** The durations of the run's calls (core callDurations): a `model` item starts each timed model turn, and timed calls carry `took`. */
  durations?: CallDurations;
}

/** The item a text, thinking or provider block of a `role` message shows as; null for calls and results, which pair up. */
export function blockItem(b: Block, role: Message['role']): TranscriptItem | null {
  if ('text' in b) return { kind: role === 'user' ? 'user' : 'text', text: sanitize(b.text.text) };
  if ('thinking' in b) return { kind: 'thinking', text: sanitize(b.thinking.text ?? '') };
  if ('provider' in b) return { kind: 'provider', providerKind: sanitizeLine(b.provider.kind) };
  return null;
}

export function transcriptItems(state: RunState, options: TranscriptOptions = {}): TranscriptItem[] {
  return transcriptGroups(state, options).flatMap((g) => g.items);
}

/**
 * A part of a transcript: the items of one message, keyed by its index in the
 * conversation (the prompt's are message 0's), those of the pending turn
 * (keyed `messages.length`) or the run's end (`messages.length + 1`). Keys
 * only grow: an appended record changes the last groups and adds new ones,
 * which is what a follower sends again.
 */
export interface TranscriptGroup {
  at: number;
  items: TranscriptItem[];
}

/** Where each tool id stands in a conversation's committed messages: its result (the last), its name (the last), its first call and first result. */
interface ConversationIndex {
  /** The messages indexed, and the last of them (a conversation only grows: a different one is indexed anew). */
  count: number;
  last: Message | undefined;
  results: Map<string, ToolResultBody>;
  names: Map<string, string>;
  firstCall: Map<string, number>;
  firstResult: Map<string, number>;
}

/** Indexes by conversation: a fold appends to its messages, so a followed run's next transcript indexes only what it added. */
const indexes = new WeakMap<readonly Message[], ConversationIndex>();

function conversationIndex(messages: readonly Message[]): ConversationIndex {
  let index = indexes.get(messages);
  if (index === undefined || index.count > messages.length || (index.count > 0 && messages[index.count - 1] !== index.last)) {
    index = { count: 0, last: undefined, results: new Map(), names: new Map(), firstCall: new Map(), firstResult: new Map() };
    indexes.set(messages, index);
  }
  for (let at = index.count; at < messages.length; at++) {
    for (const b of messages[at]!.content) {
      if ('tool_result' in b) {
        const id = b.tool_result.tool_use_id;
        index.results.set(id, b.tool_result);
        if (!index.firstResult.has(id)) index.firstResult.set(id, at);
      } else if ('tool_use' in b) {
        index.names.set(b.tool_use.id, b.tool_use.name);
        if (!index.firstCall.has(b.tool_use.id)) index.firstCall.set(b.tool_use.id, at);
      }
    }
  }
  index.count = messages.length;
  index.last = messages.at(-1);
  return index;
}

/** Which groups to make: those keyed from `from` (default 0) up to `to` (excluded; default all). */
export interface TranscriptRange {
  from?: number;
  to?: number;
}

/**
 * The transcript as groups, or only those of `range`, each exactly as the
 * whole transcript holds it: a call's result shows beside the call wherever the
 * range starts. The walk outside the range is a pass over block ids, so the
 * last groups of a long run cost what they hold.
 */
export function transcriptGroups(state: RunState, options: TranscriptOptions & { range?: TranscriptRange } = {}): TranscriptGroup[] {
  const details = options.details !== false;
  const from = Math.max(0, options.range?.from ?? 0);
  const to = options.range?.to ?? Number.POSITIVE_INFINITY;
  const n = state.messages.length;
  const index = conversationIndex(state.messages);
  const pendingResults = new Map((state.pending?.results ?? []).map((r) => [r.tool_use_id, r]));
  const pendingNames = new Map<string, string>();
  for (const b of state.pending?.assistant.content ?? []) if ('tool_use' in b) pendingNames.set(b.tool_use.id, b.tool_use.name);
  const results = { get: (id: string) => pendingResults.get(id) ?? index.results.get(id), has: (id: string) => pendingResults.has(id) || index.results.has(id) };
  const names = { get: (id: string) => pendingNames.get(id) ?? index.names.get(id) };
  const firstCall = { get: (id: string) => index.firstCall.get(id) ?? (pendingNames.has(id) ? n : undefined) };
  const firstResult = index.firstResult;
  /** Where a result is shown: beside the first call of its id, or where it stands when no call comes before it (in a message, the first of the two). */
  const shownAt = (id: string): number | undefined => {
    if (!results.has(id)) return undefined;
    const call = firstCall.get(id);
    const result = firstResult.get(id);
    return call === undefined ? result : result === undefined ? call : Math.min(call, result);
  };
  const awaited = awaitedCall(state)?.id;
  const remote = new Set(state.remote_calls);
  const agents = options.agents ?? {};
  const noteOf = (id: string, pending: boolean, result: ToolResultBody | undefined): CallNote | undefined =>
    result !== undefined ? withheldKind(result) : pending && id === awaited ? 'awaiting' : undefined;

  const groups: TranscriptGroup[] = [];
  const shown = new Set<string>();
  const durations = options.durations;
  /** Assistant messages are the assistant records, in order: the k-th is model turn k. */
  let turn = -1;
  for (let i = 0; i < Math.min(from, n); i++) if (state.messages[i]!.role === 'assistant') turn++;
  const walk = (m: Message, at: number, skipFirst: boolean, pending: boolean, items: TranscriptItem[]): void => {
    if (m.role === 'assistant') {
      turn++;
      const took = durations?.model.get(turn);
      if (took !== undefined) items.push({ kind: 'model', turn, took });
    }
    const showsResult = (id: string): boolean => details && shownAt(id) === at && !shown.has(id);
    m.content.forEach((b: Block, i) => {
      if (skipFirst && i === 0) return;
      if ('text' in b || 'provider' in b || ('thinking' in b && details)) items.push(blockItem(b, m.role)!);
      else if ('thinking' in b) return;
      else if ('tool_use' in b) {
        const { id, input } = b.tool_use;
        const result = results.get(id);
        const name = sanitizeLine(names.get(id)!);
        const call: TranscriptItem = { kind: 'call', id: sanitizeLine(id), name, input: input.text, pending, answered: result !== undefined };
        const note = noteOf(id, pending, result);
        if (note !== undefined) call.note = note;
        if (remote.has(id)) call.remote = { agent: Object.hasOwn(agents, b.tool_use.name) ? sanitizeLine(agents[b.tool_use.name]!) : null };
        const took = durations?.tools.get(toolKey(turn, id));
        if (took !== undefined) call.took = took;
        items.push(call);
        if (result !== undefined && showsResult(id)) {
          shown.add(id);
          items.push(resultItem(result, name));
        }
      } else if (showsResult(b.tool_result.tool_use_id)) {
        // A result whose call is not in the conversation: shown where it stands.
        shown.add(b.tool_result.tool_use_id);
        items.push(resultItem(b.tool_result, '?'));
      }
    });
  };

  for (let at = from; at < Math.min(n, to); at++) {
    const items: TranscriptItem[] = [];
    if (at === 0 && state.prompt !== '') items.push({ kind: 'prompt', text: sanitize(state.prompt) });
    walk(state.messages[at]!, at, at === 0 && state.prompt !== '', false, items);
    groups.push({ at, items });
  }
  if (n === 0 && from === 0 && to > 0 && state.prompt !== '') groups.push({ at: 0, items: [{ kind: 'prompt', text: sanitize(state.prompt) }] });
  const p = state.pending;
  if (p !== null && from <= n && n < to) {
    const total = p.assistant.content.filter((b) => 'tool_use' in b).length;
    const items: TranscriptItem[] = [{ kind: 'pending', answered: p.answered.length, total }];
    walk(p.assistant, n, false, true, items);
    groups.push({ at: n, items });
  }
  // A run that went on after a terminal record (resumed, then crashed) has not ended.
  if (state.status !== 'open' && state.terminal !== null && from <= n + 1 && n + 1 < to) {
    const end: TranscriptItem = { kind: 'end', reason: sanitizeLine(state.terminal.reason) };
    if (state.terminal.message !== undefined) end.message = sanitize(state.terminal.message);
    groups.push({ at: n + 1, items: [end] });
  }
  return groups;
}

/** Which side of the conversation an item belongs to; renderers separate the sides. */
export function side(item: TranscriptItem): 'user' | 'assistant' | 'marker' {
  if (item.kind === 'prompt' || item.kind === 'user') return 'user';
  if (item.kind === 'pending' || item.kind === 'end' || item.kind === 'elided') return 'marker';
  return 'assistant';
}

/**
 * Whether a blank line goes before `item`: where the conversation changes sides,
 * and before a marker line, but not right after one.
 */
export function gapBefore(previous: TranscriptItem | undefined, item: TranscriptItem): boolean {
  if (previous === undefined) return false;
  const was = side(previous);
  const now = side(item);
  return now === 'marker' || (was !== 'marker' && now !== was);
}
