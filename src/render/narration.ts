/**
 * What a resumed run tells the operator on stderr before it goes on: where it
 * stands (the run, its model calls so far, the prompt, each turn's prose and tool
 * calls, the in-flight turn) and then `continuing`.
 */
import type { RunState } from '../core/index.js';
import { callLine } from './calls.js';
import type { Prose } from './dump.js';
import { callSuffix, elidedLine, hang, joinItems, marker, pendingLine } from './lines.js';
import { textHead } from './text-head.js';
import { sanitizeLine } from './sanitize.js';
import { plain, type Style } from './style.js';
import { transcriptItems, type ToolAgents, type TranscriptItem } from './transcript.js';

export interface NarrationOptions {
  /**
   * What a call would actually do (a resolved command line) when its tool is
   * still known; undefined to fall back to its name and JSON arguments.
   */
  describeCall?: (name: string, inputJson: string) => string | undefined;
  /**
   * What a call that ran did run, as its journaled result (`content`) says; it
   * comes before describeCall, which says what the config at hand would run.
   */
  describeRan?: (name: string, content: string) => string | undefined;
  /** stderr's width when it is a terminal: long arguments are elided to fit. */
  width?: number;
  style?: Style;
  /** The model turns narrated before the pending one: the last few (DEFAULT_NARRATED_TURNS), or all. */
  turns?: number | 'all';
  /** Which agent runs each remote tool, to name it on its calls. */
  agents?: ToolAgents;
  /** How the model's text is laid out (see DumpOptions.prose); as written when omitted. */
  prose?: Prose;
}

/** The model turns a resume narrates by default, after the prompt. */
export const DEFAULT_NARRATED_TURNS = 3;

/**
 * The conversation to narrate: the prompt's message, then the last `turns`
 * model turns (with a follow-up typed just before the first of them), and how
 * many model turns were left out.
 */
function lastTurns(state: RunState, turns: number): { state: RunState; elided: number } {
  const m = state.messages;
  const starts: number[] = [];
  m.forEach((msg, i) => msg.role === 'assistant' && starts.push(i));
  if (starts.length <= turns) return { state, elided: 0 };
  let from = starts[starts.length - turns] ?? m.length;
  const before = m[from - 1];
  if (from - 1 > 0 && before?.role === 'user' && before.content.some((b) => 'text' in b)) from--;
  const first = state.prompt === '' ? [] : m.slice(0, 1);
  return { state: { ...state, messages: [...first, ...m.slice(from)] }, elided: starts.length - turns };
}

/** A typed turn narrated in a tail: its first lines, enough to recognise it (a prompt may be megabytes). */
const TYPED_HEAD = { lines: 10, chars: 1000 };

function narratedCall(item: Extract<TranscriptItem, { kind: 'call' }>, options: NarrationOptions, results: ReadonlyMap<string, string>): string {
  const result = results.get(item.id);
  return callLine(item.name, item.input, {
    resolved: (result !== undefined ? options.describeRan?.(item.name, result) : undefined) ?? options.describeCall?.(item.name, item.input),
    width: options.width,
    suffix: item.note !== undefined || item.remote !== undefined ? callSuffix(item) : item.pending && item.answered ? ' (answered)' : '',
  });
}

/** The journaled result of each call, by the id its transcript item shows. */
function resultsOf(state: RunState): Map<string, string> {
  const results = new Map<string, string>();
  for (const m of state.messages) {
    for (const b of m.content) if ('tool_result' in b) results.set(sanitizeLine(b.tool_result.tool_use_id), b.tool_result.content);
  }
  return results;
}

function narrateItem(item: TranscriptItem, options: NarrationOptions, style: Style, results: ReadonlyMap<string, string> = new Map()): string[] {
  switch (item.kind) {
    case 'prompt':
    case 'user': {
      const { text, left } = options.turns === 'all' ? { text: item.text, left: 0 } : textHead(item.text, TYPED_HEAD);
      const lines = hang(text, '> ', '  ').map(style.strong);
      return left === 0 ? lines : [...lines, marker(style, `… ${left.toLocaleString('en-US')} more characters (--replay all shows them)`)];
    }
    case 'text':
      return options.prose !== undefined ? options.prose(item.text) : item.text.split('\n');
    case 'call':
      return [style.call(narratedCall(item, options, results))];
    case 'pending':
      return [marker(style, pendingLine(item))];
    case 'elided':
      return [marker(style, elidedLine(item))];
    default:
      return []; // thinking, results, provider blocks and old terminal records are not narrated
  }
}

export function resumeNarration(state: RunState, options: NarrationOptions = {}): string {
  const style = options.style ?? plain;
  const calls = state.counters.llm_calls;
  const header = style.strong(`resuming run ${sanitizeLine(state.run_id)} (${calls} model call${calls === 1 ? '' : 's'} so far)`);
  const { state: shown, elided } = options.turns === 'all' ? { state, elided: 0 } : lastTurns(state, options.turns ?? DEFAULT_NARRATED_TURNS);
  // Results and thinking are not narrated, so they are not rendered either.
  const items = transcriptItems(shown, { details: false, ...(options.agents ? { agents: options.agents } : {}) });
  // The shown turns hold the results of their calls: a long run's others are not gone through.
  const results = options.describeRan !== undefined ? resultsOf(shown) : new Map<string, string>();
  const rendered = items.map((item) => ({ item, lines: narrateItem(item, options, style, results) }));
  if (elided > 0) {
    const item: TranscriptItem = { kind: 'elided', turns: elided };
    const at = items.findIndex((i) => i.kind !== 'prompt');
    rendered.splice(at < 0 ? rendered.length : at, 0, { item, lines: narrateItem(item, options, style) });
  }
  return `${header}\n${joinItems(rendered)}${style.note('continuing')}\n`;
}
