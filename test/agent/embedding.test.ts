/**
 * A program embedding logbook: everything here comes from the package's public
 * API. It registers a TypeScript function as a tool, journals a run in a file
 * store, suspends it in the middle of a tool batch and resumes it: each a
 * start (or resume) and an execute, with no fingerprint typed by hand.
 */
import { describe, expect, it } from 'vitest';
import { FileStore, ToolRegistry, defineTool, resumeRun, scriptProvider, startRun, validateRecord, encodeRecord, type Agent } from '../../src/index.js';
import { tempDir } from '../helpers/tmp.js';

describe('embedding logbook', () => {
  it('runs function tools in a journaled run and resumes it', async () => {
    const store = new FileStore(tempDir());
    const calls: number[] = [];
    const suspend = new AbortController();
    const square = defineTool({
      name: 'square',
      description: 'Square a number',
      input_schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
      run: (input) => {
        const n = (input as { n: number }).n;
        if (n === 3 && !suspend.signal.aborted) {
          suspend.abort(); // the operator stops the run while this call is in flight
          return new Promise<string>(() => {});
        }
        calls.push(n);
        return String(n * n);
      },
    });
    const tools = new ToolRegistry([square]);
    const provider = scriptProvider([
      { tool_calls: [{ name: 'square', input: { n: 2 } }, { name: 'square', input: { n: 3 } }] },
      { text: 'The squares are 4 and 9.' },
    ], { model: 'm' });
    const agent: Agent = { provider, tools, system: 's', maxTokens: 100, maxIterations: 5, thinking: 'off', promptCache: false };

    const run = await startRun(store, agent, { id: 'sq', prompt: 'Square 2 and 3' });
    const first = await run.execute({ signal: suspend.signal });
    expect(first).toMatchObject({ reason: 'suspended', interrupted: true });
    expect((await store.load('sq')).state.pending?.answered).toHaveLength(1);

    const resumed = await resumeRun(store, agent, 'sq');
    const result = await resumed.execute();
    expect(result.finalText).toBe('The squares are 4 and 9.');
    expect(calls).toEqual([2, 3]);
    for (const record of (await store.load('sq')).records) expect(validateRecord(encodeRecord(record))).toEqual({ valid: true });
  });
});
