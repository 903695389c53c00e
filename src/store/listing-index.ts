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
const FORMAT = 'logbook-listing-index-3';

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

/**
 * The index as stored, parsed at every listing (ten thousand runs make one of
 * a megabyte or more), so laid out for the parse: no keys, and what runs share
 * kept once. `agents` holds each distinct model and fingerprint as a tuple;
 * `runs` is one flat array, RUN_FIELDS values a run, its agent named by its
 * place in `agents`.
 */
interface StoredIndex {
  format: typeof FORMAT;
  agents: StoredAgent[];
  runs: (string | number | boolean)[];
}

type StoredAgent = [model: string, provider: string, fingerprintModel: string, systemHash: string, toolsHash: string, thinkingMode: string, maxTokens: number, maxIterations: number];

/** A run's values in `runs`: id, version, created, prompt, interactive, lastSeq, foldStatus, agent. */
const RUN_FIELDS = 8;

const isString = (v: unknown): v is string => typeof v === 'string';
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v);

/** An agent's tuple read back: the model and the fingerprint, shared by every run naming it; null when it is not one a listing wrote. */
function agentOf(v: unknown): { model: string; fingerprint: Fingerprint } | null {
  if (!Array.isArray(v) || v.length !== 8 || !v.slice(0, 6).every(isString) || !isCount(v[6]) || !isCount(v[7])) return null;
  const [model, provider, fpModel, system_hash, tools_hash, thinking_mode, max_tokens, max_iterations] = v as StoredAgent;
  return { model, fingerprint: { provider, model: fpModel, system_hash, tools_hash, thinking_mode, max_tokens, max_iterations } };
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
  if (!isRecord(parsed) || parsed['format'] !== FORMAT || !Array.isArray(parsed['agents']) || !Array.isArray(parsed['runs'])) return entries;
  const agents = (parsed['agents'] as unknown[]).map(agentOf);
  const runs = parsed['runs'] as unknown[];
  if (runs.length % RUN_FIELDS !== 0) return entries;
  for (let i = 0; i < runs.length; i += RUN_FIELDS) {
    const id = runs[i], version = runs[i + 1], created = runs[i + 2], prompt = runs[i + 3];
    const interactive = runs[i + 4], lastSeq = runs[i + 5], foldStatus = runs[i + 6], agentAt = runs[i + 7];
    const agent = isCount(agentAt) ? agents[agentAt] : undefined;
    if (!isString(id) || !isString(version) || !isString(created) || !isString(prompt) || typeof interactive !== 'boolean' || !isString(foldStatus)) continue;
    if (!isCount(lastSeq) || lastSeq < 1 || agent === undefined || agent === null) continue;
    const facts: EndsFacts = { created, model: agent.model, prompt, interactive, lastSeq, fingerprint: agent.fingerprint, foldStatus: foldStatus as RunStatus };
    entries.set(id, { version, facts });
  }
  return entries;
}

/** The index's text for these entries. */
export function encodeListingIndex(entries: ReadonlyMap<string, IndexedEnds>): string {
  const index: StoredIndex = { format: FORMAT, agents: [], runs: [] };
  const agentAt = new Map<string, number>();
  for (const [id, { version, facts }] of entries) {
    const { created, model, prompt, interactive, lastSeq, foldStatus, fingerprint: fp } = facts;
    const agent: StoredAgent = [model, fp.provider, fp.model, fp.system_hash, fp.tools_hash, fp.thinking_mode, fp.max_tokens, fp.max_iterations];
    const key = JSON.stringify(agent);
    let at = agentAt.get(key);
    if (at === undefined) {
      at = index.agents.push(agent) - 1;
      agentAt.set(key, at);
    }
    index.runs.push(id, version, created, prompt, interactive, lastSeq, foldStatus, at);
  }
  return JSON.stringify(index);
}
