/**
 * How a run's remote calls are counted in a summary (`session show`, an export's
 * summary): a module of its own so that a summary does not load the transcript's
 * renderers.
 */
import { groupedDigits, type Message, type RunState } from '../core/index.js';
import { sanitizeLine } from './sanitize.js';

/** Tool name -> the identity of the agent that runs it, as kept beside a run (its remote-tools note). */
export type ToolAgents = Readonly<Record<string, string>>;

/** Every tool call of a run: its id and, by the same index, its tool's name (as RecordOutline keeps them). */
export interface CallNames {
  readonly ids: readonly string[];
  readonly names: readonly string[];
}

/** The tool calls of the state's conversation and its turn in flight: every call of the run. */
function callNamesOf(state: RunState): CallNames {
  const ids: string[] = [];
  const names: string[] = [];
  const all: Message[] = state.pending ? [...state.messages, state.pending.assistant] : state.messages;
  for (const m of all) {
    for (const b of m.content) {
      if (!('tool_use' in b)) continue;
      ids.push(b.tool_use.id);
      names.push(b.tool_use.name);
    }
  }
  return { ids, names };
}

/**
 * The agents the run's remote calls went to, by name and sorted (those `agents`
 * names; a call whose agent it does not name adds none). `calls`: every tool
 * call of the run, when the state's conversation no longer holds them all.
 */
export function remoteAgents(state: RunState, agents: ToolAgents = {}, calls?: CallNames): string[] {
  if (state.remote_calls.length === 0) return [];
  const remote = new Set(state.remote_calls);
  const found = new Set<string>();
  const { ids, names } = calls ?? callNamesOf(state);
  for (let i = 0; i < ids.length; i++) {
    const name = names[i]!;
    if (remote.has(ids[i]!) && Object.hasOwn(agents, name)) found.add(sanitizeLine(agents[name]!));
  }
  return [...found].sort();
}

/** `2 remote`, and the agents when known: `2 remote, on agent probe`. `calls` as remoteAgents takes them. */
export function remoteCountText(state: RunState, agents: ToolAgents = {}, calls?: CallNames): string {
  const n = groupedDigits(state.counters.remote_tool_calls);
  const names = remoteAgents(state, agents, calls);
  return names.length === 0 ? `${n} remote` : `${n} remote, on agent${names.length === 1 ? '' : 's'} ${names.join(', ')}`;
}
