/**
 * What a page following a run is sent: at first the run's head and the last
 * part of its transcript and timeline (a window, as the terminal viewer shows
 * the screen it opens on; earlier parts come on demand), then at each change
 * only what changed. Both lists are keyed (the transcript's groups by message,
 * the timeline's entries by record seq), keys only grow, and a change is sent
 * as "from key K on, these": the page drops what it holds from K on and adds
 * them. A record appended to a run of any length so sends its last groups and
 * entries, never the run.
 *
 * Each follower compares what it would send with what it sent over its part
 * of the run, which starts at the window and moves on as the run grows: a
 * change of a message far behind the end (which the journal, append-only, does
 * not make) is not looked for.
 */
import type { Timeline, TimelineEntry } from '../../render/timeline.js';
import { runHead, timelineView, transcriptView, type RunHead, type RunViewInput, type ViewGroup, type ViewWindow } from '../../render/run-view.js';

/** How much a page is given at first, and at each request for more: messages of the transcript, records of the timeline. */
export const WINDOW = { messages: 60, records: 120 } as const;

/** The window a page opens on: the last messages and records of the run. */
export function lastWindow(input: Pick<RunViewInput, 'state'>): ViewWindow {
  return {
    messages: { from: Math.max(0, input.state.messages.length - WINDOW.messages) },
    records: { from: Math.max(1, input.state.last_seq - WINDOW.records + 1) },
  };
}

/** The part before `before` (a message index or a record seq) a page asks for when it shows more. */
export function windowBefore(before: number, size: number, first: number): { from: number; to: number } {
  return { from: Math.max(first, before - size), to: Math.max(first, before) };
}

/** A change of a keyed list: drop what is held from key `from` on, then add `items`. */
export interface ListChange<T> {
  from: number;
  items: T[];
}

/** A keyed list as last sent, and what to send of it next. */
class KeyedList<T> {
  private sent: { key: number; json: string }[] | null = null;

  /** What changed since the last call (null when nothing), given the list from key `from` on. */
  change(items: readonly T[], keyOf: (item: T) => number, from: number): ListChange<T> | null {
    const next = items.map((item) => ({ key: keyOf(item), json: JSON.stringify(item) }));
    const prev = this.sent?.filter((s) => s.key >= from);
    this.sent = next;
    if (prev === undefined) return { from, items: [...items] };
    const i = firstDifference(prev, next);
    if (i === null) return null;
    const restart = Math.min(prev[i]?.key ?? Infinity, next[i]?.key ?? Infinity);
    return { from: restart, items: items.filter((item) => keyOf(item) >= restart) };
  }
}

function firstDifference(a: readonly { key: number; json: string }[], b: readonly { key: number; json: string }[]): number | null {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i]?.key !== b[i]?.key || a[i]?.json !== b[i]?.json) return i;
  return null;
}

export interface ViewChanges {
  head?: RunHead;
  transcript?: ListChange<ViewGroup>;
  timeline?: ListChange<TimelineEntry>;
}

/** One page's following of one run: the changes of its view, each sent once. */
export class ViewDiff {
  private head = '';
  private readonly groups = new KeyedList<ViewGroup>();
  private readonly entries = new KeyedList<TimelineEntry>();
  /** Where the part compared starts: a message index, a record seq. */
  private messagesFrom: number | null = null;
  private recordsFrom = 1;

  /** What to send for the run as it stands now. */
  next(input: RunViewInput): ViewChanges {
    const changes: ViewChanges = {};
    const head = runHead(input);
    const headJson = JSON.stringify(head);
    if (headJson !== this.head) {
      this.head = headJson;
      changes.head = head;
    }
    if (this.messagesFrom === null) {
      const window = lastWindow(input);
      this.messagesFrom = window.messages!.from!;
      this.recordsFrom = window.records!.from!;
    }
    // The part compared moves on as the run grows, so that a change costs what the window holds.
    if (input.state.messages.length - this.messagesFrom > 2 * WINDOW.messages) this.messagesFrom = input.state.messages.length - WINDOW.messages;
    if (input.state.last_seq - this.recordsFrom > 2 * WINDOW.records) this.recordsFrom = input.state.last_seq - WINDOW.records + 1;
    const transcript = this.groups.change(transcriptView(input, { from: this.messagesFrom }), (g) => g.at, this.messagesFrom);
    if (transcript !== null) changes.transcript = transcript;
    const timeline: Timeline = timelineView(input, { from: this.recordsFrom });
    const entries = this.entries.change(timeline.entries, (e) => e.seq, this.recordsFrom);
    if (entries !== null) changes.timeline = entries;
    return changes;
  }
}
