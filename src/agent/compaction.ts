/**
 * Compaction: a conversation that outgrows the model's context window goes on
 * in a new run, its continuation, whose first user turn is a summary of it
 * followed by its last exchanges word for word. Nothing is deleted: the
 * compacted run keeps every record, and ends on one terminal record saying
 * where it continues (`suspended`, `compacted into RUN`); the link between the
 * two lives beside them as notes (run-notes.ts), never in a journal.
 *
 * The order of the writes is the crash argument:
 *   1. the summary call (same provider and model, SUMMARY_PROMPT);
 *   2. the `compacted` note beside the compacted run: the continuation's id,
 *      chosen now, its first user turn, the summary call's usage;
 *   3. the continuation's own notes (its origin, where it was started, its tool set);
 *   4. the continuation's meta record;
 *   5. the compacted run's terminal record.
 * A crash before 2 pays for the summary again (once); after 2, whoever
 * resumes the compacted run finishes 3 to 5 from the note, under the id it
 * names, so there is exactly one continuation; a second compaction of that
 * run is refused, naming it.
 *
 * Every summary call is counted (call-notes.ts): a `sent` note before it, and
 * a `cost` note when its answer is refused (cut at max_tokens, a tool call).
 * Where a held run is not held against other writers (JetStream), a writer
 * claims the compaction before the summary call (a write-once note), so
 * concurrent compactions of one run make one call: the others wait for its
 * note and are refused, naming the continuation.
 */
import { CONTINUATION_HEAD, LogbookError, appendUserMessage, encodeRecord, initialState, isLogbookError, messageText, nodeCrypto, requestInputTokens, toolUses, type JournalRecord, type Message, type RunState } from '../core/index.js';
import { COMPACTION_NOTE, compactionClaimKey, encodeClaim, encodeCompaction, parseClaim, parseCompaction, type CallUsage, type CompactionNote } from '../store/run-notes.js';
import { noteCallCost, noteSent, type SentTicket } from './call-notes.js';
import type { Journal, Store } from '../store/store.js';
import { DEFAULT_COMPACTION, fingerprintOf, type Agent, type CompactionSettings } from './agent.js';
import { journalUsage, type ModelResponse } from './provider.js';
import { Recorder } from './recorder.js';
import { mayBeAssistant } from './spend.js';
import { generateRunId, keepRunNotes, newRunMeta } from './run-meta.js';

/** What set a compaction off. */
export type CompactionCause =
  /** A request's input passed `compact_at` of the context window. */
  | 'threshold'
  /** The API refused a request as longer than the context window. */
  | 'refused'
  /** The operator asked (a chat's /compact, `logbook session compact`). */
  | 'asked';

/**
 * The summary call's instruction, appended as the last user turn of the
 * conversation it summarizes. Fixed, and kept here alone.
 */
export const SUMMARY_PROMPT =
  'Stop here and write a summary of this whole conversation for a continuation of it that will not see it. ' +
  'Keep: the goals and instructions the user gave; the decisions made and why; the tasks done, the tasks still open and the next step; ' +
  'every file path, command, identifier, name and value later work needs; the errors met and how they were handled. ' +
  'Write it as plain notes, complete but without repetition. Do not call any tool: answer with the summary alone.';

/** The most of one block of a kept exchange its text keeps (a long tool result is cut): the compacted run holds it whole. */
export const KEPT_BLOCK_CHARS = 4000;

/**
 * The exchanges kept word for word: the last `keep` completed exchanges (a
 * model turn with the user turn that led to it), and always what came after
 * the last model turn (the turn just typed, the results of its calls), which
 * the continuation's model has yet to answer, whatever `keep`.
 */
export function keptMessages(messages: readonly Message[], keep: number): Message[] {
  const assistants: number[] = [];
  messages.forEach((m, i) => {
    if (m.role === 'assistant') assistants.push(i);
  });
  if (assistants.length === 0) return [...messages];
  if (keep <= 0) return messages.slice(assistants[assistants.length - 1]! + 1);
  const first = assistants[Math.max(0, assistants.length - keep)]!;
  return messages.slice(Math.max(0, first - 1));
}

function cut(text: string): string {
  if (text.length <= KEPT_BLOCK_CHARS) return text;
  return `${text.slice(0, KEPT_BLOCK_CHARS)}\n[... ${(text.length - KEPT_BLOCK_CHARS).toLocaleString('en-US')} more characters, kept in the compacted run]`;
}

/** The kept exchanges as text: who said what, each call with its input, each result with its call's tool. */
export function keptText(messages: readonly Message[], keep: number): string {
  const toolOf = new Map<string, string>();
  for (const m of messages) for (const call of toolUses(m)) toolOf.set(call.id, call.name);
  const lines: string[] = [];
  for (const m of keptMessages(messages, keep)) {
    for (const b of m.content) {
      if ('text' in b && b.text.text.trim() !== '') lines.push(`${m.role === 'user' ? 'User' : 'Assistant'}: ${cut(b.text.text)}`);
      else if ('tool_use' in b) lines.push(`Assistant called ${b.tool_use.name} (call ${b.tool_use.id}) with ${cut(b.tool_use.input.text)}`);
      else if ('tool_result' in b) {
        const r = b.tool_result;
        const tool = toolOf.get(r.tool_use_id) ?? 'a tool';
        lines.push(`${r.is_error ? 'Error from' : 'Result of'} ${tool} (call ${r.tool_use_id}): ${cut(r.content)}`);
      }
    }
  }
  return lines.join('\n\n');
}

/** The continuation's first user turn: where it comes from, the summary, and the kept exchanges. */
export function continuationPrompt(origin: string, at: number, summary: string, kept: string): string {
  const head = `${CONTINUATION_HEAD}${origin}, compacted at seq ${at}: what came before is summarized here`;
  return kept === ''
    ? `${head}.\n\n<summary>\n${summary.trim()}\n</summary>\n\nGo on from where the conversation stopped.`
    : `${head}, and its last exchanges follow word for word.\n\n<summary>\n${summary.trim()}\n</summary>\n\n<last-exchanges>\n${kept}\n</last-exchanges>\n\nGo on from where the conversation stopped.`;
}

/**
 * The conversation as the summary call sends it, with the `drop` model turns
 * after the first message left out (and said to be): what is sent when the
 * whole of it is refused as too long.
 */
export function summaryMessages(messages: readonly Message[], drop: number): Message[] {
  const out = messages.slice(0, 1).concat(drop > 0 ? messages.slice(1 + 2 * drop) : messages.slice(1));
  if (drop > 0) {
    const note = `[${drop} earlier model turn${drop === 1 ? '' : 's'} of this conversation are left out here: with them it is longer than the context window]`;
    if (out[0]?.role === 'user') out[0] = { role: 'user', content: [...out[0].content, { text: { text: note } }] };
  }
  appendUserMessage(out, { role: 'user', content: [{ text: { text: SUMMARY_PROMPT } }] });
  return out;
}

/** How many model turns (assistant turn and the user turn after it) follow the first message: what the summary call may leave out. */
function droppableTurns(messages: readonly Message[]): number {
  return Math.max(0, Math.floor((messages.length - 1) / 2) - 1);
}

/** The summary, and the usage of the call that made it. */
export interface Summary {
  text: string;
  usage: CallUsage;
}

/**
 * The summary a summary call's answer holds: its text, when the model ended
 * its turn. A summary cut off at max_tokens would go on as if whole, and text
 * before a tool call is a preamble, not a summary: both are refused, nothing
 * compacted (`provider`).
 */
function summaryOf(response: ModelResponse, maxTokens: number): string {
  const { stopReason } = response;
  const fail = (what: string) => new LogbookError('provider', `the summary call of a compaction ${what}; nothing was compacted`);
  if (stopReason === 'max_tokens') throw fail(`was cut off at max_tokens (${maxTokens}) before the summary was whole; raise max_tokens`);
  if (toolUses(response.message).length > 0 || stopReason === 'tool_use') throw fail('was answered with a tool call instead of a summary, though the API was told no tool may be called');
  const text = messageText(response.message).trim();
  if (text === '') throw fail(`came back without text (stop reason ${stopReason || 'none'})`);
  return text;
}

/**
 * The summary call: the run's own provider, model and tools (none of which it may call), the conversation
 * and SUMMARY_PROMPT. A conversation the API refuses as too long is sent again
 * without its oldest turns, half of them at a time (a refused call costs
 * nothing), until it fits; `context_exceeded` when even its last turns do not.
 */
export async function summarize(agent: Agent, messages: readonly Message[], signal?: AbortSignal, notes?: SummaryNotes): Promise<Summary> {
  const droppable = droppableTurns(messages);
  let drop = 0;
  for (;;) {
    const ticket = notes === undefined ? null : await noteSent(notes.store, notes.runId, { summaryOf: notes.at });
    let response: ModelResponse;
    try {
      response = await agent.provider.complete({
        system: agent.system,
        messages: summaryMessages(messages, drop),
        tools: agent.tools.definitions(),
        maxTokens: agent.maxTokens,
        thinking: agent.thinking,
        promptCache: agent.promptCache,
        toolChoice: 'none',
        ...(signal !== undefined ? { signal } : {}),
      });
    } catch (err) {
      // Stopped, the cost is unknown; failed (a refusal as too long among them), nothing was reported and nothing is counted.
      if (ticket !== null) await noteCallCost(notes!.store, ticket, null, signal?.aborted === true ? 'stopped' : 'failed');
      if (!isLogbookError(err, 'context_exceeded')) throw err;
      if (drop >= droppable) {
        throw new LogbookError(
          'context_exceeded',
          `the conversation cannot be compacted: ${messages.some((m) => m.role === 'assistant') ? 'even its last model turn is' : 'its one turn is'} longer than the context window to summarize (${err.message})`,
          { cause: err },
        );
      }
      drop = Math.min(droppable, drop + Math.max(1, Math.ceil((droppable - drop) / 2)));
      continue;
    }
    return { text: await acceptedSummary(response, agent.maxTokens, notes, ticket), usage: journalUsage(response.usage) };
  }
}

/** Where a summary call's notes are kept: beside the run it summarizes, cut at seq `at`. */
export interface SummaryNotes {
  store: Store;
  runId: string;
  at: number;
}

/** The summary of an answer (summaryOf); an answer refused was paid all the same: its cost is noted before the refusal is thrown. */
async function acceptedSummary(response: ModelResponse, maxTokens: number, notes: SummaryNotes | undefined, ticket: SentTicket | null): Promise<string> {
  try {
    return summaryOf(response, maxTokens);
  } catch (err) {
    if (ticket !== null) await noteCallCost(notes!.store, ticket, journalUsage(response.usage), 'refused');
    throw err;
  }
}

/** The error a second compaction of a compacted run gets, and a resume of it: it names where the run goes on. */
export class CompactedError extends LogbookError {
  constructor(
    readonly runId: string,
    readonly into: string,
    readonly at: number,
  ) {
    super('compacted', `run ${runId} was compacted into run ${into} at seq ${at}; its conversation goes on there`, { details: { runId, continuation: into } });
  }
}

/** The compaction note beside run `id`, or null (also when it cannot be read). */
export async function compactionOf(store: Store, id: string): Promise<CompactionNote | null> {
  return parseCompaction(await store.getNote(id, COMPACTION_NOTE).catch(() => null));
}

/**
 * Whether continuation `state`, of a compaction whose note is `note`, waits
 * for the next typed turn before its first model call: a chat compacted at its
 * prompt, with nothing run in the continuation since but its first turn.
 */
export function awaitsTypedTurn(note: Pick<CompactionNote, 'input_first'>, state: RunState): boolean {
  return note.input_first === true && state.counters.llm_calls === 0 && state.messages.length === 1 && state.pending === null;
}

/** The terminal record that ends a compacted run. */
export function compactedTerminal(into: string): { terminal: { reason: 'suspended'; message: string } } {
  return { terminal: { reason: 'suspended', message: `compacted into ${into}` } };
}

/** Whether record `rec` is the terminal record a compaction into `into` ends its run with. */
export function isCompactedTerminal(rec: JournalRecord | undefined, into: string): boolean {
  return rec !== undefined && 'terminal' in rec && rec.terminal.reason === 'suspended' && rec.terminal.message === `compacted into ${into}`;
}

/** The continuation made, held. */
export interface Continuation {
  /** The continuation's recorder: its state the fold of its records, its journal held (none for a run not journaled). */
  recorder: Recorder;
  journal: Journal | null;
  /** Its meta record as stored. */
  metaLine: string;
  note: CompactionNote;
  /** The compacted run. */
  from: string;
}

export interface CompactionContext {
  agent: Agent;
  /** Null for a run that is not journaled: the continuation is made and folded all the same, and stored nowhere. */
  store: Store | null;
  signal?: AbortSignal;
  /** Told each record once it is durable, the continuation's too. */
  onRecord?: (record: JournalRecord, time?: number) => void;
  /** What the operator should know (a note that could not be kept). */
  warn?: (message: string) => void;
  /** The run is a chat resting at its prompt (run-rests.ts awaitsInput): its continuation will wait for the next typed turn. */
  atPrompt?: boolean;
}

export function compactionSettings(agent: Agent): CompactionSettings {
  return agent.compaction ?? DEFAULT_COMPACTION;
}

/**
 * Compacts the run `origin` holds, at its last record: the summary call, then
 * the hand-off (handOff). `in_tool_batch` inside a tool batch; `compacted`
 * (CompactedError) when the run was compacted already, at another seq; at the
 * same seq the hand-off the note began is finished, with no second summary.
 */
export async function compact(origin: Recorder, context: CompactionContext): Promise<Continuation> {
  const { agent, store } = context;
  const state = origin.state;
  if (state.pending !== null) throw inToolBatch(state);
  if (nothingToCompact(state)) throw nothingToCompactError(state);
  const earlier = store === null ? null : await compactionOf(store, state.run_id);
  if (earlier !== null && earlier.at !== state.last_seq) throw new CompactedError(state.run_id, earlier.into, earlier.at);
  let note = earlier;
  if (note === null && store !== null && !store.exclusiveOpen) note = await claimCompaction(store, state.run_id, state.last_seq, context.signal);
  if (note === null) {
    const notes = store === null ? undefined : { store, runId: state.run_id, at: state.last_seq };
    const summary = await summarize(agent, state.messages, context.signal, notes);
    const keep = compactionSettings(agent).keepTurns;
    note = {
      into: generateRunId(),
      at: state.last_seq,
      prompt: continuationPrompt(state.run_id, state.last_seq, summary.text, keptText(state.messages, keep)),
      usage: summary.usage,
      iteration: state.next_iteration,
      kept: keptMessages(state.messages, keep).filter((m) => m.role === 'assistant').length,
      ...(state.interactive && context.atPrompt === true ? { input_first: true } : {}),
    };
    if (store !== null) {
      await store.putNote(state.run_id, COMPACTION_NOTE, encodeCompaction(note));
      // A note is written once: the one stored is the one that holds.
      note = (await compactionOf(store, state.run_id)) ?? note;
    }
  }
  return handOff(origin, note, context);
}

/** How long a claim of a compaction holds without its note: a summary call outlasting it is taken as its writer gone. */
export const CLAIM_HOLDS_MS = 5 * 60_000;
const CLAIM_POLL_MS = 200;

/**
 * Claims the compaction of run `id` at seq `at` for this writer, where its
 * store does not hold a run against other writers: the first claim written
 * holds (a write-once note). Null once claimed: the summary call is this
 * writer's to make. Another writer's claim is waited out: its compaction's
 * note once kept is refused with (CompactedError, naming the continuation),
 * and a claim that outlasts CLAIM_HOLDS_MS without one gives way to the next.
 */
async function claimCompaction(store: Store, id: string, at: number, signal: AbortSignal | undefined): Promise<null> {
  const nonce = nodeCrypto().randomBytes(8).toString('hex');
  for (let n = 1; ; n++) {
    const key = compactionClaimKey(at, n);
    await store.putNote(id, key, encodeClaim({ nonce, time: Date.now() }));
    const claim = parseClaim(await store.getNote(id, key));
    if (claim === null || claim.nonce === nonce) return null;
    for (;;) {
      const note = await compactionOf(store, id);
      if (note !== null) throw new CompactedError(id, note.into, note.at);
      if (Date.now() - claim.time > CLAIM_HOLDS_MS) break;
      if (signal?.aborted) throw new LogbookError('interrupted', 'stopped while another writer compacted the run', { cause: signal.reason });
      await new Promise((resolve) => setTimeout(resolve, CLAIM_POLL_MS));
    }
  }
}

/**
 * Whether run `state` holds nothing a summary would shorten: its first turn
 * alone, with no model turn since (a continuation that has its summary and
 * kept exchanges only: summarizing them again costs a call and saves nothing).
 */
export function nothingToCompact(state: RunState): boolean {
  return state.pending === null && state.counters.llm_calls === 0 && state.messages.length <= 1;
}

/** `nothing_to_compact`: nothing since the run's first turn. */
export function nothingToCompactError(state: RunState): LogbookError {
  return new LogbookError('nothing_to_compact', `nothing to compact: run ${state.run_id} holds its first turn alone (a continuation's: its summary), with no model turn since`, { details: { runId: state.run_id } });
}

/** `in_tool_batch`: the run is inside a tool batch, where it cannot be cut. */
export function inToolBatch(state: RunState): LogbookError {
  const p = state.pending!;
  const total = toolUses(p.assistant).length;
  return new LogbookError(
    'in_tool_batch',
    `run ${state.run_id} is in the middle of a tool batch (${p.answered.length} of ${total} call${total === 1 ? '' : 's'} answered), where it cannot be compacted`,
    { details: { runId: state.run_id } },
  );
}

/**
 * Steps 3 to 5 of a compaction whose note is kept: the continuation's notes,
 * its meta (or the one already made under the note's id), and the compacted
 * run's terminal record, which `origin` holds. Each step is done once
 * whatever crashed before it.
 */
export async function handOff(origin: Recorder, note: CompactionNote, context: CompactionContext): Promise<Continuation> {
  const { agent, store } = context;
  const from = origin.state.run_id;
  const meta = newRunMeta(note.into, fingerprintOf(agent), note.prompt, origin.state.interactive);
  let journal: Journal | null = null;
  let state = initialState({ seq: 1, meta });
  let metaLine = encodeRecord({ seq: 1, meta });
  let madeNow = true;
  if (store !== null) {
    await store.markFork(note.into, { from, at: note.at, compacted: true });
    const place = await store.placeOf(from).catch(() => null);
    for (const w of await keepRunNotes(store, meta, agent, place ?? undefined)) context.warn?.(w);
    try {
      journal = await store.create(note.into, meta);
    } catch (err) {
      if (!isLogbookError(err, 'exists')) throw err;
      // Made before a crash: it is this continuation if its first turn is the note's.
      const made = await store.loadState(note.into);
      if (made.state.prompt !== note.prompt) {
        throw new LogbookError('exists', `run ${note.into}, where run ${from} was to be compacted into, exists and is not its continuation`, { cause: err });
      }
      journal = await store.open(note.into, { checkedThrough: made.lastSeq });
      state = made.state;
      metaLine = made.metaLine;
      madeNow = false;
    }
  }
  try {
    if (origin.state.last_seq === note.at) await origin.append(compactedTerminal(note.into));
  } catch (err) {
    await journal?.close();
    throw err;
  }
  // Told after the compacted run's end, so whoever reads the records told sees one run's, then the other's.
  if (madeNow) context.onRecord?.({ seq: 1, meta });
  return { recorder: new Recorder(state, journal, context.onRecord), journal, metaLine, note, from };
}

/** The input of the first request run `id` made (a continuation's: its summary and kept exchanges), or null before it made one. */
export async function firstRequestInput(store: Store, id: string): Promise<number | null> {
  let provider = '';
  for await (const { record } of store.records(id, { select: mayBeAssistant })) {
    if ('meta' in record) provider = record.meta.fingerprint.provider;
    else if ('assistant' in record) return requestInputTokens(provider, record.assistant);
  }
  return null;
}
