/**
 * The folded state as one JSON object, in the spec's Fold keys (the derived
 * `status` included), with raw JSON (`input`, `raw`) written as carried. This is
 * `session show --json`, printed where a terminal may show it: terminal controls
 * are \u escapes.
 */
import { encodeFingerprint, encodeMessage, encodeMessageAs, encodeTerminal, encodeToolResultBody, putMessageAs, type Spelling } from './encode.js';
import type { RunState } from './fold.js';
import type { Message } from './records.js';
import { escapeTerminalControls, quote, terminalQuote } from './json-text.js';
import type { RunTimes } from './timing.js';

/** What a caller knows of a run beside its records, written after the fold's keys. */
export interface StateJsonExtra {
  created?: string;
  updated?: string;
  /** The status as a listing names it (`interrupted`, `running`, `forked`...), beside the fold's `status`. */
  listedStatus?: string;
  /** The run and seq it was forked from. */
  forkedFrom?: { run_id: string; seq: number };
  /** When each record became durable (kept beside the journal): `"times":{"<seq>":"<RFC 3339>",...}`, in seq order. */
  times?: RunTimes;
  /** More keys, written last, each value as JSON. */
  more?: readonly (readonly [string, unknown])[];
}

/** Strings and raw values spelled for a terminal one at a time, rather than each message's whole text searched again. */
const TERMINAL: Spelling = { quote: terminalQuote, raw: escapeTerminalControls };

export function stateToJson(state: RunState, extra: StateJsonExtra = {}): string {
  return [...stateJsonParts(state, extra)].join('');
}

/**
 * stateToJson's text in parts, in order, each escaped for a terminal: the
 * fields before the conversation, each message, and the rest. A caller that
 * writes them as they come never holds the whole text of a long run.
 */
export function* stateJsonParts(state: RunState, extra: StateJsonExtra = {}): Generator<string> {
  yield stateJsonHead(state);
  const { messages } = state;
  for (let i = 0; i < messages.length; i++) yield messageJson(messages[i]!, i, TERMINAL);
  yield stateJsonTail(state, extra);
}

/** The fields before the conversation, which its meta record alone sets. */
function stateJsonHead(state: RunState): string {
  return escapeTerminalControls(
    `{"run_id":${quote(state.run_id)},"version":${state.version},"fingerprint":${encodeFingerprint(state.fingerprint)},` +
      `"prompt":${quote(state.prompt)},"interactive":${state.interactive},"messages":[`,
  );
}

/** Message `i` of the conversation, in `spelling`, with the comma before it. */
const messageJson = (m: Message, i: number, spelling: Spelling): string => `${i === 0 ? '' : ','}${encodeMessageAs(m, spelling)}`;

/** messageJson's text, handed to `write` in pieces (putMessageAs). */
const writeMessage = (m: Message, i: number, write: (piece: string) => void): void => putMessageAs(m, TERMINAL, write, i === 0 ? '' : ',');

/** The fields after the conversation: what stands after the last record, and what the caller knows beside the run. */
function stateJsonTail(state: RunState, extra: StateJsonExtra): string {
  const p = state.pending;
  const pending =
    p === null
      ? 'null'
      : `{"assistant":${encodeMessage(p.assistant)},"iteration":${p.iteration},"stop_reason":${quote(p.stop_reason)},` +
        `"results":[${p.results.map(encodeToolResultBody).join(',')}],"answered":[${p.answered.map(quote).join(',')}]}`;
  const terminal = state.terminal === null ? 'null' : encodeTerminal(state.terminal);
  const c = state.counters;
  const counters =
    `{"llm_calls":${c.llm_calls},"tool_calls":${c.tool_calls},"remote_tool_calls":${c.remote_tool_calls},` +
    `"in_tokens":${c.in_tokens},"out_tokens":${c.out_tokens},"cache_read_tokens":${c.cache_read_tokens},` +
    `"cache_create_tokens":${c.cache_create_tokens}}`;
  let out =
    `],"pending":${pending},"counters":${counters},` +
    `"next_iteration":${state.next_iteration},"last_stop_reason":${quote(state.last_stop_reason)},"terminal":${terminal}` +
    `,"status":${quote(state.status)}`;
  if (extra.created !== undefined) out += `,"created":${quote(extra.created)}`;
  if (extra.updated !== undefined) out += `,"updated":${quote(extra.updated)}`;
  if (extra.listedStatus !== undefined) out += `,"listed_status":${quote(extra.listedStatus)}`;
  if (extra.forkedFrom !== undefined) out += `,"forked_from":{"run_id":${quote(extra.forkedFrom.run_id)},"seq":${extra.forkedFrom.seq}}`;
  if (extra.times !== undefined) {
    const seqs = [...extra.times.records.keys()].sort((a, b) => a - b);
    out += `,"times":{${seqs.map((seq) => `"${seq}":${quote(new Date(extra.times!.records.get(seq)!).toISOString())}`).join(',')}}`;
  }
  for (const [key, value] of extra.more ?? []) out += `,${quote(key)}:${JSON.stringify(value)}`;
  return escapeTerminalControls(`${out}}`);
}

/**
 * stateToJson's text written while the run folds, for a caller that needs
 * nothing else of its conversation: after each record (`folded`), the parts no
 * later record can change (the head, once; then every message but the last,
 * which a user record may still merge into), each message then taken out of
 * the state, which keeps only the conversation's last two messages (what a
 * step reads of it). Its tail, at the end (`end`), is stateJsonParts' own.
 * Joined, the parts are stateToJson of the run's whole fold; its state is no
 * longer that fold once the first message is written, so nothing else may
 * read its `messages`. A long run's conversation is never held whole.
 * An output read as its literal (output-literal.ts) is written as that literal.
 */
export class StateJsonStream {
  private started = false;
  /** How many messages were written. */
  private written = 0;
  /** The index in state.messages of the first not yet written. */
  private next = 0;
  constructor(private readonly write: (part: string) => void) {}

  private head(state: RunState): void {
    if (this.started) return;
    this.started = true;
    this.write(stateJsonHead(state));
  }

  /** After a record was folded into `state` (its meta the first). */
  folded(state: RunState): void {
    this.head(state);
    const { messages } = state;
    while (this.next < messages.length - 1) writeMessage(messages[this.next++]!, this.written++, this.write);
    const drop = Math.min(this.next, messages.length - 2);
    if (drop > 0) {
      messages.splice(0, drop);
      this.next -= drop;
    }
  }

  /** After the last record: the messages left, then the tail. */
  end(state: RunState, extra: StateJsonExtra = {}): void {
    this.head(state);
    const { messages } = state;
    while (this.next < messages.length) writeMessage(messages[this.next++]!, this.written++, this.write);
    this.write(stateJsonTail(state, extra));
  }
}

