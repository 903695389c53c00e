/**
 * The folded state as one JSON object, in the spec's Fold keys (the derived
 * `status` included), with raw JSON (`input`, `raw`) written as carried. This is
 * `session show --json`, printed where a terminal may show it: terminal controls
 * are \u escapes.
 */
import { encodeFingerprint, encodeMessage, encodeMessageAs, encodeTerminal, encodeToolResultBody, type Spelling } from './encode.js';
import type { RunState } from './fold.js';
import { PROTOCOL_IDS, type JournalRecord, type Message } from './records.js';
import { escapeTerminalControls, isTerminalLiteral, quote, terminalQuote } from './json-text.js';
import { stringEnd } from './json-scan.js';
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

/** The encoder's text between a tool result line's seq and its call's id, between that id and its result's, and before its output. */
const RESULT_HEAD = `,"protocol":"${PROTOCOL_IDS.tool_result}","tool_result":{"tool_use_id":`;
const RESULT_ID = ',"result":{"tool_use_id":';
const RESULT_CONTENT = ',"content":';
/** The encoder's text after a tool result's output, by whether it is an error and whether it is remote. */
const RESULT_TAILS = [
  ['}}}', '},"remote":true}}'],
  [',"is_error":true}}}', ',"is_error":true},"remote":true}}'],
] as const;

/**
 * The literal of a tool result's output in its journal line (`line`, which
 * decoded to `record`), when the line has the encoder's members, in its order
 * and spelling, around it, and the literal is the output's terminal spelling
 * (isTerminalLiteral): the line's own text is then what the stream would
 * spell; else undefined. The members are compared in constant pieces (each
 * string member's literal passed over whole), so no other member (a repeated
 * key, a field this build does not know) can have given the record its output.
 */
export function outputLiteral(record: JournalRecord, line: string): string | undefined {
  if (!('tool_result' in record) || !line.startsWith('{"seq":')) return undefined;
  let i = 7;
  while (isDigit(line.charCodeAt(i))) i++;
  i = pastString(line, i, RESULT_HEAD);
  if (i < 0) return undefined;
  i = pastString(line, i, RESULT_ID);
  if (i < 0 || !line.startsWith(RESULT_CONTENT, i)) return undefined;
  const start = i + RESULT_CONTENT.length;
  if (line.charCodeAt(start) !== 0x22 /* " */) return undefined;
  const end = stringEnd(line, start);
  const t = record.tool_result;
  const tail = RESULT_TAILS[t.result.is_error ? 1 : 0][t.remote ? 1 : 0];
  if (line.length !== end + tail.length || !line.endsWith(tail)) return undefined;
  const literal = line.slice(start, end);
  return isTerminalLiteral(literal) ? literal : undefined;
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** Where the string literal after `before` (at `i`) ends, or -1 when `before` is not at `i` or no string follows it. */
function pastString(line: string, i: number, before: string): number {
  if (!line.startsWith(before, i)) return -1;
  const at = i + before.length;
  return line.charCodeAt(at) === 0x22 /* " */ ? stringEnd(line, at) : -1;
}

/** How many outputs read ahead the stream looks among for the string it spells. */
const OUTPUTS_AHEAD = 8;

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
 * A tool output whose journal line holds it spelled as the stream spells it
 * (`read`) is written as that text rather than spelled again.
 */
export class StateJsonStream {
  private started = false;
  /** How many messages were written. */
  private written = 0;
  /** The index in state.messages of the first not yet written. */
  private next = 0;
  /** Tool outputs read and not yet written, in journal order (the order they are written in), with their lines' literals. */
  private readonly outputs: string[] = [];
  private readonly literals: string[] = [];
  /** Strings spelled for a terminal, an output by its line's literal when it is one read ahead. */
  private readonly spelling: Spelling = {
    quote: (s) => this.literalOf(s) ?? terminalQuote(s),
    raw: escapeTerminalControls,
  };

  constructor(private readonly write: (part: string) => void) {}

  /** A record before it is folded, with the line it was decoded from. */
  read(record: JournalRecord, line: string): void {
    if (!('tool_result' in record)) return;
    const literal = outputLiteral(record, line);
    if (literal === undefined) return;
    if (this.outputs.length === OUTPUTS_AHEAD) {
      this.outputs.shift();
      this.literals.shift();
    }
    this.outputs.push(record.tool_result.result.content);
    this.literals.push(literal);
  }

  /**
   * The literal of an output read ahead that holds `s`, taken with those read
   * before it (outputs are written in the order they were read; one passed
   * over is never written, as of a turn left in flight). Any string equal to
   * the output has that spelling, so a match is never wrong, only early.
   */
  private literalOf(s: string): string | undefined {
    const { outputs } = this;
    for (let i = 0; i < outputs.length; i++) {
      if (outputs[i] !== s) continue;
      const literal = this.literals[i]!;
      outputs.splice(0, i + 1);
      this.literals.splice(0, i + 1);
      return literal;
    }
    return undefined;
  }

  private head(state: RunState): void {
    if (this.started) return;
    this.started = true;
    this.write(stateJsonHead(state));
  }

  /** After a record was folded into `state` (its meta the first). */
  folded(state: RunState): void {
    this.head(state);
    const { messages } = state;
    while (this.next < messages.length - 1) this.write(messageJson(messages[this.next++]!, this.written++, this.spelling));
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
    while (this.next < messages.length) this.write(messageJson(messages[this.next++]!, this.written++, this.spelling));
    this.write(stateJsonTail(state, extra));
  }
}

