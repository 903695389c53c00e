/**
 * The listing index: what a listing read from each run's ends (its meta record
 * and its last record), kept beside the runs under the version that names the
 * bytes it was read from (RunSummary.version), so the next listing takes a run
 * whose version is unchanged from it instead of opening and decoding the
 * journal's ends again. It is never a second source of truth: an entry whose
 * version differs from the run's as listed now is ignored and the ends are read
 * again, an index that does not parse is ignored whole, and nothing a listing
 * cannot read is kept in it (an unreadable run is read, and reported, at every
 * listing).
 */
import type { Fingerprint, RunStatus } from '../core/index.js';

/** Names this layout; an index written under another is ignored whole. */
const FORMAT = 'logbook-listing-index-2';

/** What a listing learns of a run from its ends (journal-store.ts describe). */
export interface EndsFacts {
  created: string;
  model: string;
  prompt: string;
  interactive: boolean;
  lastSeq: number;
  fingerprint: Fingerprint;
  foldStatus: RunStatus;
}

/** An entry: the facts and the version of the run's bytes they were read from. */
export interface IndexedEnds {
  version: string;
  facts: EndsFacts;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * An entry as stored: a flat array, no keys (ten thousand runs make an index
 * of megabytes, parsed at every listing): the version, then the facts.
 */
type StoredEntry = [
  version: string,
  created: string,
  model: string,
  prompt: string,
  interactive: boolean,
  lastSeq: number,
  foldStatus: string,
  provider: string,
  fingerprintModel: string,
  systemHash: string,
  toolsHash: string,
  thinkingMode: string,
  maxTokens: number,
  maxIterations: number,
];

const STRINGS = [0, 1, 2, 3, 6, 7, 8, 9, 10, 11] as const;
const INTEGERS = [12, 13] as const;

/** The entry when it has the shape a listing wrote; null otherwise (the run's ends are then read). */
function entryOf(v: unknown): IndexedEnds | null {
  if (!Array.isArray(v) || v.length !== 14) return null;
  if (!STRINGS.every((i) => isString(v[i])) || typeof v[4] !== 'boolean' || !INTEGERS.every((i) => Number.isSafeInteger(v[i]))) return null;
  if (!Number.isSafeInteger(v[5]) || (v[5] as number) < 1) return null;
  const [version, created, model, prompt, interactive, lastSeq, foldStatus, provider, fpModel, system_hash, tools_hash, thinking_mode, max_tokens, max_iterations] = v as StoredEntry;
  const fingerprint: Fingerprint = { provider, model: fpModel, system_hash, tools_hash, thinking_mode, max_tokens, max_iterations };
  return { version, facts: { created, model, prompt, interactive, lastSeq, fingerprint, foldStatus } };
}

/** The index's entries by run id; empty when there is none or it is not one this build wrote. */
export function parseListingIndex(text: string | null): Map<string, IndexedEnds> {
  const entries = new Map<string, IndexedEnds>();
  if (text === null) return entries;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return entries;
  }
  if (!isRecord(parsed) || parsed['format'] !== FORMAT || !isRecord(parsed['runs'])) return entries;
  for (const [id, stored] of Object.entries(parsed['runs'])) {
    const entry = entryOf(stored);
    if (entry !== null) entries.set(id, entry);
  }
  return entries;
}

/** The index's text for these entries. */
export function encodeListingIndex(entries: ReadonlyMap<string, IndexedEnds>): string {
  const runs = Object.create(null) as Record<string, StoredEntry>;
  for (const [id, { version, facts }] of entries) {
    const { created, model, prompt, interactive, lastSeq, foldStatus, fingerprint: fp } = facts;
    runs[id] = [version, created, model, prompt, interactive, lastSeq, foldStatus, fp.provider, fp.model, fp.system_hash, fp.tools_hash, fp.thinking_mode, fp.max_tokens, fp.max_iterations];
  }
  return JSON.stringify({ format: FORMAT, runs });
}
