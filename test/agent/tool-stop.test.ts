/**
 * A chat's operator stops the tools at work (ChatInput.toolsRunning), through
 * the library: an MCP call's request is cancelled at its server, the call in
 * flight and the calls after it are journaled as stopped, the batch is whole,
 * and the chat waits for its next turn, which the model reads with them.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { scriptProvider } from '../../src/agent/providers/script.js';
import { startRun } from '../../src/agent/run.js';
import type { AnswerControl } from '../../src/agent/runner.js';
import { ToolRegistry } from '../../src/agent/tools/registry.js';
import { MemoryStore } from '../../src/index.js';
import { payloadKind } from '../../src/core/index.js';
import { fixtureSpec, startServers } from '../helpers/mcp/specs.js';
import { tempDir } from '../helpers/tmp.js';

describe('stopping the tools of a chat', () => {
  it("cancels an MCP call's request, answers it and the calls after it as stopped, and goes on at the next turn", async () => {
    const log = join(tempDir(), 'log');
    const servers = await startServers([fixtureSpec('fx', ['--log', log], { timeout: 600 })]);
    try {
      const provider = scriptProvider([
        { tool_calls: [{ name: 'mcp__fx__slow', input: { ms: 60_000 } }, { name: 'mcp__fx__echo', input: { text: 'later' } }] },
        { text: 'Understood.' },
      ]);
      const seen: unknown[] = [];
      const agent = { provider, tools: new ToolRegistry(servers.tools), system: '', maxTokens: 100, maxIterations: 10, thinking: 'off' as const, promptCache: false };
      const store = new MemoryStore();
      const run = await startRun(store, agent, { prompt: 'go', interactive: true, id: 'stop' });
      const turns = ['never mind'];
      let stopTools: AbortController | undefined;
      const result = await run.execute({
        input: {
          next: async () => turns.shift() ?? null,
          toolsRunning: (): AnswerControl => {
            stopTools = new AbortController();
            return { signal: stopTools.signal, done: () => {} };
          },
        },
        observer: {
          toolStart: (call) => void (call.name === 'mcp__fx__slow' && setTimeout(() => stopTools!.abort(), 200)),
          toolsStopped: (calls) => seen.push(calls.map((c) => c.name)),
        },
      });
      expect(seen).toEqual([['mcp__fx__slow', 'mcp__fx__echo']]);
      // The server hears of the cancellation once the request is dropped: it says so when it does.
      // The file exists a moment before its line is written in it, so the wait is for the line.
      const logged = () => (existsSync(log) ? readFileSync(log, 'utf8') : '');
      for (const end = Date.now() + 10_000; !logged().endsWith('\n') && Date.now() < end; ) await sleep(20);
      expect(logged()).toBe('cancelled slow\n');
      const { records } = await store.load('stop');
      expect(records.map(payloadKind)).toEqual(['meta', 'assistant', 'tool_result', 'tool_result', 'user', 'assistant', 'terminal']);
      expect(result.state.messages[2]!.content).toEqual([
        { tool_result: { tool_use_id: expect.any(String), content: 'stopped by the operator while it ran; whether it took effect is unknown', is_error: true } },
        { tool_result: { tool_use_id: expect.any(String), content: 'stopped by the operator before it ran; it was not run', is_error: true } },
        { text: { text: 'never mind' } },
      ]);
      expect(result.finalText).toBe('Understood.');
    } finally {
      await servers.close();
    }
  });
});
