/**
 * The public API as a program uses it: every call here is imported from the
 * package's entry point alone, on a real file store, with the script provider
 * and function tools (nothing calls a model).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore, LogbookError, allowCall, loadPriceBook, commandTool, defineAgent, defineTool, denyCall, exportSession, followUpRun, forkRun, loadAgent, newestFirst, resumeRun, scriptProvider, searchRuns, startRun, storeFromConfig, type JournalRecord, type RunObserver } from '../../src/index.js';
import { tempDir } from '../helpers/tmp.js';

const answer = (text: string) => ({ text });

describe('the public API', () => {
  it('builds an agent with defaults, and a function tool with its policy', () => {
    const deploy = defineTool({ name: 'deploy', confirm: true, sideEffects: true, run: () => 'done' });
    expect(deploy.policy).toEqual({ confirm: true, sideEffects: true });
    expect(defineTool({ name: 'free', run: () => '' }).policy).toBeUndefined();
    const agent = defineAgent({ provider: scriptProvider([answer('hi')]), tools: [deploy] });
    expect(agent).toMatchObject({ system: '', maxTokens: 4096, maxIterations: 20, thinking: 'off', promptCache: false });
    expect(agent.tools.definitions().map((t) => t.name)).toEqual(['deploy']);
  });

  it('refuses a script turn its schema does not allow, naming it', () => {
    expect(() => scriptProvider([{ txt: 'hi' } as never])).toThrow(/the script: \/turns\/0 must NOT have additional properties "txt"/);
  });

  it('follows up a completed run as a new run, leaving the original as it was', async () => {
    const store = new FileStore(tempDir());
    const agent = defineAgent({ provider: scriptProvider([answer('First.'), answer('Second.')]) });
    const first = await startRun(store, agent, { id: 'talk', prompt: 'one' });
    expect((await first.execute()).reason).toBe('completed');
    const before = await store.lines('talk');

    await expect(resumeRun(store, agent, 'talk')).rejects.toMatchObject({ code: 'already_completed', details: { runId: 'talk' } });
    const next = await followUpRun(store, agent, 'talk', 'two', { newId: 'talk-2' });
    expect(next).toMatchObject({ id: 'talk-2', continuedFrom: 'talk' });
    const result = await next.execute();
    expect(result).toMatchObject({ reason: 'completed', finalText: 'Second.' });
    expect(result.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(await store.lines('talk')).toEqual(before);
  });

  it('prices the conversation a follow-up of a completed run continues without reading that run again', async () => {
    const store = new FileStore(tempDir());
    const provider = scriptProvider([{ text: 'First.', usage: { input: 1_000_000, output: 0 } }, { text: 'Second.', usage: { input: 0, output: 0 } }]);
    const agent = defineAgent({ provider, prices: await loadPriceBook({ overrides: { [provider.model]: { input: 1, output: 1 } }, table: false }) });
    expect((await (await startRun(store, agent, { id: 'priced', prompt: 'one' })).execute()).reason).toBe('completed');
    // Each read of a run's records, by run.
    const reads: string[] = [];
    const counted = new Proxy(store, {
      get(target, key, receiver) {
        if (key === 'records' || key === 'loadState' || key === 'lines' || key === 'storedLines' || key === 'load') {
          return (id: string, ...rest: unknown[]) => {
            reads.push(id);
            return (Reflect.get(target, key, receiver) as (...args: unknown[]) => unknown).call(target, id, ...rest);
          };
        }
        return Reflect.get(target, key, receiver);
      },
    });
    const next = await followUpRun(counted, agent, 'priced', 'two', { newId: 'priced-2' });
    // Read to judge it and to fork it; its spend comes from the first of those reads.
    expect(reads.filter((id) => id === 'priced')).toHaveLength(2);
    // The conversation's spend: the first run's million input tokens at $1 a million, and the follow-up's call at nothing.
    expect((await next.execute()).spend?.conversation).toMatchObject({ usd: 1, calls: 2 });
  });

  it('follows up a run that waits for input under its own id, and refuses a new id for it', async () => {
    const store = new FileStore(tempDir());
    const agent = defineAgent({ provider: scriptProvider([answer('Hello.'), answer('Again.')]) });
    const chat = await startRun(store, agent, { id: 'chat', prompt: 'hi', interactive: true });
    expect((await chat.execute()).reason).toBe('suspended'); // no input given: the chat rests at its input
    await expect(followUpRun(store, agent, 'chat', 'more', { newId: 'other' })).rejects.toMatchObject({ code: 'usage' });
    const more = await followUpRun(store, agent, 'chat', 'more');
    expect(more).toMatchObject({ id: 'chat', continuedFrom: undefined });
    expect((await more.execute()).finalText).toBe('Again.');
  });

  it('removes the fork a refused follow-up made', async () => {
    const store = new FileStore(tempDir());
    const agent = defineAgent({ provider: scriptProvider([answer('x')]) });
    await (await startRun(store, agent, { id: 'done', prompt: 'p' })).execute();
    const drifted = defineAgent({ provider: scriptProvider([answer('x')]), system: 'another prompt' });
    await expect(followUpRun(store, drifted, 'done', 'more', { newId: 'done-2' })).rejects.toMatchObject({ code: 'config_drift' });
    expect(await store.has('done-2')).toBe(false);
  });

  it('asks an approval callback before a confirm tool, and an interrupted-call callback on resume', async () => {
    const store = new FileStore(tempDir());
    const ran: string[] = [];
    const stop = new AbortController();
    const deploy = defineTool({
      name: 'deploy',
      confirm: true,
      sideEffects: true,
      run: (input) => {
        const target = (input as { to: string }).to;
        if (target === 'prod' && !stop.signal.aborted) {
          stop.abort(); // stopped while it runs: whether it took effect is unknown
          return new Promise<string>(() => {});
        }
        ran.push(target);
        return `deployed to ${target}`;
      },
    });
    const provider = scriptProvider([{ tool_calls: [{ name: 'deploy', input: { to: 'test' } }, { name: 'deploy', input: { to: 'prod' } }] }, answer('Deployed.')]);
    const agent = defineAgent({ provider, tools: [deploy] });
    const asked: string[] = [];
    const first = await (await startRun(store, agent, { id: 'dep', prompt: 'deploy' })).execute({
      signal: stop.signal,
      beforeToolCall: (call, context) => (asked.push(`${call.id} ${context.policy.sideEffects}`), allowCall),
    });
    expect(first).toMatchObject({ reason: 'suspended', interrupted: true });
    expect(asked).toEqual(['toolu_0_0 true', 'toolu_0_1 true']);

    const refused = await resumeRun(store, agent, 'dep');
    await expect(refused.execute()).rejects.toMatchObject({ code: 'interrupted_call', details: { runId: 'dep', callId: 'toolu_0_1' } });

    const undecided = await resumeRun(store, agent, 'dep');
    await expect(undecided.execute({ onInterruptedCall: () => null })).rejects.toMatchObject({ code: 'interrupted_call' });

    const resumed = await resumeRun(store, agent, 'dep');
    const seen: string[] = [];
    const result = await resumed.execute({ onInterruptedCall: (call, context) => (seen.push(`${call.id} ${context.runId}`), 'skip') });
    expect(seen).toEqual(['toolu_0_1 dep']);
    expect(result).toMatchObject({ reason: 'completed', finalText: 'Deployed.' });
    expect(ran).toEqual(['test']);
    const skipped = result.messages.flatMap((m) => m.content).find((b) => 'tool_result' in b && b.tool_result.tool_use_id === 'toolu_0_1');
    expect(skipped).toMatchObject({ tool_result: { is_error: true, content: expect.stringMatching(/not re-run/) } });
  });

  it('journals a denial the model reads', async () => {
    const store = new FileStore(tempDir());
    const tools = [defineTool({ name: 'rm', confirm: true, run: () => 'removed' })];
    const agent = defineAgent({ provider: scriptProvider([{ tool_calls: [{ name: 'rm' }] }, answer('Not removed.')]), tools });
    const result = await (await startRun(store, agent, { prompt: 'clean up' })).execute({ beforeToolCall: () => denyCall('not today') });
    const denied = result.messages.flatMap((m) => m.content).find((b) => 'tool_result' in b);
    expect(denied).toMatchObject({ tool_result: { is_error: true, content: 'denied by the operator: not today' } });
  });

  it('streams text and tool calls to an observer, and records as they are durable', async () => {
    const store = new FileStore(tempDir());
    const echo = defineTool({ name: 'echo', run: (input) => JSON.stringify(input) });
    const agent = defineAgent({ provider: scriptProvider([{ text: 'Calling.', tool_calls: [{ name: 'echo', input: { a: 1 } }] }, answer('Done.')]), tools: [echo] });
    const events: string[] = [];
    const durable: JournalRecord[] = [];
    const observer: RunObserver = {
      text: (d) => events.push(`text ${d}`),
      toolStart: (call) => events.push(`start ${call.name}`),
      toolEnd: (call, result) => events.push(`end ${call.name} ${result.content}`),
      record: (r) => durable.push(r),
    };
    const run = await startRun(store, agent, { id: 'obs', prompt: 'go' });
    await run.execute({ observer });
    expect(events).toEqual(['text Calling.', 'start echo', 'end echo {"a":1}', 'text Done.']);
    expect(durable.map((r) => r.seq)).toEqual([2, 3, 4, 5]);
    expect((await store.load('obs')).records.slice(1)).toEqual(durable);
  });

  it('runs a command tool with agent.yaml defaults, its environment an allow-list', async () => {
    const tool = commandTool(
      {
        name: 'say',
        input_schema: { type: 'object', properties: { word: { type: 'string' } } },
        command: ['sh', '-c', 'printf "%s:%s" "$1" "${SECRET:-unset}"', 'sh', '{{word}}'],
      },
      { env: { PATH: process.env.PATH, SECRET: 's3cret' } },
    );
    const store = new FileStore(tempDir());
    const agent = defineAgent({ provider: scriptProvider([{ tool_calls: [{ name: 'say', input: { word: 'hi' } }] }, answer('ok')]), tools: [tool] });
    const result = await (await startRun(store, agent, { prompt: 'say' })).execute();
    const out = result.messages.flatMap((m) => m.content).find((b) => 'tool_result' in b);
    expect(out && 'tool_result' in out && JSON.parse(out.tool_result.content)).toMatchObject({ exit_code: 0, output: 'hi:unset' });
  });

  it('loads agent.yaml as the command does, with its store, and refuses a bad one in the same words', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'turns.yaml'), 'turns:\n  - text: "From the file."\n');
    writeFileSync(join(dir, 'agent.yaml'), 'provider: script\nscript: turns.yaml\nsystem: Be brief.\n');
    const loaded = await loadAgent(join(dir, 'agent.yaml'), { env: {} });
    try {
      expect(loaded.config).toMatchObject({ provider: 'script', system: 'Be brief.', script: join(dir, 'turns.yaml') });
      const store = await storeFromConfig(loaded.config, { stateDir: join(dir, 'state') });
      const run = await startRun(store, loaded.agent, { id: 'cfg', prompt: 'hi' });
      expect((await run.execute()).finalText).toBe('From the file.');
      expect(store.location).toBe(`file store in ${join(dir, 'state', 'runs')}`);
      await store.close();
    } finally {
      await loaded.close();
    }
    writeFileSync(join(dir, 'bad.yaml'), 'provider: script\nscirpt: turns.yaml\n');
    await expect(loadAgent(join(dir, 'bad.yaml'), { env: {} })).rejects.toThrow(`${join(dir, 'bad.yaml')}: unknown key "scirpt" at the top level (did you mean "script"?)`);
    const missing = await loadAgent(join(dir, 'none.yaml'), { env: {} }).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(LogbookError);
    expect((missing as LogbookError).message).toBe(`config file ${join(dir, 'none.yaml')} not found`);
  });

  it('forks, lists newest first, searches and exports stored runs', async () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    const store = new FileStore(dir);
    const agent = defineAgent({ provider: scriptProvider([answer('The zebra is striped.')]) });
    await (await startRun(store, agent, { id: 'a', prompt: 'zebra?', now: new Date('2026-01-01T00:00:00Z') })).execute();
    const fork = await forkRun(store, 'a', { id: 'b', at: 1 });
    expect(fork).toEqual({ id: 'b', lastSeq: 1, records: 1 });
    expect(newestFirst(await store.list()).map((r) => r.runId)).toEqual(['b', 'a']);
    const hits = [];
    for await (const hit of searchRuns(store, 'ZEBRA')) hits.push(`${hit.runId} ${hit.seq} ${hit.role}`);
    expect(hits).toEqual(['b 1 prompt', 'a 2 assistant']); // the fork's copy of a's prompt is one record, given on the newer run
    const limited = [];
    for await (const hit of searchRuns(store, 'zebra', { limit: 1, statuses: ['completed'] })) limited.push(hit.run.status);
    expect(limited).toEqual(['completed']);
    await expect(searchRuns(store, '(', { regex: true }).next()).rejects.toMatchObject({ code: 'usage' });
    expect(await exportSession(store, 'a', 'jsonl')).toBe(`${(await store.lines('a')).join('\n')}\n`);
    expect(await exportSession(store, 'a', 'md')).toContain('The zebra is striped.');
    expect(await exportSession(store, 'a', 'html')).toMatch(/^<!doctype html>/i);
  });
});
