/**
 * How a run's remote calls are counted in a summary (`session show`, an export's
 * summary): a module of its own so that a summary does not load the transcript's
 * renderers.
 */
import { groupedDigits, type Message, type RunState } from '../core/index.js';
import { sanitizeLine } from './sanitize.js';

/** Tool name -> the identity of the agent that runs it, as kept beside a run (its remote-tools note). */
export type ToolAgents = Readonly<Record<string, string>>;

/** The agents the run's remote calls went to, by name and sorted (those `agents` names; a call whose agent it does not name adds none). */
export function remoteAgents(state: RunState, agents: ToolAgents = {}): string[] {
  if (state.remote_calls.length === 0) return [];
  const remote = new Set(state.remote_calls);
  const found = new Set<string>();
  const all: Message[] = state.pending ? [...state.messages, state.pending.assistant] : state.messages;
  for (const m of all) {
    for (const b of m.content) {
      if ('tool_use' in b && remote.has(b.tool_use.id) && Object.hasOwn(agents, b.tool_use.name)) found.add(sanitizeLine(agents[b.tool_use.name]!));
    }
  }
  return [...found].sort();
}

/** `2 remote`, and the agents when known: `2 remote, on agent probe`. */
export function remoteCountText(state: RunState, agents: ToolAgents = {}): string {
  const n = groupedDigits(state.counters.remote_tool_calls);
  const names = remoteAgents(state, agents);
  return names.length === 0 ? `${n} remote` : `${n} remote, on agent${names.length === 1 ? '' : 's'} ${names.join(', ')}`;
}
