/** Small text layout helpers shared by the renderings. */
import type { Style } from './style.js';
import { gapBefore, type CallNote, type RemoteCall, type TranscriptItem } from './transcript.js';

/** `first` before the first line of `text`, `rest` before every other line. */
export function hang(text: string, first: string, rest: string): string[] {
  return text.split('\n').map((line, i) => (i === 0 ? first : rest) + line);
}

/** How a call's note reads, the same in every rendering. */
export function callNoteText(note: CallNote): string {
  switch (note) {
    case 'awaiting':
      return 'awaits approval';
    case 'denied':
      return 'denied by the operator';
    case 'not_rerun':
      return 'not re-run after an interruption';
    case 'stopped':
      return 'stopped by the operator';
    case 'invalid_input':
      return 'refused, never run: its input was not JSON';
    case 'repeated_id':
      return 'refused, never run: its id repeats an earlier call';
  }
}

/** How a remote call is marked, the same in every rendering: `on agent probe`, or `remote` when its agent is not known. */
export function remoteText(remote: RemoteCall): string {
  return remote.agent === null ? 'remote' : `on agent ${remote.agent}`;
}

/** A call line's suffix: its remote mark and its note, each in parentheses. */
export function callSuffix(item: { note?: CallNote; remote?: RemoteCall }): string {
  const parts = [...(item.remote !== undefined ? [remoteText(item.remote)] : []), ...(item.note !== undefined ? [callNoteText(item.note)] : [])];
  return parts.map((p) => ` (${p})`).join('');
}

/** What an export says under a call: its note, else `no result yet` when it has none. */
export function callStatusText(item: { answered: boolean; note?: CallNote }): string | undefined {
  if (item.note !== undefined) return callNoteText(item.note);
  return item.answered ? undefined : 'no result yet';
}

/** The line that starts the pending turn. */
export function pendingLine(item: { answered: number; total: number }, running = false): string {
  // While a writer holds the run, it is completing the turn now; else a resume completes it.
  return `in-flight turn: ${item.answered} of ${item.total} tool calls answered; ${running ? 'running' : 'a resume completes it first'}`;
}

/** The line that stands for model turns a rendering leaves out. */
export function elidedLine(item: { turns: number }): string {
  return `${item.turns} earlier model turn${item.turns === 1 ? '' : 's'} not shown (--replay all shows them)`;
}

/** The line that tells how the run stopped. */
export function endLine(item: { reason: string; message?: string }): string {
  return item.message ? `run ${item.reason}: ${item.message}` : `run ${item.reason}`;
}

/**
 * Joins rendered items, with a blank line wherever the conversation changes
 * sides (operator, model, or a marker line). `previous` is the item shown just
 * before these, when they continue a rendering.
 */
export function joinItems(rendered: { item: TranscriptItem; lines: string[] }[], previous?: TranscriptItem): string {
  const out: string[] = [];
  let last = previous;
  for (const { item, lines } of rendered) {
    if (lines.length === 0) continue;
    if (gapBefore(last, item)) out.push('');
    last = item;
    for (const line of lines) out.push(line); // not push(...lines): a long text has more lines than a call takes arguments
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

export function marker(style: Style, text: string): string {
  return style.note(`\u2500\u2500 ${text}`);
}
