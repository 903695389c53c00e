/**
 * The plain-text transcript: prompt, thinking, narration and tool calls, and
 * with `toolOutput` each call's result right after it. What `session show
 * --transcript` prints when it is not on a terminal (or with --no-tui).
 */
import type { RunState } from '../core/index.js';
import { formatDuration } from './durations.js';
import { callLine } from './calls.js';
import { callSuffix, elidedLine, endLine, hang, joinItems, marker, pendingLine } from './lines.js';
import { resultLines } from './results.js';
import { plain, type Style } from './style.js';
import { transcriptItems, type ToolAgents, type TranscriptItem } from './transcript.js';

export interface DumpOptions {
  /** Show tool results (the `--tool-output` flag). */
  toolOutput?: boolean;
  /** A terminal's width: long call arguments are elided to fit. Omit when piped: always full. */
  width?: number;
  style?: Style;
  /** Which agent runs each remote tool (the run's remote-tools note), to name it on its calls. */
  agents?: ToolAgents;
  /** How the model's text is laid out: as Markdown on a terminal (the CLI's terminalProse); as written when omitted. */
  prose?: Prose;
}

/** The lines a model's text, already sanitized, is shown as. */
export type Prose = (text: string) => string[];

/** The lines one item renders as in the dump; results only with `toolOutput`. */
export function dumpItem(item: TranscriptItem, options: DumpOptions = {}): string[] {
  const style = options.style ?? plain;
  switch (item.kind) {
    case 'prompt':
    case 'user':
      return hang(item.text, '> ', '  ').map(style.strong);
    case 'thinking':
      return hang(item.text || '(redacted)', '[thinking] ', '  ').map(style.faint);
    case 'text':
      return options.prose !== undefined ? options.prose(item.text) : item.text.split('\n');
    case 'provider':
      return [style.faint(`[${item.providerKind}]`)];
    case 'call': {
      const suffix = callSuffix(item);
      const lines = [style.call(callLine(item.name, item.input, { width: options.width, suffix }))];
      if (options.toolOutput && !item.answered && item.note === undefined) lines.push(style.faint('  (no result yet)'));
      return lines;
    }
    case 'result': {
      if (!options.toolOutput) return [];
      const lines = resultLines(item).map((l) => `  ${l}`);
      return item.isError ? lines.map(style.bad) : lines;
    }
    case 'pending':
      return [marker(style, pendingLine(item))];
    case 'elided':
      return [marker(style, elidedLine(item))];
    case 'model':
      return [style.faint(`(model call, ${formatDuration(item.took)})`)];
    case 'end':
      return hang(endLine(item), '', '   ').map((l, i) => (i === 0 ? marker(style, l) : style.note(l)));
  }
}

export function dumpTranscript(state: RunState, options: DumpOptions = {}): string {
  return joinItems(transcriptItems(state, options.agents ? { agents: options.agents } : {}).map((item) => ({ item, lines: dumpItem(item, options) })));
}
