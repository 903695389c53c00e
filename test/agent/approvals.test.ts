/**
 * Approvals and the side-effect rule for a program that embeds logbook, through
 * the public API alone: a beforeToolCall hook that allows, denies or suspends,
 * and a resume that will not run an interrupted call with side effects again
 * until told to re-run or skip it. Journals in a real file store.
 */
import { describe, expect, it } from 'vitest';
import { FileStore, LogbookError, RawJson, ToolRegistry, allowCall, defineTool, denyCall, fingerprintOf, resumeRun, startRun, suspendCall, type Agent, type BeforeToolCall, type Tool, type ToolPolicy } from '../../src/index.js';
import { ScriptProvider } from '../../src/agent/providers/script.js';
import { newRunMeta } from '../../src/agent/run.js';
import { payloadKind } from '../../src/core/index.js';
import { tempDir } from '../helpers/tmp.js';

/** A tool that records each run of it, with the given policy. */
function tool(name: string, policy: ToolPolicy, ran: string[]): Tool {
  return {
    ...defineTool({
      name,
      input_schema: { type: 'object', properties: { to: { type: 'string' } } },
      run: (input) => {
        ran.push(`${name} ${(input as { to: string }).to}`);
        return `${name} done`;
      },
    }),
    policy,
  };
}

function agentWith(tools: Tool[], turns: ConstructorParameters<typeof ScriptProvider>[2]): Agent {
  return { provider: new ScriptProvider('m', 'inline', turns), tools: new ToolRegistry(tools), system: 's', maxTokens: 100, maxIterations: 5, thinking: 'off', promptCache: false };
}

const deployThenAnswer = [
  { text: 'Deploying.', tool_calls: [{ name: 'deploy', input: { to: 'prod' } }, { name: 'notify', input: { to: 'team' } }] },
  { text: 'Done.' },
];

const CONFIRM: ToolPolicy = { confirm: true, sideEffects: false };
const SIDE_EFFECTS: ToolPolicy = { confirm: false, sideEffects: true };
const FREE: ToolPolicy = { confirm: false, sideEffects: false };

describe('beforeToolCall', () => {
  it('is asked for calls of confirm tools only; a denial is the error result the model reads', async () => {
    const store = new FileStore(tempDir());
    const ran: string[] = [];
    const asked: { id: string; resolved: string | undefined; iteration: number; policy: ToolPolicy }[] = [];
    const agent = agentWith([tool('deploy', CONFIRM, ran), tool('notify', FREE, ran)], deployThenAnswer);
    const hook: BeforeToolCall = (call, context) => {
      asked.push({ id: call.id, resolved: context.resolved, iteration: context.iteration, policy: context.policy });
      return denyCall('prod is frozen');
    };
    const run = await startRun(store, agent, { id: 'deny', prompt: 'deploy' });
    const result = await run.execute({ beforeToolCall: hook });
    expect(result.reason).toBe('completed');
    expect(asked).toEqual([{ id: 'toolu_0_0', resolved: undefined, iteration: 0, policy: CONFIRM }]);
    expect(ran).toEqual(['notify team']);
    const { state } = await store.load('deny');
    expect(state.messages[2]!.content[0]).toEqual({
      tool_result: { tool_use_id: 'toolu_0_0', content: 'denied by the operator: prod is frozen', is_error: true },
    });
  });

  it('suspends before the call when it says so, or when there is no hook; the resume asks again and runs it once allowed', async () => {
    const store = new FileStore(tempDir());
    const ran: string[] = [];
    const agent = agentWith([tool('deploy', { confirm: true, sideEffects: true }, ran), tool('notify', FREE, ran)], deployThenAnswer);

    const first = await (await startRun(store, agent, { id: 'wait', prompt: 'deploy' })).execute({ beforeToolCall: () => suspendCall });
    expect(first).toMatchObject({ reason: 'suspended', interrupted: false, awaiting: { id: 'toolu_0_0', name: 'deploy' } });
    const suspended = await store.load('wait');
    expect(suspended.records.map(payloadKind)).toEqual(['meta', 'assistant', 'terminal']);
    expect(suspended.state.terminal).toEqual({ reason: 'suspended', message: 'awaiting approval of call toolu_0_0 (deploy)' });

    // Without a hook a confirm call suspends too. A suspend before a call is no interruption of it,
    // so its side effects do not stop the resume.
    const again = await resumeRun(store, agent, 'wait');
    expect(again.interruptedCall).toBeUndefined();
    expect(await again.execute()).toMatchObject({ reason: 'suspended', awaiting: { id: 'toolu_0_0' } });
    expect(ran).toEqual([]);

    const allowed = await (await resumeRun(store, agent, 'wait')).execute({ beforeToolCall: () => allowCall });
    expect(allowed.reason).toBe('completed');
    expect(ran).toEqual(['deploy prod', 'notify team']);
  });

  it('a suspend while an answer is awaited suspends before the call, which never runs', async () => {
    const store = new FileStore(tempDir());
    const ran: string[] = [];
    const agent = agentWith([tool('deploy', CONFIRM, ran), tool('notify', FREE, ran)], deployThenAnswer);
    const stop = new AbortController();
    const result = await (await startRun(store, agent, { id: 'abort', prompt: 'deploy' })).execute({
      signal: stop.signal,
      beforeToolCall: () => {
        stop.abort();
        return new Promise(() => {}); // the operator never answers
      },
    });
    expect(result).toMatchObject({ reason: 'suspended', interrupted: true, awaiting: { id: 'toolu_0_0' } });
    expect((await store.load('abort')).state.terminal?.message).toBe('awaiting approval of call toolu_0_0 (deploy)');
    expect(ran).toEqual([]);
  });
});

describe('resuming a run whose interrupted call has side effects', () => {
  /** A run as a crash leaves it: the model's turn journaled, no result yet (the deploy may have started). */
  async function crashed(agent: Agent, id: string): Promise<FileStore> {
    const store = new FileStore(tempDir());
    const journal = await store.create(id, newRunMeta(id, fingerprintOf(agent), 'deploy', false));
    const message = {
      role: 'assistant' as const,
      content: [
        { text: { text: 'Deploying.' } },
        { tool_use: { id: 'd1', name: 'deploy', input: RawJson.fromValue({ to: 'prod' }) } },
        { tool_use: { id: 'n1', name: 'notify', input: RawJson.fromValue({ to: 'team' }) } },
      ],
    };
    await journal.append({ seq: 2, assistant: { iteration: 0, message, stop_reason: 'tool_use', in_tokens: 1, out_tokens: 1 } });
    await journal.close();
    return store;
  }

  /** The script's turn 0 is the journaled one (never asked for again); turn 1 answers. */
  const answerOnly = [{ text: 'never asked for' }, { text: 'Done.' }];

  it('refuses to execute, writing nothing, until told to re-run or skip that call', async () => {
    const ran: string[] = [];
    const agent = agentWith([tool('deploy', SIDE_EFFECTS, ran), tool('notify', FREE, ran)], answerOnly);
    const store = await crashed(agent, 'r');
    const run = await resumeRun(store, agent, 'r');
    expect(run.interruptedCall).toMatchObject({ id: 'd1', name: 'deploy' });
    const refused = await run.execute().catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LogbookError);
    expect((refused as LogbookError).code).toBe('interrupted_call');
    expect((refused as LogbookError).message).toMatch(/call d1 \(deploy\) may have been running, and that tool has side effects, so whether it took effect is unknown$/);
    expect((refused as LogbookError).details).toEqual({ runId: 'r', callId: 'd1' });
    expect((await store.load('r')).records).toHaveLength(2);
    expect(ran).toEqual([]);

    const other = await resumeRun(store, agent, 'r');
    expect(() => other.resolveInterruptedCall('n1', 'skip')).toThrow(expect.objectContaining({ code: 'unknown_call' }));
    await other.close();
  });

  it('skip: the model reads that the call was not re-run, and the calls after it run normally', async () => {
    const ran: string[] = [];
    const agent = agentWith([tool('deploy', SIDE_EFFECTS, ran), tool('notify', FREE, ran)], answerOnly);
    const store = await crashed(agent, 'r');
    const run = await resumeRun(store, agent, 'r');
    run.resolveInterruptedCall('d1', 'skip');
    expect(run.interruptedCall).toBeUndefined();
    expect((await run.execute()).reason).toBe('completed');
    expect(ran).toEqual(['notify team']);
    const { state } = await store.load('r');
    expect(state.messages[2]!.content).toEqual([
      { tool_result: { tool_use_id: 'd1', content: 'not re-run after an interruption; whether it took effect is unknown', is_error: true } },
      { tool_result: { tool_use_id: 'n1', content: 'notify done' } },
    ]);
  });

  it('rerun: the call runs again, without asking for an approval even for a confirm tool', async () => {
    const ran: string[] = [];
    const agent = agentWith([tool('deploy', { confirm: true, sideEffects: true }, ran), tool('notify', FREE, ran)], answerOnly);
    const store = await crashed(agent, 'r');
    const run = await resumeRun(store, agent, 'r');
    run.resolveInterruptedCall('d1', 'rerun');
    const hook = (): never => {
      throw new Error('a re-run call is not asked about again');
    };
    expect((await run.execute({ beforeToolCall: hook })).reason).toBe('completed');
    expect(ran).toEqual(['deploy prod', 'notify team']);
  });

  it('a call without side effects is run again as before: no choice needed, none accepted', async () => {
    const ran: string[] = [];
    const agent = agentWith([tool('deploy', FREE, ran), tool('notify', FREE, ran)], answerOnly);
    const store = await crashed(agent, 'r');
    const run = await resumeRun(store, agent, 'r');
    expect(run.interruptedCall).toBeUndefined();
    expect(() => run.resolveInterruptedCall('d1', 'rerun')).toThrow(expect.objectContaining({ code: 'unknown_call' }));
    expect((await run.execute()).reason).toBe('completed');
    expect(ran).toEqual(['deploy prod', 'notify team']);
  });
});
