/**
 * How a run is linked to tasks, for `session show`: a task's run names where
 * the task came from (its request, its sender, the conversation) and the run
 * or request that asked for it; a run that handed tasks to other agents lists
 * them, each with its run's status when that run is in this store. All of it
 * is read from beside the journals (the `task` note, the remote-tools note)
 * and from the journal itself (the calls), never from a copy of either.
 */
import { callRequestId, parseTaskOrigin, taskRunId, TASK_NOTE, type TaskOrigin } from '../../agent/tasks/origin.js';
import { remoteOrigins } from '../../agent/remote-origins.js';
import type { RecordOutline } from '../../core/index.js';
import { sanitizeLine } from '../../render/sanitize.js';
import { copiedThrough } from '../../store/lineage.js';
import { listedStatus, type FoldedRun, type Store } from '../../store/store.js';

/** A task a run's call handed to another agent. */
export interface ChildTask {
  call: string;
  agent: string;
  request: string;
  run: string;
  /** Its run's status, when its run is in this store. */
  status?: string;
  /** Whether the calling run has the task's result (its answer, or the error it ended with). */
  answered: boolean;
  /** The error the calling run read as the task's result, when the task did not answer. */
  error?: string;
}

export interface TaskLinks {
  /** Where the run's task came from, when the run is a task's. */
  origin?: TaskOrigin;
  /** The run that asked for it, when it is in this store. */
  parentRun?: string;
  children: ChildTask[];
}

/** The task the run serves and the tasks it handed to other agents. */
export async function taskLinks(store: Store, run: Pick<FoldedRun, 'state' | 'created'> & { outline: RecordOutline }): Promise<TaskLinks> {
  const id = run.state.run_id;
  const links: TaskLinks = { children: [] };
  const origin = parseTaskOrigin(await store.getNote(id, TASK_NOTE).catch(() => null));
  if (origin !== null) {
    links.origin = origin;
    if (origin.parent !== undefined) {
      const candidates = [origin.parent, taskRunId(origin.sender, origin.parent)];
      for (const candidate of candidates) {
        if (await store.has(candidate).catch(() => false)) {
          links.parentRun = candidate;
          break;
        }
      }
    }
  }
  const tools = await remoteOrigins(store, id);
  const askers = new Map(Object.entries(tools).filter(([, o]) => o.task === true));
  if (askers.size === 0) return links;
  const fork = await store.forkOrigin(id).catch(() => null);
  const { answers, errors, callSeqs, callIds, callNames } = run.outline;
  const answered = new Map<string, string | undefined>();
  for (let i = 0; i < answers.length; i++) if (answers[i] !== '') answered.set(answers[i]!, errors[i]);
  const copied = copiedThrough(fork);
  for (let i = 0; i < callIds.length; i++) {
    // A call a fork copied was its origin's: that run lists it.
    if (callSeqs[i]! <= copied) continue;
    const asked = askers.get(callNames[i]!);
    if (asked === undefined) continue;
    const callId = callIds[i]!;
    const request = callRequestId({ runId: id, runCreated: run.created, callId });
    const error = answered.get(callId);
    const child: ChildTask = { call: callId, agent: asked.agent, request, run: taskRunId(asked.agent, request), answered: answered.has(callId), ...(error !== undefined ? { error } : {}) };
    const state = await store.loadState(child.run).catch(() => null);
    if (state !== null) child.status = listedStatus(state.state.status, undefined);
    links.children.push(child);
  }
  return links;
}

/** The fields `session show` adds for the links; none for a run with none. */
export function taskLinkFields(links: TaskLinks): [string, string][] {
  const s = sanitizeLine;
  const out: [string, string][] = [];
  const o = links.origin;
  if (o !== undefined) {
    const conversation = o.conversation === o.request ? '' : `, conversation ${s(o.conversation)}`;
    out.push(['task', `request ${s(o.request)} from agent ${s(o.sender)}${conversation}, served as agent ${s(o.agent)}`]);
    if (o.parent !== undefined) {
      out.push(['parent', links.parentRun !== undefined ? `run ${s(links.parentRun)}` : `${s(o.parent)} of agent ${s(o.sender)} (not in this store)`]);
    }
  }
  for (const [i, c] of links.children.entries()) {
    const where = c.status !== undefined ? `run ${s(c.run)} (${s(c.status)})` : `run ${s(c.run)} (not in this store)`;
    const end = c.error !== undefined ? `did not answer: ${s(firstLine(c.error))}` : c.answered ? 'answered' : 'not answered yet';
    out.push([i === 0 ? 'children' : '', `call ${s(c.call)}: agent ${s(c.agent)}, task ${s(c.request)}, ${where}, ${end}`]);
  }
  return out;
}

/** The first line of `text`, at most 160 characters of it. */
function firstLine(text: string): string {
  const line = text.split('\n')[0]!;
  return line.length > 160 ? `${line.slice(0, 159)}…` : line;
}

/**
 * Why the config at hand cannot speak for a run served as agent `agent`: none
 * is at hand, or it is another agent's (its a2a.identity is not `agent`); or
 * undefined when it is that agent's.
 */
export function configOfOtherAgent(agent: string, config: { path: string; a2a: { identity?: string | undefined } } | undefined): string | undefined {
  const s = sanitizeLine;
  const fix = `give --config with agent ${s(agent)}'s config (the one its logbook serve runs) to know whether this run's tools have side effects, and to resume it`;
  if (config === undefined) return `none at hand: ${fix}`;
  if (config.a2a.identity === agent) return undefined;
  const whose = config.a2a.identity === undefined ? 'names no a2a.identity' : `is agent ${s(config.a2a.identity)}'s`;
  return `${s(config.path)} ${whose}, not agent ${s(agent)}'s, which served this run: ${fix}`;
}
