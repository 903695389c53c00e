/**
 * The transcript's items grouped the way an export lays them out: runs of one
 * side of the conversation (the operator's, the model's) under one heading, and
 * the pending and end markers between them. Built on transcriptItems, so calls
 * and results pair here exactly as in every other rendering.
 */
import type { CallDurations, RunState } from '../../core/index.js';
import { endLine, pendingLine } from '../lines.js';
import { side, transcriptItems, type ToolAgents, type TranscriptItem } from '../transcript.js';

type MarkerItem = Extract<TranscriptItem, { kind: 'pending' | 'end' }>;

export type Section =
  | { kind: 'turn'; side: 'user' | 'assistant'; heading: string; items: TranscriptItem[] }
  /** `title` is the marker's line, capitalized; an end's message is left to the item, for a block of its own. */
  | { kind: 'marker'; item: MarkerItem; title: string };

/** What a rendering of the sections knows beyond the run: which agent answered its remote calls, and how long its calls took. */
export interface SectionOptions {
  agents?: ToolAgents;
  durations?: CallDurations;
  /** A writer holds the run: its in-flight turn is running, not waiting for a resume. */
  running?: boolean;
}

const capitalized = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

function markerTitle(item: MarkerItem, running: boolean): string {
  return capitalized(item.kind === 'pending' ? pendingLine(item, running) : endLine({ reason: item.reason }));
}

function heading(item: TranscriptItem, afterPending: boolean): string {
  if (item.kind === 'prompt') return 'Prompt';
  if (side(item) === 'user') return 'User';
  return afterPending ? 'Assistant (in flight)' : 'Assistant';
}

/** The sections of the run's transcript; with `durations`, timed model calls and tool calls say how long they took. */
export function transcriptSections(state: RunState, options: SectionOptions = {}): Section[] {
  const sections: Section[] = [];
  let current: Extract<Section, { kind: 'turn' }> | null = null;
  let afterPending = false;
  for (const item of transcriptItems(state, options)) {
    if (item.kind === 'pending' || item.kind === 'end') {
      sections.push({ kind: 'marker', item, title: markerTitle(item, options.running === true) });
      current = null;
      afterPending = item.kind === 'pending';
      continue;
    }
    const title = heading(item, afterPending);
    if (current === null || current.heading !== title) {
      current = { kind: 'turn', side: side(item) === 'user' ? 'user' : 'assistant', heading: title, items: [] };
      sections.push(current);
    }
    current.items.push(item);
  }
  return sections;
}
