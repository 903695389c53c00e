import type { StartProgress } from '../../agent/tools/mcp/index.js';

/** The progress line while MCP servers start: how many are up, and which are awaited. */
export function startLabel(progress: StartProgress): string {
  const total = progress.ready.length + progress.pending.length;
  const noun = total === 1 ? 'MCP server' : 'MCP servers';
  if (progress.ready.length === 0) return `starting ${noun} ${progress.pending.join(', ')}`;
  return `starting ${noun}: ${progress.ready.length} of ${total} up, waiting for ${progress.pending.join(', ')}`;
}
