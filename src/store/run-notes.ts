/**
 * What logbook keeps beside a run as notes (Store.putNote), never in its
 * journal: the journal stays the reference's byte for byte, and a note is
 * written once and never changes. Each note's key and its reading live here:
 *
 * - `forked`: where a fork came from, the run and the last seq it took from it
 *   (`session fork`, or a completed run continued with a follow-up as a new run);
 * - `started`: the directory a run was started in and the config file it used;
 * - `turn-N`: the text typed as the user record at seq N (cut to TURN_NOTE_CHARS),
 *   kept by the store as that record becomes durable, so a listing shows a
 *   run's last typed turn without reading its journal.
 *
 * A note that cannot be read says nothing: each reader treats it as absent.
 */
import type { JournalRecord } from '../core/index.js';

/** Where a fork came from: the run and the last seq it took from it. */
export interface ForkOrigin {
  from: string;
  at: number;
}

/** Where a run was started: the working directory, and the config file it used (absolute paths). */
export interface RunPlace {
  dir: string;
  config?: string;
}

export const FORK_NOTE = 'forked';
export const PLACE_NOTE = 'started';
const TURN_NOTE = /^turn-([1-9][0-9]{0,14})$/;

/** The most of a typed turn its note keeps: enough for a listing's line and a picker's search. */
export const TURN_NOTE_CHARS = 500;

const parsed = (text: string | null): Record<string, unknown> | null => {
  if (text === null) return null;
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

export function encodeForkOrigin(origin: ForkOrigin): string {
  return JSON.stringify({ from: origin.from, at: origin.at });
}

export function parseForkOrigin(text: string | null): ForkOrigin | null {
  const o = parsed(text);
  return o !== null && typeof o.from === 'string' && typeof o.at === 'number' ? { from: o.from, at: o.at } : null;
}

export function encodePlace(place: RunPlace): string {
  return JSON.stringify({ dir: place.dir, ...(place.config !== undefined ? { config: place.config } : {}) });
}

export function parsePlace(text: string | null): RunPlace | null {
  const o = parsed(text);
  if (o === null || typeof o.dir !== 'string') return null;
  return { dir: o.dir, ...(typeof o.config === 'string' ? { config: o.config } : {}) };
}

/** The key of the note that keeps the turn typed at `seq`. */
export function turnNoteKey(seq: number): string {
  return `turn-${seq}`;
}

/** The key, among a run's note keys, of its last typed turn; null when none is kept. */
export function lastTurnKey(keys: readonly string[]): string | null {
  let best: { key: string; seq: number } | null = null;
  for (const key of keys) {
    const m = TURN_NOTE.exec(key);
    if (m === null) continue;
    const seq = Number(m[1]);
    if (best === null || seq > best.seq) best = { key, seq };
  }
  return best?.key ?? null;
}

/** The text typed in a user record (its text blocks, one per line), or null when the record is no user record. */
export function typedText(record: JournalRecord): string | null {
  if (!('user' in record)) return null;
  return record.user.message.content.flatMap((b) => ('text' in b ? [b.text.text] : [])).join('\n');
}

/** A typed turn as its note keeps it: at most TURN_NOTE_CHARS characters, never half a character. */
export function turnNoteText(text: string): string {
  if (text.length <= TURN_NOTE_CHARS) return text;
  const chars = [...text];
  return chars.length <= TURN_NOTE_CHARS ? text : chars.slice(0, TURN_NOTE_CHARS).join('');
}
