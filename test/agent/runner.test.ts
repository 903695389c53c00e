import { describe, expect, it } from 'vitest';
import { RESUME_REMINDER, fingerprintOf, type Agent } from '../../src/agent/agent.js';
import type { ModelRequest, Provider } from '../../src/agent/provider.js';
import { ScriptProvider } from '../../src/agent/providers/script.js';
import { newRunMeta, resumeRun, startRun } from '../../src/agent/run.js';
import { textOf, type ChatInput, type LoopOptions, type RunObserver } from '../../src/agent/runner.js';
import type { WorkspaceSnapshots } from '../../src/agent/workspace.js';
import { ToolRegistry } from '../../src/agent/tools/registry.js';
import { defineTool } from '../../src/agent/tools/tool.js';
import { at } from '../helpers/records.js';
import { LogbookError, MemoryStore, fold, type JournalRecord, type Store } from '../../src/index.js';
import { payloadKind } from '../../src/core/index.js';

type Turn = ConstructorParameters<typeof ScriptProvider>[2] extends (infer T)[] | undefined ? T : never;

/** A script provider that also remembers every request it was sent. */
function scripted(turns: Turn[], model = 'script-model'): ScriptProvider & { requests: ModelRequest[] } {
  const p = new ScriptProvider(model, 'test-script', turns) as ScriptProvider & { requests: ModelRequest[] };
  p.requests = [];
  const complete = p.complete.bind(p);
  p.complete = async (req, obs) => {
    p.requests.push({ ...req, messages: structuredClone(req.messages) });
    return complete(req, obs);
  };
  return p;
}

const echo = (log: string[]) =>
  defineTool({
    name: 'echo',
    input_schema: { type: 'object', properties: { say: { type: 'string' } }, required: ['say'] },
    run: (input) => {
      const say = (input as { say: string }).say;
      log.push(say);
      return `echo: ${say}`;
    },
  });

function config(provider: Provider, tools: ToolRegistry, extra: Partial<Agent> = {}): Agent {
  return { provider, tools, system: 'be brief', maxTokens: 100, maxIterations: 10, thinking: 'off', promptCache: false, ...extra };
}

/** Journals a run's meta as if the agent with these tools started it, for tests that write its records by hand. */
async function started(store: Store, id: string, tools: ToolRegistry, prompt: string, interactive = false) {
  return store.create(id, newRunMeta(id, fingerprintOf(config(scripted([]), tools)), prompt, interactive));
}

/** Starts a run and executes it: the two calls an embedding program makes. */
async function run(store: Store | null, agent: Agent, prompt: string, options: LoopOptions & { id?: string; interactive?: boolean } = {}) {
  const { id, interactive, ...loop } = options;
  const started = await startRun(store, agent, { prompt, ...(id !== undefined ? { id } : {}), ...(interactive ? { interactive } : {}) });
  return started.execute(loop);
}

const kinds = (records: JournalRecord[]) => records.map((r) => payloadKind(r));

const batchThenAnswer: Turn[] = [
  { text: 'Looking.', tool_calls: [{ name: 'echo', input: { say: 'one' } }, { name: 'echo', input: { say: 'two' } }, { name: 'echo', input: { say: 'three' } }] },
  { text: 'All three said something.' },
];

describe('the agent loop', () => {
  it('journals in write order and rebuilds, by fold, the conversation it had live', async () => {
    const store = new MemoryStore();
    const ran: string[] = [];
    const tools = new ToolRegistry([echo(ran)]);
    const result = await run(store, config(scripted(batchThenAnswer), tools), 'say three things', { id: 'r' });
    expect(result.reason).toBe('completed');
    expect(result.finalText).toBe('All three said something.');
    expect(ran).toEqual(['one', 'two', 'three']);
    const { records, state } = await store.load('r');
    expect(kinds(records)).toEqual(['meta', 'assistant', 'tool_result', 'tool_result', 'tool_result', 'assistant', 'terminal']);
    expect(state.messages).toEqual(result.messages);
    expect(state.counters).toEqual(result.counters);
    expect(state.terminal).toEqual({ reason: 'completed' });
  });

  it('makes the assistant turn durable before any of its tools runs', async () => {
    const store = new MemoryStore();
    const seen: string[][] = [];
    const probe = defineTool({
      name: 'echo',
      run: async () => {
        seen.push(kinds((await store.load('d')).records));
        return 'ok';
      },
    });
    const tools = new ToolRegistry([probe]);
    await run(store, config(scripted([{ tool_calls: [{ name: 'echo' }, { name: 'echo' }] }, { text: 'done' }]), tools), 'p', { id: 'd' });
    expect(seen).toEqual([
      ['meta', 'assistant'],
      ['meta', 'assistant', 'tool_result'],
    ]);
  });

  it('runs without a journal at all', async () => {
    const tools = new ToolRegistry([echo([])]);
    const result = await run(null, config(scripted(batchThenAnswer), tools), 'p');
    expect(result.reason).toBe('completed');
    expect(result.counters).toMatchObject({ llm_calls: 2, tool_calls: 3 });
  });

  it('turns bad tool calls into error results the model sees', async () => {
    const tools = new ToolRegistry([echo([])]);
    const provider = scripted([{ tool_calls: [{ name: 'nope' }, { name: 'echo', input: { say: 5 } }] }, { text: 'ok' }]);
    const result = await run(null, config(provider, tools), 'p');
    expect(result.reason).toBe('completed');
    const results = provider.requests[1]!.messages.at(-1)!.content.map((b) => ('tool_result' in b ? b.tool_result : null));
    expect(results[0]).toMatchObject({ is_error: true, content: expect.stringContaining('unknown tool "nope"') });
    expect(results[1]).toMatchObject({ is_error: true, content: expect.stringContaining('does not match its schema') });
  });

  it('ends at the iteration cap and at the token budget, journaling why', async () => {
    const store = new MemoryStore();
    const tools = new ToolRegistry([echo([])]);
    const loop = Array.from({ length: 5 }, () => ({ tool_calls: [{ name: 'echo', input: { say: 'again' } }], usage: { input: 50, output: 50 } }));
    const capped = await run(store, config(scripted(loop), tools, { maxIterations: 2 }), 'p', { id: 'cap' });
    expect(capped.reason).toBe('max_iterations');
    expect((await store.load('cap')).state.terminal?.reason).toBe('max_iterations');
    expect(capped.counters.llm_calls).toBe(2);

    const broke = await run(store, config(scripted(loop), tools, { budget: 250 }), 'p', { id: 'budget' });
    expect(broke.reason).toBe('budget');
    expect(broke.counters.llm_calls).toBe(3); // 300 tokens spent when the check stops the 4th call
    expect((await store.load('budget')).state.terminal).toMatchObject({ reason: 'budget', message: expect.stringContaining('250') });
  });

  it('ends with reason error, keeping the failing error code, when the model call fails', async () => {
    const failing: Provider = {
      id: 'script',
      model: 'm',
      complete: async () => {
        throw new LogbookError('provider', 'anthropic refused the request (401 authentication_error): invalid x-api-key');
      },
    };
    const result = await run(null, config(failing, new ToolRegistry([])), 'p');
    expect(result).toMatchObject({ reason: 'error', error: { code: 'provider' }, message: expect.stringContaining('401') });
  });

  it('chats: journals each typed follow-up, skips empty lines, ends at end of input, and folds to the live conversation', async () => {
    const store = new MemoryStore();
    const tools = new ToolRegistry([echo([])]);
    const lines = ['first question', '', 'second'];
    const result = await run(
      store,
      config(scripted([{ text: 'hi' }, { tool_calls: [{ name: 'echo', input: { say: 'x' } }] }, { text: 'answer one' }, { text: 'answer two' }]), tools),
      'hello',
      { id: 'chat', interactive: true, input: { next: async () => lines.shift() ?? null } },
    );
    expect(result).toMatchObject({ reason: 'suspended', interrupted: false, finalText: 'answer two' });
    const { records, state } = await store.load('chat');
    expect(kinds(records)).toEqual(['meta', 'assistant', 'user', 'assistant', 'tool_result', 'assistant', 'user', 'assistant', 'terminal']);
    expect(state.messages).toEqual(result.messages);
  });

  it('runs only the first of two calls sharing an id, and answers the repeat with an error that says why', async () => {
    const store = new MemoryStore();
    const ran: string[] = [];
    const tools = new ToolRegistry([echo(ran)]);
    const twice = { tool_calls: [{ name: 'echo', input: { say: 'first' }, id: 'same' }, { name: 'echo', input: { say: 'second' }, id: 'same' }] };
    const provider = scripted([twice, { text: 'done' }]);
    const warnings: string[] = [];
    const result = await run(store, config(provider, tools), 'p', { id: 'dup', observer: { warning: (m) => warnings.push(m) } });
    expect(result.reason).toBe('completed');
    expect(ran).toEqual(['first']);
    expect(warnings.join()).toMatch(/two tool calls the id same/);
    const answered = provider.requests[1]!.messages.at(-1)!.content.map((b) => ('tool_result' in b ? b.tool_result : null));
    expect(answered).toEqual([
      { tool_use_id: 'same', content: 'echo: first' },
      { tool_use_id: 'same', content: expect.stringContaining('its id same is the id of an earlier call'), is_error: true },
    ]);
    const { records, state } = await store.load('dup');
    expect(kinds(records)).toEqual(['meta', 'assistant', 'tool_result', 'tool_result', 'assistant', 'terminal']);
    expect(state.messages).toEqual(result.messages);
  });

  it('suspends on a signal: a tool cut short gets no result record', async () => {
    const store = new MemoryStore();
    const ac = new AbortController();
    // A tool that never finishes by itself and ignores its signal: the suspend must not wait for it.
    const slow = defineTool({
      name: 'echo',
      run: () => {
        setTimeout(() => ac.abort(), 20);
        return new Promise<string>(() => {});
      },
    });
    const tools = new ToolRegistry([slow]);
    const result = await run(store, config(scripted(batchThenAnswer), tools), 'p', { id: 'sig', signal: ac.signal });
    expect(result).toMatchObject({ reason: 'suspended', interrupted: true });
    const { records, state } = await store.load('sig');
    expect(kinds(records)).toEqual(['meta', 'assistant', 'terminal']);
    expect(state.pending?.answered).toEqual([]);
  });

  it("starts the end's snapshot (its git work's steps to the spawn) before the answer's record is written, so git runs beside the record's fsync", async () => {
    const store = new MemoryStore();
    const log: string[] = [];
    const create = store.create.bind(store);
    store.create = async (...args: Parameters<MemoryStore['create']>) => {
      const held = await create(...args);
      const append = held.append.bind(held);
      held.append = (record) => {
        log.push(`write ${payloadKind(record)}`);
        return append(record);
      };
      return held;
    };
    // As WorkspaceTracker's begin: once until the snapshot is asked, its git work queued behind a few promise steps, then spawned.
    let begun = false;
    const workspace: WorkspaceSnapshots = {
      begin: () => {
        if (begun) return;
        begun = true;
        void Promise.resolve().then(() => Promise.resolve()).then(() => log.push('git spawned'));
      },
      snapshot: async () => {
        begun = false;
        return null;
      },
    };
    const result = await run(store, config(scripted([{ text: 'Done.' }]), new ToolRegistry([])), 'hello', { id: 'b', workspace });
    expect(result.reason).toBe('completed');
    expect(log).toEqual(['git spawned', 'write assistant', 'write terminal']);
  });
});

describe('the workspace around a model call', () => {
  it('is looked at as the request is made, before any of its answer: the limits walk runs beside the request', async () => {
    const log: string[] = [];
    const provider: Provider = {
      id: 'script',
      model: 'm',
      async complete(_req, obs) {
        log.push('request');
        log.push('answer');
        obs?.onUsage?.({ inTokens: 1, outTokens: 1 });
        obs?.onText?.('Done.', 0);
        return { message: { role: 'assistant', content: [{ text: { text: 'Done.' } }] }, stopReason: 'end_turn', usage: { inTokens: 1, outTokens: 1 } };
      },
    };
    const workspace: WorkspaceSnapshots = {
      look: () => log.push('look'),
      prepare: () => log.push('prepare'),
      snapshot: async () => null,
    };
    const result = await run(new MemoryStore(), config(provider, new ToolRegistry([])), 'hello', { id: 'w', workspace });
    expect(result.reason).toBe('completed');
    expect(log).toEqual(['look', 'request', 'answer', 'prepare']);
  });
});

describe('a stream and its record', () => {
  it("joins the deltas of a call's text blocks as its message's text, and says when a retry makes them void", async () => {
    // A provider that streams the way the SDK readers do: deltas by block, a restart, then the answer.
    const message = { role: 'assistant' as const, content: [{ text: { text: 'One.' } }, { text: { text: '' } }, { thinking: { text: 'hm' } }, { text: { text: 'Two.' } }] };
    const provider: Provider = {
      id: 'script',
      model: 'm',
      async complete(_req, obs) {
        obs?.onText?.('lost', 0);
        obs?.onRestart?.();
        obs?.onText?.('On', 0);
        obs?.onText?.('e.', 0);
        obs?.onText?.('', 1);
        obs?.onThinking?.('hm', 2);
        obs?.onText?.('Two.', 3);
        return { message, stopReason: 'end_turn', usage: { inTokens: 1, outTokens: 1 } };
      },
    };
    let streamed = '';
    const observer: RunObserver = { text: (d) => (streamed += d), restart: () => (streamed = '') };
    const result = await run(null, config(provider, new ToolRegistry([])), 'p', { observer });
    expect(streamed).toBe('One.\n\nTwo.');
    expect(streamed).toBe(textOf(result.messages.at(-1)));
  });

  it("tells the observer a call's stream has ended before its record is journaled, so what streamed is not held behind the journal's write", async () => {
    const store = new MemoryStore();
    const events: string[] = [];
    const observer: RunObserver = {
      text: (d) => events.push(`text ${d}`),
      streamEnd: () => events.push('stream end'),
      record: (r) => events.push(`record ${payloadKind(r)}`),
      assistant: () => events.push('assistant'),
    };
    await run(store, config(scripted([{ text: 'Hello.' }]), new ToolRegistry([])), 'p', { id: 'ends', observer });
    const from = events.indexOf('text Hello.');
    expect(events.slice(from, from + 4)).toEqual(['text Hello.', 'stream end', 'record assistant', 'assistant']);
  });
});

/** A provider that answers each call after its signal says, or after `answers` in order; the first call waits to be stopped. */
function stoppable(answers: string[]): Provider & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    id: 'script',
    model: 'script-model',
    requests,
    complete(req, obs) {
      requests.push({ ...req, messages: structuredClone(req.messages) });
      if (requests.length === 1) {
        obs?.onText?.('I was about to say', 0);
        return new Promise((_, reject) => req.signal?.addEventListener('abort', () => reject(new LogbookError('interrupted', 'model call interrupted'))));
      }
      const text = answers.shift() ?? 'no more';
      return Promise.resolve({ message: { role: 'assistant', content: [{ text: { text } }] }, stopReason: 'end_turn', usage: { inTokens: 1, outTokens: 1 } });
    },
  };
}

/** A chat input from a list of turns, whose every model call can be stopped from the test. */
function stoppableInput(turns: (string | { retry: true })[]) {
  const calls: AbortController[] = [];
  let done = 0;
  const input: ChatInput = {
    next: async () => turns.shift() ?? null,
    answering() {
      const controller = new AbortController();
      calls.push(controller);
      if (calls.length === 1) setTimeout(() => controller.abort(), 10);
      return { signal: controller.signal, done: () => void done++ };
    },
  };
  return { input, calls, ended: () => done };
}

describe('a chat whose answer is stopped', () => {
  it('journals nothing of the cut answer, keeps the run, and sends the next turn joined to the unanswered one', async () => {
    const store = new MemoryStore();
    const provider = stoppable(['Both answered.']);
    const { input, calls, ended } = stoppableInput(['and a second thing']);
    const stops: string[] = [];
    const result = await run(store, config(provider, new ToolRegistry([])), 'first thing', {
      id: 'cut',
      interactive: true,
      input,
      observer: { answerStopped: () => stops.push('stopped') },
    });
    expect(stops).toEqual(['stopped']);
    expect(calls).toHaveLength(2);
    expect(ended()).toBe(2);
    expect(result).toMatchObject({ reason: 'suspended', interrupted: false, finalText: 'Both answered.' });
    const { records, state } = await store.load('cut');
    expect(kinds(records)).toEqual(['meta', 'user', 'assistant', 'terminal']);
    // The model sees both typed texts as one user turn, as the fold has it.
    expect(provider.requests[1]!.messages).toEqual([{ role: 'user', content: [{ text: { text: 'first thing' } }, { text: { text: 'and a second thing' } }] }]);
    expect(state.messages).toEqual(result.messages);
  });

  it('asks the unanswered turn again on a retry, journaling no user record for it', async () => {
    const store = new MemoryStore();
    const provider = stoppable(['Answered at last.']);
    const { input } = stoppableInput([{ retry: true }]);
    const result = await run(store, config(provider, new ToolRegistry([])), 'the question', { id: 'again', interactive: true, input });
    expect(result.finalText).toBe('Answered at last.');
    expect(provider.requests.map((r) => r.messages)).toEqual([
      [{ role: 'user', content: [{ text: { text: 'the question' } }] }],
      [{ role: 'user', content: [{ text: { text: 'the question' } }] }],
    ]);
    expect(kinds((await store.load('again')).records)).toEqual(['meta', 'assistant', 'terminal']);
  });

  it('ignores a retry while nothing is unanswered', async () => {
    const provider = scripted([{ text: 'hi' }, { text: 'second' }]);
    const turns: (string | { retry: true })[] = [{ retry: true }, 'next'];
    const result = await run(null, config(provider, new ToolRegistry([])), 'hello', { interactive: true, input: { next: async () => turns.shift() ?? null } });
    expect(provider.requests).toHaveLength(2);
    expect(result.finalText).toBe('second');
  });

  it('suspends, not stops, when the run signal aborts too', async () => {
    const store = new MemoryStore();
    const ac = new AbortController();
    const provider = stoppable([]);
    const input: ChatInput = {
      next: async () => null,
      answering() {
        const controller = new AbortController();
        setTimeout(() => {
          ac.abort();
          controller.abort();
        }, 10);
        return { signal: controller.signal, done() {} };
      },
    };
    const result = await run(store, config(provider, new ToolRegistry([])), 'q', { id: 'both', interactive: true, input, signal: ac.signal });
    expect(result).toMatchObject({ reason: 'suspended', interrupted: true });
  });
});

describe('resume', () => {
  async function interruptedBatch(store: Store, tools: ToolRegistry) {
    // A run that died after the assistant turn and the first of its three results.
    const journal = await started(store, 'res', tools, 'say three things');
    const first = await scripted(batchThenAnswer).complete({ system: '', messages: [], tools: [], maxTokens: 1, thinking: 'off', promptCache: false });
    await journal.append(at(2, { assistant: { iteration: 0, message: first.message, stop_reason: 'tool_use', in_tokens: 1, out_tokens: 1 } }));
    await journal.append(at(3, { tool_result: { tool_use_id: 'toolu_0_0', result: { tool_use_id: 'toolu_0_0', content: 'echo: one (journaled)' } } }));
    await journal.close();
  }

  it('completes the pending turn first: reuses journaled results, runs only the rest, in tool_use order', async () => {
    const store = new MemoryStore();
    const ran: string[] = [];
    const tools = new ToolRegistry([echo(ran)]);
    await interruptedBatch(store, tools);
    const provider = scripted(batchThenAnswer);
    const resumed = await resumeRun(store, config(provider, tools), 'res');
    const observed: string[] = [];
    const observer: RunObserver = { toolReused: (c) => observed.push(`reused ${c.id}`), toolStart: (c) => observed.push(`ran ${c.id}`) };
    const result = await resumed.execute({ observer });
    expect(result.reason).toBe('completed');
    expect(ran).toEqual(['two', 'three']);
    expect(observed).toEqual(['reused toolu_0_0', 'ran toolu_0_1', 'ran toolu_0_2']);
    // the model was asked once, for turn 2 only, with all three results in order
    expect(provider.requests).toHaveLength(1);
    const sent = provider.requests[0]!;
    expect(sent.messages.at(-1)!.content.flatMap((b) => ('tool_result' in b ? [b.tool_result.content] : []))).toEqual([
      'echo: one (journaled)',
      'echo: two',
      'echo: three',
    ]);
    // The reminder follows the last turn, leaving the system prompt (the cached prefix) as it was.
    expect(sent.system).toBe('be brief');
    expect(sent.messages.at(-1)!.content.at(-1)).toEqual({ text: { text: RESUME_REMINDER } });
    const { state, records } = await store.load('res');
    expect(state.messages).toEqual(result.messages);
    expect(kinds(records).slice(3)).toEqual(['tool_result', 'tool_result', 'assistant', 'terminal']);
  });

  /** A workspace whose snapshots are only told, in order, into `events`, as the provider's requests and the tools' runs are. */
  function toldSnapshots(events: string[]): WorkspaceSnapshots {
    return {
      snapshot: async (_run, seq, moment) => {
        events.push(`snapshot ${moment} after ${seq}`);
        return null;
      },
    };
  }

  /** A run whose tool batch was whole when it stopped: its resume asks the model first. */
  async function answeredBatch(store: Store, tools: ToolRegistry) {
    const journal = await started(store, 'ws', tools, 'say one thing');
    const first: Turn = { tool_calls: [{ name: 'echo', input: { say: 'one' } }] };
    const asked = await scripted([first]).complete({ system: '', messages: [], tools: [], maxTokens: 1, thinking: 'off', promptCache: false });
    await journal.append(at(2, { assistant: { iteration: 0, message: asked.message, stop_reason: 'tool_use', in_tokens: 1, out_tokens: 1 } }));
    await journal.append(at(3, { tool_result: { tool_use_id: 'toolu_0_0', result: { tool_use_id: 'toolu_0_0', content: 'echo: one' } } }));
    await journal.close();
  }

  for (const streamed of [true, false]) {
    it(`takes the resume's snapshot after its first request is sent, and before any tool runs (${streamed ? 'an answer streamed' : 'an answer given whole'})`, async () => {
      const store = new MemoryStore();
      const events: string[] = [];
      const tools = new ToolRegistry([echo(events)]);
      await answeredBatch(store, tools);
      const answer: Turn = streamed ? { text: 'Again.', tool_calls: [{ name: 'echo', input: { say: 'two' } }] } : { tool_calls: [{ name: 'echo', input: { say: 'two' } }] };
      const provider = scripted([{ text: 'unused' }, answer, { text: 'Done.' }]);
      const complete = provider.complete.bind(provider);
      provider.complete = (req, obs) => {
        events.push('request');
        return complete(req, obs);
      };
      const result = await (await resumeRun(store, config(provider, tools), 'ws')).execute({ workspace: toldSnapshots(events) });
      expect(result.reason).toBe('completed');
      // Of the workspace as the resume found it (after seq 3), though taken once the model was asked.
      expect(events.slice(0, 4)).toEqual(['request', 'snapshot resume after 3', 'snapshot tools after 4', 'two']);
      expect(events.filter((e) => e.startsWith('snapshot resume'))).toHaveLength(1);
    });
  }

  it("makes a resumed run's first request without a look at the workspace, which its resume snapshot takes first; later requests are looked at as they are made", async () => {
    const store = new MemoryStore();
    const events: string[] = [];
    const tools = new ToolRegistry([echo(events)]);
    await answeredBatch(store, tools);
    const provider = scripted([{ text: 'unused' }, { tool_calls: [{ name: 'echo', input: { say: 'two' } }] }, { text: 'Done.' }]);
    const complete = provider.complete.bind(provider);
    provider.complete = (req, obs) => {
      events.push('request');
      return complete(req, obs);
    };
    const workspace: WorkspaceSnapshots = { ...toldSnapshots(events), look: () => events.push('look') };
    const result = await (await resumeRun(store, config(provider, tools), 'ws')).execute({ workspace });
    expect(result.reason).toBe('completed');
    expect(events).toEqual(['request', 'snapshot resume after 3', 'snapshot tools after 4', 'two', 'look', 'request', 'snapshot end after 7']);
  });

  it("takes the resume's snapshot before its end when the first request fails", async () => {
    const store = new MemoryStore();
    const events: string[] = [];
    const tools = new ToolRegistry([echo(events)]);
    await answeredBatch(store, tools);
    const provider = scripted([{ text: 'unused' }]); // no turn for the resume's request: the call fails
    const result = await (await resumeRun(store, config(provider, tools), 'ws')).execute({ workspace: toldSnapshots(events) });
    expect(result.reason).toBe('error');
    expect(events).toEqual(['snapshot resume after 3', 'snapshot end after 4']);
  });

  it('answers a one-shot run whose last turn is already journaled without asking the model again', async () => {
    const store = new MemoryStore();
    const tools = new ToolRegistry([echo([])]);
    const journal = await started(store, 'done', tools, 'p');
    await journal.append(at(2, { assistant: { iteration: 0, message: { role: 'assistant', content: [{ text: { text: 'the answer' } }] }, stop_reason: 'end_turn', in_tokens: 1, out_tokens: 1 } }));
    await journal.close();
    const provider = scripted([]);
    const result = await (await resumeRun(store, config(provider, tools), 'done')).execute();
    expect(result).toMatchObject({ reason: 'completed', finalText: 'the answer' });
    expect(provider.requests).toHaveLength(0);
  });

  it('lands a chat at the input boundary without a model call, with a fresh per-turn budget', async () => {
    const store = new MemoryStore();
    const tools = new ToolRegistry([echo([])]);
    const journal = await started(store, 'c', tools, 'hello', true);
    for (let i = 0; i < 3; i++) {
      await journal.append(at(journal.lastSeq + 1, { assistant: { iteration: i, message: { role: 'assistant', content: [{ text: { text: `reply ${i}` } }] }, stop_reason: 'end_turn', in_tokens: 1, out_tokens: 1 } }));
      await journal.append(at(journal.lastSeq + 1, { user: { message: { role: 'user', content: [{ text: { text: `more ${i}` } }] } } }));
    }
    await journal.append(at(journal.lastSeq + 1, { assistant: { iteration: 3, message: { role: 'assistant', content: [{ text: { text: 'reply 3' } }] }, stop_reason: 'end_turn', in_tokens: 1, out_tokens: 1 } }));
    await journal.append(at(journal.lastSeq + 1, { terminal: { reason: 'suspended' } }));
    await journal.close();

    const turns: Turn[] = [...Array(4).fill({ text: 'unused' }), { tool_calls: [{ name: 'echo', input: { say: 'a' } }] }, { text: 'after one tool' }];
    const provider = scripted(turns);
    const resumed = await resumeRun(store, config(provider, tools, { maxIterations: 2 }), 'c', { interactive: true, force: true });
    let asked = 0;
    const result = await resumed.execute({
      input: {
        next: async () => {
          asked++;
          return asked === 1 ? (provider.requests.length === 0 ? 'next question' : 'model was called first!') : null;
        },
      },
    });
    // iteration 4 and 5 fit in the fresh budget of 2 from position 4; an absolute cap of 2 would have refused
    expect(result).toMatchObject({ reason: 'suspended', finalText: 'after one tool' });
    expect(provider.requests).toHaveLength(2);
    expect(provider.requests[0]!.messages.at(-1)!.content).toEqual([{ text: { text: 'next question' } }]);
  });

  it('keeps the cumulative cap for a one-shot resume', async () => {
    const store = new MemoryStore();
    const tools = new ToolRegistry([echo([])]);
    await interruptedBatch(store, tools);
    const provider = scripted(batchThenAnswer);
    const resumed = await resumeRun(store, config(provider, tools, { maxIterations: 1 }), 'res', { interactive: false, force: true });
    const result = await resumed.execute();
    expect(result.reason).toBe('max_iterations');
    expect(provider.requests).toHaveLength(0);
  });

  it('warns when the run rests on a paused turn', async () => {
    const store = new MemoryStore();
    const tools = new ToolRegistry([]);
    const journal = await started(store, 'paused', tools, 'search');
    await journal.append(at(2, { assistant: { iteration: 0, message: { role: 'assistant', content: [{ text: { text: 'searching' } }] }, stop_reason: 'pause_turn', in_tokens: 1, out_tokens: 1 } }));
    await journal.close();
    const provider = scripted([{ text: 'unused' }, { text: 'continued' }]);
    const resumed = await resumeRun(store, config(provider, tools), 'paused');
    expect(resumed.warnings.join()).toMatch(/paused turn/);
    const result = await resumed.execute();
    expect(result.finalText).toBe('continued');
    expect(provider.requests[0]!.messages.at(-1)!.role).toBe('assistant'); // the paused turn is sent back to be continued
    expect(fold((await store.load('paused')).records).terminal?.reason).toBe('completed');
  });

  it('runs the gates before taking the lock', async () => {
    const store = new MemoryStore();
    const tools = new ToolRegistry([echo([])]);
    await interruptedBatch(store, tools);
    const writer = await store.open('res'); // someone else is running it
    await expect(resumeRun(store, config(scripted([], 'other'), tools), 'res')).rejects.toMatchObject({ code: 'config_drift' });
    await expect(resumeRun(store, config(scripted([]), tools), 'res')).rejects.toMatchObject({ code: 'locked' });
    await writer.close();
  });
});
