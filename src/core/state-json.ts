/**
 * The folded state as one JSON object, in the spec's Fold keys (the derived
 * `status` included), with raw JSON (`input`, `raw`) written as carried. This is
 * `session show --json`, printed where a terminal may show it: terminal controls
 * are \u escapes.
 */
import { encodeFingerprint, encodeMessage, encodeMessageAs, encodeTerminal, encodeToolResultBody, type Spelling } from './encode.js';
import type { RunState } from './fold.js';
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
  yield escapeTerminalControls(
    `{"run_id":${quote(state.run_id)},"version":${state.version},"fingerprint":${encodeFingerprint(state.fingerprint)},` +
      `"prompt":${quote(state.prompt)},"interactive":${state.interactive},"messages":[`,
  );
  const { messages } = state;
  for (let i = 0; i < messages.length; i++) yield `${i === 0 ? '' : ','}${encodeMessageAs(messages[i]!, TERMINAL)}`;
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
  yield escapeTerminalControls(`${out}}`);
}
