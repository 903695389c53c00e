import type { StartProgress } from '../../agent/tools/mcp/index.js';
import type { DiscoveryProgress } from '../../agent/tools/remote/index.js';

/** The progress line while MCP servers start: how many are up, and which are awaited. */
export function startLabel(progress: StartProgress): string {
  const total = progress.ready.length + progress.pending.length;
  const noun = total === 1 ? 'MCP server' : 'MCP servers';
  if (progress.ready.length === 0) return `starting ${noun} ${progress.pending.join(', ')}`;
  return `starting ${noun}: ${progress.ready.length} of ${total} up, waiting for ${progress.pending.join(', ')}`;
}

/** The progress line while the agents of remote_tools are asked for their tools: how many answered, and which are awaited. */
export function discoveryLabel(progress: DiscoveryProgress): string {
  const total = progress.ready.length + progress.pending.length;
  const noun = total === 1 ? 'agent' : 'agents';
  if (progress.ready.length === 0) return `asking ${noun} ${progress.pending.join(', ')} for their tools`;
  return `asking ${noun} for their tools: ${progress.ready.length} of ${total} answered, waiting for ${progress.pending.join(', ')}`;
}
