/**
 * What a new run is made of, and what is kept beside it as it starts: its
 * meta record, its id, the tool set its fingerprint hashed, and where it was
 * started. One place, so a started run and a compacted run's continuation are
 * made the same way.
 */
import { VERSION, formatTimestamp, toolSetManifest, type Fingerprint, type MetaPayload, type ToolSetManifest } from '../core/index.js';
import { toolSetNoteKey } from '../store/run-notes.js';
import type { RunPlace, Store } from '../store/store.js';
import type { Agent } from './agent.js';
import { keepRemoteOrigins } from './remote-origins.js';

export function newRunMeta(runId: string, fingerprint: Fingerprint, prompt: string, interactive: boolean, now = new Date()): MetaPayload {
  const meta: MetaPayload = { version: VERSION, run_id: runId, created: formatTimestamp(now), fingerprint, prompt };
  if (interactive) meta.interactive = true;
  return meta;
}

/** A run id from the clock and some randomness: sortable, unique enough, valid everywhere. */
export function generateRunId(now = new Date()): string {
  const stamp = formatTimestamp(now).replace(/[-:]/g, '').replace(/\..*$|Z$/, '').replace('T', '-');
  return `${stamp}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * Keeps the agent's tool set, tool by tool, beside the run, so that a resume
 * refused for a changed tool set can name the tools that changed. It is a
 * convenience: failing to keep it is a warning, not a failure.
 */
export async function keepToolSet(store: Store, id: string, toolsHash: string, agent: Agent): Promise<string[]> {
  try {
    await store.putNote(id, toolSetNoteKey(toolsHash), JSON.stringify(toolSetManifest(agent.tools.definitions())));
    return [];
  } catch (err) {
    return [`could not keep the tool set beside run ${id} (${err instanceof Error ? err.message : String(err)}); a resume refused for a changed tool set will not name the tools`];
  }
}

/** Keeps where the run was started beside it: a convenience too, so failing is a warning. */
export async function keepPlace(store: Store, id: string, place: RunPlace): Promise<string[]> {
  try {
    await store.markPlace(id, place);
    return [];
  } catch (err) {
    return [`could not keep where run ${id} was started (${err instanceof Error ? err.message : String(err)}); \`logbook run -c\` from here will not find it (\`--resume ${id}\` will)`];
  }
}

/**
 * The notes a new run keeps beside its meta (`meta` is its meta record): the
 * tool set, the imported tools' origins, and where it was started. Each is a
 * convenience: what could not be kept comes back as warnings. None needs
 * another, so they are kept at once (their fsyncs overlap).
 */
export async function keepRunNotes(store: Store, meta: MetaPayload, agent: Agent, place?: RunPlace): Promise<string[]> {
  const id = meta.run_id;
  const kept = await Promise.all([
    keepToolSet(store, id, meta.fingerprint.tools_hash, agent),
    keepRemoteOrigins(store, id, agent.tools),
    place !== undefined ? keepPlace(store, id, place) : [],
  ]);
  return kept.flat();
}

/** The tool set the run's fingerprint hashed, when a note of it was kept. */
export async function keptToolSet(store: Store, id: string, toolsHash: string): Promise<ToolSetManifest | null> {
  try {
    const text = await store.getNote(id, toolSetNoteKey(toolsHash));
    return text === null ? null : (JSON.parse(text) as ToolSetManifest);
  } catch {
    return null; // without it the refusal just says the tool set changed
  }
}

