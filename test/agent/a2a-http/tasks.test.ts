/**
 * What a task's executor publishes as each record becomes durable is what a
 * later read of the run projects: the same events, the same status times, to
 * the millisecond, because both take the time the store kept beside the
 * journal for each record (on JetStream the time the server stored its
 * message), never a clock reading of their own.
 */
import { Role } from '@a2a-js/sdk';
import { DefaultExecutionEventBus, RequestContext, ServerCallContext, type AgentExecutionEvent } from '@a2a-js/sdk/server';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TaskState } from '@a2a-js/sdk';
import { HttpTasks } from '../../../src/agent/a2a-http/tasks.js';
import { taskRunId } from '../../../src/agent/tasks/origin.js';
import { ScriptProvider } from '../../../src/agent/providers/script.js';
import { FileStore, MemoryStore, ToolRegistry, type Agent, type Store } from '../../../src/index.js';
import { tempDir } from '../../helpers/tmp.js';
import { freshJetStreamStore } from '../../helpers/jetstream.js';
import { describeEachNatsServer, useNatsServer } from '../../helpers/nats-server.js';

function agent(): Agent {
  const provider = new ScriptProvider('m', 'inline', [{ text: 'the answer' }]);
  return { provider, tools: new ToolRegistry(), system: 's', maxTokens: 100, maxIterations: 5, thinking: 'off', promptCache: false };
}

function request(taskId: string, text: string): RequestContext {
  const message = { messageId: `${taskId}-m`, role: Role.ROLE_USER, parts: [{ content: { $case: 'text' as const, value: text } }], contextId: 'c1', taskId: '', extensions: [], metadata: undefined, referenceTaskIds: [] };
  return new RequestContext({ tenant: '', message, configuration: undefined, metadata: undefined } as never, taskId, 'c1', new ServerCallContext());
}

afterEach(() => {
  vi.restoreAllMocks();
});

/** Runs one task on `store` and compares what was published with a fresh read of its run. */
async function publishesWhatIsRead(store: Store): Promise<void> {
  // Every clock reading is a new millisecond: a live time read apart from the kept one cannot pass for it.
  let now = 1_800_000_000_000;
  vi.spyOn(Date, 'now').mockImplementation(() => (now += 1));
  const tasks = new HttpTasks({ identity: 'agent', store, agent: agent() });
  const bus = new DefaultExecutionEventBus();
  const published: AgentExecutionEvent[] = [];
  bus.on('event', (event: AgentExecutionEvent) => published.push(structuredClone(event)));
  await tasks.executor.execute(request('t1', 'what is it?'), bus);
  const fresh = await tasks.events('t1');
  expect(fresh).toBeDefined();
  expect(published.length).toBeGreaterThanOrEqual(3);
  expect(published).toEqual(fresh!.events);
}

describe('an HTTP task published live', () => {
  for (const [name, make] of [
    ['a file store', (): Store => new FileStore(tempDir())],
    ['a memory store', (): Store => new MemoryStore()],
  ] as const) {
    it(`publishes the events a fresh read of its run projects, status times included (${name})`, async () => {
      await publishesWhatIsRead(make());
    });
  }
});

describeEachNatsServer('an HTTP task published live on JetStream', (binary) => {
  const nats = useNatsServer({ binary });

  it('publishes the events a fresh read of its run projects, status times included: the times the server stored', async () => {
    const store = await freshJetStreamStore(nats.server().url);
    try {
      await publishesWhatIsRead(store);
    } finally {
      vi.restoreAllMocks();
      await store.close();
    }
  });

  it('reads a running task no older than its journal: once a watcher sees the final record, a load says COMPLETED, though the live projection still waits for its time', async () => {
    const store = await freshJetStreamStore(nats.server().url);
    let slow = false;
    // The same store, its time reads held back once the answer is stored: the live projection lags the journal meanwhile.
    const lagging = new Proxy(store, {
      get(target, key) {
        if (key === 'recordTime') return async (id: string, seq: number) => (slow && (await sleep(300)), target.recordTime(id, seq));
        const value = Reflect.get(target, key) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    }) as Store;
    try {
      const tasks = new HttpTasks({ identity: 'agent', store: lagging, agent: agent() });
      const running = tasks.executor.execute(request('t1', 'what is it?'), new DefaultExecutionEventBus());
      for await (const { record } of store.watch(taskRunId('agent', 't1'))) {
        if ('assistant' in record) slow = true;
        if ('terminal' in record) break;
      }
      expect((await tasks.taskStore.load('t1', new ServerCallContext()))?.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      await running;
    } finally {
      await store.close();
    }
  });
});
