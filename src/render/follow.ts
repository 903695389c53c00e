/**
 * A run rendered as its records arrive, the way live narration shows it: the
 * prompt, each turn's prose, tool calls as their call lines, results (with
 * `toolOutput`), follow-ups, and how the run ended. Each record is folded in
 * with `step`, so what is shown is checked as a load checks it, and rendered
 * like the plain transcript (`dumpItem`), with the same blank lines between
 * the sides of the conversation.
 */
import { initialState, step, type JournalRecord, type RunState } from '../core/index.js';
import { callLine } from './calls.js';
import { dumpItem, type DumpOptions } from './dump.js';
import { joinItems } from './lines.js';
import { sanitize, sanitizeLine } from './sanitize.js';
import { blockItem, resultItem, type TranscriptItem } from './transcript.js';

export interface FollowOptions extends DumpOptions {
  /** Show thinking (live narration shows it with --verbose). */
  thinking?: boolean;
}

/** The name of the call `id` answers, from the turn in flight. */
function callName(state: RunState, id: string): string {
  for (const b of state.pending?.assistant.content ?? []) {
    if ('tool_use' in b && b.tool_use.id === id) return sanitizeLine(b.tool_use.name);
  }
  return '?';
}

/** What one record adds to the transcript, given the state before it. */
function recordItems(record: JournalRecord, before: RunState | null, thinking: boolean): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  if ('meta' in record) {
    if (record.meta.prompt !== '') items.push({ kind: 'prompt', text: sanitize(record.meta.prompt) });
  } else if ('assistant' in record || 'user' in record) {
    const message = 'assistant' in record ? record.assistant.message : record.user.message;
    for (const b of message.content) {
      if ('tool_use' in b) {
        const { id, name, input } = b.tool_use;
        items.push({ kind: 'call', id: sanitizeLine(id), name: sanitizeLine(name), input: input.text, pending: true, answered: false });
      } else if ('tool_result' in b) {
        items.push(resultItem(b.tool_result, '?'));
      } else if (!('thinking' in b) || thinking) {
        items.push(blockItem(b, message.role)!);
      }
    }
  } else if ('tool_result' in record) {
    const { result, tool_use_id } = record.tool_result;
    items.push(resultItem(result, before === null ? '?' : callName(before, tool_use_id)));
  } else {
    const end: TranscriptItem = { kind: 'end', reason: record.terminal.reason };
    if (record.terminal.message !== undefined) end.message = sanitize(record.terminal.message);
    items.push(end);
  }
  return items;
}

/** Renders a run record by record; every line it returns is sanitized. */
export class FollowedTranscript {
  private state: RunState | null = null;
  private last: TranscriptItem | undefined;

  constructor(private readonly options: FollowOptions = {}) {}

  /** The state folded so far (null before the meta record). */
  get folded(): RunState | null {
    return this.state;
  }

  /**
   * Folds `record` in and returns the text it adds (whole lines), or nothing
   * when `show` is false (records before the point a watch starts showing).
   */
  add(record: JournalRecord, show = true): string {
    const before = this.state;
    const items = show ? recordItems(record, before, this.options.thinking === true) : [];
    this.state = before === null ? initialState(record) : step(before, record);
    const rendered = items.map((item) => ({ item, lines: this.lines(item) })).filter((r) => r.lines.length > 0);
    const text = joinItems(rendered, this.last);
    if (rendered.length > 0) this.last = rendered[rendered.length - 1]!.item;
    return text;
  }

  private lines(item: TranscriptItem): string[] {
    if (item.kind === 'call') {
      const style = this.options.style;
      const line = callLine(item.name, item.input, { width: this.options.width });
      return [style ? style.call(line) : line];
    }
    return dumpItem(item, this.options);
  }
}
