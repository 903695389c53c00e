/**
 * Compaction in the loop, in process, over the memory store: a continuation
 * whose summary and kept exchanges already pass compact_at is not compacted
 * again (it would loop, a summary call a turn); a run with compaction off is
 * never compacted, and a refusal for length is then its error.
 */
import { describe, expect, it } from 'vitest';
import type { Agent } from '../../src/agent/agent.js';
import { SUMMARY_PROMPT } from '../../src/agent/compaction.js';
import type { ModelRequest, ModelResponse, Provider } from '../../src/agent/provider.js';
import { startRun } from '../../src/agent/run.js';
import { ToolRegistry } from '../../src/agent/tools/registry.js';
import { defineTool } from '../../src/agent/tools/tool.js';
import { LogbookError, MemoryStore, RawJson } from '../../src/index.js';

/** A model of `turns` tool turns whose requests count a token per four characters; a summary when asked; refusing past `window` when given. */
class Counting implements Provider {
  readonly id = 'script';
  readonly model = 'counting';
  readonly sent: { tokens: number; summary: boolean }[] = [];
  private given = 0;
  constructor(
    private readonly turns: number,
    private readonly window?: number,
  ) {}
  async complete(request: ModelRequest): Promise<ModelResponse> {
    const tokens = Math.ceil(JSON.stringify(request.messages).length / 4);
    const last = request.messages.at(-1)?.content.at(-1);
    const summary = last !== undefined && 'text' in last && last.text.text === SUMMARY_PROMPT;
    this.sent.push({ tokens, summary });
    if (this.window !== undefined && tokens > this.window) throw new LogbookError('context_exceeded', `prompt is too long: ${tokens} tokens > ${this.window} maximum`);
    const usage = { inTokens: tokens, outTokens: 5 };
    if (summary) return { message: { role: 'assistant', content: [{ text: { text: 'Summary.' } }] }, stopReason: 'end_turn', usage };
    if (++this.given > this.turns) return { message: { role: 'assistant', content: [{ text: { text: 'Done.' } }] }, stopReason: 'end_turn', usage };
    const input = RawJson.fromText(JSON.stringify({ text: `${this.given} ${'x'.repeat(400)}` }));
    return { message: { role: 'assistant', content: [{ tool_use: { id: `t${this.given}`, name: 'note', input } }] }, stopReason: 'tool_use', usage };
  }
}

const note = defineTool({ name: 'note', input_schema: { type: 'object', properties: { text: { type: 'string' } } }, run: (input) => `noted ${(input as { text: string }).text}` });

function agent(provider: Provider, compaction: Agent['compaction'], contextWindow?: number): Agent {
  return {
    provider,
    tools: new ToolRegistry([note]),
    system: '',
    maxTokens: 100,
    maxIterations: 100,
    thinking: 'off',
    promptCache: false,
    ...(contextWindow !== undefined ? { contextWindow } : {}),
    ...(compaction !== undefined ? { compaction } : {}),
  };
}

describe('compaction in the loop', () => {
  it('does not compact again a continuation whose first request passed compact_at already, and says so once', async () => {
    const model = new Counting(20);
    const warnings: string[] = [];
    const store = new MemoryStore();
    // Six kept exchanges of about 250 tokens each fill the continuation's first turn past 0.5 of 3,000 tokens.
    const run = await startRun(store, agent(model, { at: 0.5, keepTurns: 6 }, 3000), { prompt: 'Take notes.' });
    const result = await run.execute({ observer: { warning: (m) => warnings.push(m) } });
    expect(result.message).toBeUndefined();
    expect(result.reason).toBe('completed');
    expect(result.compactions).toHaveLength(1);
    expect(model.sent.filter((s) => s.summary)).toHaveLength(1);
    expect(warnings.filter((w) => w.includes('is not compacted again'))).toHaveLength(1);
  });

  it('never compacts with compaction off, and a refusal for length is the run error', async () => {
    const model = new Counting(40, 3000);
    const store = new MemoryStore();
    const run = await startRun(store, agent(model, { at: false, keepTurns: 2 }, 3000), { prompt: 'Take notes.' });
    const result = await run.execute();
    expect(result.reason).toBe('error');
    expect(result.error?.code).toBe('context_exceeded');
    expect(result.compactions).toEqual([]);
    expect(model.sent.some((s) => s.summary)).toBe(false);
  });

  it('compacts a run that is not journaled all the same, in memory', async () => {
    const model = new Counting(30);
    const run = await startRun(null, agent(model, { at: 0.8, keepTurns: 1 }, 4000), { prompt: 'Take notes.' });
    const result = await run.execute();
    expect(result.reason).toBe('completed');
    expect(result.compactions.length).toBeGreaterThanOrEqual(1);
    expect(result.state.run_id).toBe(result.compactions.at(-1)!.into);
    expect(Math.max(...model.sent.map((s) => s.tokens))).toBeLessThanOrEqual(4000);
  });
});
