/**
 * The note kept beside a run that says, for each of its tools another agent
 * runs, which agent that is and its own name for the tool: a record says only
 * `remote`, and a rendering of the run names the agent from here. Written when
 * a run starts or resumes (agent/run.ts); read by whatever shows the run.
 */
import type { Store } from '../store/store.js';
import type { ToolRegistry } from './tools/registry.js';
import type { RemoteOrigin } from './tools/tool.js';
import { REMOTE_TOOLS_NOTE } from '../store/run-notes.js';

/** The note beside a run that names, for each tool of another agent it used, that agent and its name for the tool. */
export { REMOTE_TOOLS_NOTE };

/** Tool name -> the agent that runs it and its own name for it, as the remote-tools note holds them. */
export type RemoteOrigins = Record<string, RemoteOrigin>;

/** The remote-tools note's origins, or an empty map when the run has none (or it cannot be read). */
export async function remoteOrigins(store: Store, id: string): Promise<RemoteOrigins> {
  try {
    const text = await store.getNote(id, REMOTE_TOOLS_NOTE);
    return text === null ? {} : (JSON.parse(text) as RemoteOrigins);
  } catch {
    return {}; // without it a remote call is shown as remote, without its agent
  }
}

/**
 * Keeps beside the run which agent runs each of its remote tools, so a rendering
 * of the run can name the agent of a remote call (the record only says
 * `remote`). A resume adds its own to those kept. A convenience, like the tool set.
 */
export async function keepRemoteOrigins(store: Store, id: string, tools: ToolRegistry, resumed = false): Promise<string[]> {
  const origins: RemoteOrigins = {};
  for (const d of tools.definitions()) {
    const remote = tools.get(d.name)?.remote;
    if (remote !== undefined) origins[d.name] = remote;
  }
  if (Object.keys(origins).length === 0) return [];
  try {
    const kept = resumed ? await remoteOrigins(store, id) : {};
    await store.putNote(id, REMOTE_TOOLS_NOTE, JSON.stringify({ ...kept, ...origins }));
    return [];
  } catch (err) {
    return [`could not keep which agents run the remote tools beside run ${id} (${err instanceof Error ? err.message : String(err)}); showing the run will not name them`];
  }
}

/** Tool name -> the identity of the agent that runs it, for the renderings. */
export async function toolAgents(store: Store, id: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [name, origin] of Object.entries(await remoteOrigins(store, id))) if (typeof origin?.agent === 'string') out[name] = origin.agent;
  return out;
}
