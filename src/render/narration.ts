/**
 * What a resumed run tells the operator on stderr before it goes on: where it
 * stands (the run, its LLM calls so far, the prompt, each turn's prose and tool
 * calls, the in-flight turn) and then `continuing`.
 */
import type { RunState } from '../core/index.js';
import { callLine } from './calls.js';
import { hang, joinItems, marker, pendingLine } from './lines.js';
import { sanitizeLine } from './sanitize.js';
import { plain, type Style } from './style.js';
import { transcriptItems, type TranscriptItem } from './transcript.js';

export interface NarrationOptions {
  /**
   * What a call would actually do (a resolved command line) when its tool is
   * still known; undefined to fall back to its name and JSON arguments.
   */
  describeCall?: (name: string, inputJson: string) => string | undefined;
  /** stderr's width when it is a terminal: long arguments are elided to fit. */
  width?: number;
  style?: Style;
}

function narratedCall(item: Extract<TranscriptItem, { kind: 'call' }>, options: NarrationOptions): string {
  return callLine(item.name, item.input, {
    resolved: options.describeCall?.(item.name, item.input),
    width: options.width,
    suffix: item.pending && item.answered ? ' (answered)' : '',
  });
}

function narrateItem(item: TranscriptItem, options: NarrationOptions, style: Style): string[] {
  switch (item.kind) {
    case 'prompt':
    case 'user':
      return hang(item.text, '> ', '  ').map(style.strong);
    case 'text':
      return item.text.split('\n');
    case 'call':
      return [style.call(narratedCall(item, options))];
    case 'pending':
      return [marker(style, pendingLine(item))];
    default:
      return []; // thinking, results, provider blocks and old terminal records are not narrated
  }
}

export function resumeNarration(state: RunState, options: NarrationOptions = {}): string {
  const style = options.style ?? plain;
  const calls = state.counters.llm_calls;
  const header = style.strong(`resuming run ${sanitizeLine(state.run_id)} (${calls} LLM call${calls === 1 ? '' : 's'} so far)`);
  // Results and thinking are not narrated, so they are not rendered either.
  const body = joinItems(transcriptItems(state, { details: false }).map((item) => ({ item, lines: narrateItem(item, options, style) })));
  return `${header}\n${body}${style.note('continuing')}\n`;
}
