/**
 * A task over A2A on HTTP outlives the server serving it: `serve --http`
 * SIGKILLed in the middle of a model call, or of a tool batch, and served
 * again (the file store: the same agent restarted; JetStream: another
 * instance) finishes the task with no journaled model turn asked again and no
 * journaled tool run again; a client that resubscribes gets the task as it
 * stands and every later event, so the history it puts together is the
 * journal's projection (the task read back), none missing; one that names the
 * last event it saw (SSE `Last-Event-ID`) gets every event after it again.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import { afterEach, expect, it, describe } from 'vitest';
import { a2aClient, httpAgentConfig, sendRequest, startHttpServe, userMessage } from '../helpers/a2a-http.js';
import { describeEachNatsServer, natsServerOfBlock } from '../helpers/nats-server.js';
import type { ServeProcess } from '../helpers/serve.js';
import { addStreamAt, shTool } from '../helpers/tasks.js';
import { CRASH_BIN } from '../helpers/cli.js';
import { journalStream } from '../helpers/jetstream.js';
import { tempDir } from '../helpers/tmp.js';

const say = (text: string) => ({ text });

/** Waits (bounded) until `check` holds. */
async function until(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

const lines = (file: string): string[] => (existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter(Boolean) : []);

/** The history a client puts together: the task it was first given, then each status message after it. */
function historyOf(events: StreamResponse[]): string[] {
  const ids: string[] = [];
  for (const e of events) {
    const p = e.payload;
    if (p?.$case === 'task') ids.splice(0, ids.length, ...p.value.history.map((m) => m.messageId));
    else if (p?.$case === 'statusUpdate' && p.value.status?.message && !ids.includes(p.value.status.message.messageId)) ids.push(p.value.status.message.messageId);
  }
  return ids;
}

interface Scenario {
  dir: string;
  /** Extra YAML for the agent (its store). */
  store: string;
  serve: (config: string, env: Record<string, string>) => Promise<ServeProcess & { url: string }>;
}

/**
 * Kills the server while turn 1 (a slow model call) is asked, serves again, and checks the task ends as if nothing happened.
 * The call's 4 s leave the client time to resubscribe before the task ends (a task that ended refuses a plain subscription).
 */
async function killedInModelCall({ dir, store, serve }: Scenario, name: string): Promise<void> {
  const log = join(dir, `${name}.log`);
  const ran = join(dir, `${name}.ran`);
  const config = httpAgentConfig(
    dir,
    name,
    [{ text: 'Looking.', tool_calls: [{ name: 'mark', input: {} }] }, { text: 'Answer.', delay_ms: 4_000 }],
    `a2a: { identity: ${name} }\n${store}tools:\n${shTool('mark', `echo x >> ${ran}`)}`,
  );
  const env = { LOGBOOK_SCRIPT_LOG: log };
  const first = await serve(config, env);
  const client = await a2aClient(first.url);
  const seen: StreamResponse[] = [];
  const streaming = (async () => {
    for await (const e of client.sendMessageStream(sendRequest(userMessage({ text: 'Look.' })))) seen.push(e);
  })().catch((err: unknown) => seen.length === 0 && console.error("stream:", err, first.stderr()));
  await until(() => lines(log).length === 2 && seen.length >= 3, 'turn 1 to be asked, and the events before it seen');
  await first.stop('SIGKILL');
  await streaming;
  const taskId = (seen[0]!.payload!.value as Task).id;

  const second = await serve(config, env);
  await second.waitFor(/resuming 1 task/);
  const again = await a2aClient(second.url);
  const resubscribed: StreamResponse[] = [];
  for await (const e of again.resubscribeTask({ tenant: '', id: taskId })) resubscribed.push(e);
  const last = resubscribed.at(-1)!.payload!;
  expect(last.$case === 'statusUpdate' && last.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  const task = await again.getTask({ tenant: '', id: taskId });
  expect(task.artifacts[0]?.parts[0]?.content?.value).toBe('Answer.');
  expect(historyOf(resubscribed)).toEqual(task.history.map((m) => m.messageId));
  // turn 0 was journaled: never asked again; turn 1 was cut off, so asked again; the tool ran once
  expect(lines(log)).toEqual(['{"turn":0}', '{"turn":1}', '{"turn":1}']);
  expect(lines(ran)).toEqual(['x']);
}

/** Kills the server while the second call of a batch runs, serves again: the first call's journaled result is kept, the second runs again. */
async function killedInToolBatch({ dir, store, serve }: Scenario, name: string): Promise<void> {
  const log = join(dir, `${name}.log`);
  const once = join(dir, `${name}.once`);
  const slow = join(dir, `${name}.slow`);
  const config = httpAgentConfig(
    dir,
    name,
    [{ text: 'Two calls.', tool_calls: [{ name: 'once', input: {} }, { name: 'slow', input: {} }] }, say('Both ran.')],
    `a2a: { identity: ${name} }\n${store}tools:\n${shTool('once', `echo x >> ${once}`)}${shTool('slow', `echo y >> ${slow}; sleep 4`)}`,
  );
  const env = { LOGBOOK_SCRIPT_LOG: log };
  const first = await serve(config, env);
  const client = await a2aClient(first.url);
  const sent = (await client.sendMessage(sendRequest(userMessage({ text: 'Run both.' }), { returnImmediately: true }))) as Task;
  await until(() => lines(slow).length === 1, 'the slow call to start');
  await first.stop('SIGKILL');

  const second = await serve(config, env);
  await second.waitFor(/resuming 1 task/);
  const again = await a2aClient(second.url);
  const resubscribed: StreamResponse[] = [];
  for await (const e of again.resubscribeTask({ tenant: '', id: sent.id })) resubscribed.push(e);
  const task = await again.getTask({ tenant: '', id: sent.id });
  expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  expect(historyOf(resubscribed)).toEqual(task.history.map((m) => m.messageId));
  expect(lines(log)).toEqual(['{"turn":0}', '{"turn":1}']);
  expect(lines(once)).toEqual(['x']);
  expect(lines(slow)).toEqual(['y', 'y']); // no side effects: run again
}

/** The number an event carries (its SSE id): the count of the task's events up to it. */
function numberOf(e: StreamResponse): number | undefined {
  const p = e.payload;
  if (p === undefined || p.$case === 'message') return undefined;
  const n = (p.value.metadata as Record<string, unknown> | undefined)?.logbookEvent;
  return typeof n === 'number' ? n : undefined;
}

/** Kills the server in a model call; the client names the last event it saw (Last-Event-ID) and gets every one after it, from the journal then live. */
async function lastEventIdAcrossRestart({ dir, store, serve }: Scenario, name: string): Promise<void> {
  const log = join(dir, `${name}.log`);
  const config = httpAgentConfig(
    dir,
    name,
    [{ text: 'Looking.', tool_calls: [{ name: 'mark', input: {} }] }, { text: 'Answer.', delay_ms: 2_500 }],
    `a2a: { identity: ${name} }\n${store}tools:\n${shTool('mark', 'true')}`,
  );
  const env = { LOGBOOK_SCRIPT_LOG: log };
  const first = await serve(config, env);
  const client = await a2aClient(first.url);
  const seen: StreamResponse[] = [];
  const streaming = (async () => {
    for await (const e of client.sendMessageStream(sendRequest(userMessage({ text: 'Look.' })))) seen.push(e);
  })().catch(() => {});
  await until(() => lines(log).length === 2 && seen.some((e) => e.payload?.$case === 'statusUpdate'), 'turn 1 to be asked, and an event after the task seen');
  await first.stop('SIGKILL');
  await streaming;
  const taskId = (seen[0]!.payload!.value as Task).id;
  // the client saw the task and its first status; it names that status as the last event it saw
  const firstStatus = seen.find((e) => e.payload?.$case === 'statusUpdate')!;
  const last = numberOf(firstStatus)!;

  const second = await serve(config, env);
  await second.waitFor(/resuming 1 task/);
  const again = await a2aClient(second.url);
  const replayed: StreamResponse[] = [];
  for await (const e of again.resubscribeTask({ tenant: '', id: taskId }, { serviceParameters: { 'Last-Event-ID': String(last) } })) replayed.push(e);
  const numbers = replayed.map(numberOf);
  const task = await again.getTask({ tenant: '', id: taskId });
  const total = (task.metadata as { logbookEvent: number }).logbookEvent;
  // every event after the one named, once each, in order, to the task's last
  expect(numbers).toEqual(Array.from({ length: total - last }, (_, i) => last + 1 + i));
  const end = replayed.at(-1)!.payload!;
  expect(end.$case === 'statusUpdate' && end.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  // and, once it ended, naming the last event but two gives those two again
  const tail: StreamResponse[] = [];
  for await (const e of again.resubscribeTask({ tenant: '', id: taskId }, { serviceParameters: { 'Last-Event-ID': String(total - 2) } })) tail.push(e);
  expect(tail.map(numberOf)).toEqual([total - 1, total]);
  // on the wire, each event is a server-sent event whose id is its number
  const raw = await fetch(`${second.url}/jsonrpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'a2a-version': '1.0', 'last-event-id': String(total - 1) },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: taskId } }),
  });
  expect((await raw.text()).match(/^id: \d+$/gm)).toEqual([`id: ${total}`]);
}

describe('serve --http on the file store, killed and restarted', () => {
  const dir = tempDir('logbook-a2a-durable-');
  const serving: ServeProcess[] = [];
  afterEach(async () => {
    await Promise.all(serving.splice(0).map((s) => s.stop('SIGKILL')));
  });
  const scenario: Scenario = {
    dir,
    store: '',
    serve: async (config, env) => {
      const s = await startHttpServe(config, { cwd: dir, env });
      serving.push(s);
      return s;
    },
  };

  it('finishes a task killed in a model call, asking no journaled turn again, and a resubscribed client misses no event', async () => {
    await killedInModelCall(scenario, 'model');
  });

  it("keeps a task's note and its entry in the task index before its run's first record: killed right after the meta, both are there", async () => {
    const runs = join(dir, 'atonce-runs');
    const config = httpAgentConfig(dir, 'atonce', [say('Never answered.')], `session: { backend: crash-file, options: { directory: ${JSON.stringify(runs)} } }\n`);
    const s = await startHttpServe(config, { cwd: dir, bin: CRASH_BIN, env: { LOGBOOK_TEST_CRASH: 'kill-after-create:1' } });
    serving.push(s);
    const client = await a2aClient(s.url);
    await client.sendMessage(sendRequest(userMessage({ text: 'hello' }))).catch(() => {}); // the server dies under it
    expect((await s.exited()).signal).toBe('SIGKILL');
    const names = readdirSync(runs);
    const journal = names.filter((n) => n.endsWith('.jsonl'));
    expect(journal).toHaveLength(1);
    expect(lines(join(runs, journal[0]!))).toHaveLength(1); // the meta alone
    const run = journal[0]!.slice(0, -'.jsonl'.length);
    expect(names).toContain(`${run}.task.note`);
    expect(names.filter((n) => /\.c-[^.]+\.note$/.test(n) && !n.startsWith(`${run}.`))).toHaveLength(1); // the index entry
  });

  it('finishes a task killed in a tool batch, running no journaled call again', async () => {
    await killedInToolBatch(scenario, 'batch');
  });

  it('gives a client that names the last event it saw (Last-Event-ID) every event after it, across the restart and after the end', async () => {
    await lastEventIdAcrossRestart(scenario, 'lastid');
  });
});

describeEachNatsServer('serve --http on a JetStream store, taken over by another instance', (binary) => {
  const { server, start } = natsServerOfBlock();
  start({ binary });
  const dir = tempDir('logbook-a2a-durable-js-');
  const serving: ServeProcess[] = [];
  let made = false;
  afterEach(async () => {
    await Promise.all(serving.splice(0).map((s) => s.stop('SIGKILL')));
  });

  const jsStore = (): string => `nats: { url: "${server().url}" }\nsession: { backend: jetstream, options: { stream: HTTPRUNS } }\n`;
  const ensureStream = async (): Promise<void> => {
    if (!made) await addStreamAt(server().url, journalStream('HTTPRUNS', 'logbook.runs'));
    made = true;
  };
  const serve = async (config: string, env: Record<string, string>): Promise<ServeProcess & { url: string }> => {
    const s = await startHttpServe(config, { cwd: dir, env });
    serving.push(s);
    return s;
  };

  it('another instance finishes a task whose server was killed in a model call', async () => {
    await ensureStream();
    await killedInModelCall({ dir, store: jsStore(), serve }, 'jsmodel');
  });

  it('an instance running beside the one killed in a model call takes its task over, and a client following it there misses no event', async () => {
    await ensureStream();
    const name = 'jslive';
    const log = join(dir, `${name}.log`);
    const ran = join(dir, `${name}.ran`);
    const config = httpAgentConfig(
      dir,
      name,
      [{ text: 'Looking.', tool_calls: [{ name: 'mark', input: {} }] }, { text: 'Answer.', delay_ms: 3_000 }],
      `a2a: { identity: ${name} }\n${jsStore()}tools:\n${shTool('mark', `echo x >> ${ran}`)}`,
    );
    const env = { LOGBOOK_SCRIPT_LOG: log };
    const [first, second] = await Promise.all([serve(config, env), serve(config, env)]);
    const client = await a2aClient(first.url);
    const seen: StreamResponse[] = [];
    const streaming = (async () => {
      for await (const e of client.sendMessageStream(sendRequest(userMessage({ text: 'Look.' })))) seen.push(e);
    })().catch(() => {});
    await until(() => lines(log).length === 2 && seen.length >= 3, 'turn 1 to be asked, and the events before it seen');
    await first.stop('SIGKILL');
    await streaming;
    const taskId = (seen[0]!.payload!.value as Task).id;
    const last = Math.max(...seen.map(numberOf).filter((n): n is number => n !== undefined));
    // the client goes to the instance still running, naming the last event it saw, before that instance took the task over
    const again = await a2aClient(second.url);
    const followed: StreamResponse[] = [];
    for await (const e of again.resubscribeTask({ tenant: '', id: taskId }, { serviceParameters: { 'Last-Event-ID': String(last) } })) followed.push(e);
    await second.waitFor(/taking over 1 task another instance left unfinished/);
    const task = await again.getTask({ tenant: '', id: taskId });
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]?.parts[0]?.content?.value).toBe('Answer.');
    const total = (task.metadata as { logbookEvent: number }).logbookEvent;
    expect([...seen.map(numberOf), ...followed.map(numberOf)]).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(historyOf([...seen, ...followed])).toEqual(task.history.map((m) => m.messageId));
    // turn 0 was journaled: never asked again; turn 1 was cut off, so asked again once; the tool ran once
    expect(lines(log)).toEqual(['{"turn":0}', '{"turn":1}', '{"turn":1}']);
    expect(lines(ran)).toEqual(['x']);
  });

  it('of two instances finding one interrupted task at once, exactly one goes on with it', async () => {
    await ensureStream();
    const name = 'jsrace';
    const log = join(dir, `${name}.log`);
    const config = httpAgentConfig(dir, name, [{ text: 'Answer.', delay_ms: 3_000 }], `a2a: { identity: ${name} }\n${jsStore()}`);
    const env = { LOGBOOK_SCRIPT_LOG: log };
    const first = await serve(config, env);
    const client = await a2aClient(first.url);
    const sent = (await client.sendMessage(sendRequest(userMessage({ text: 'Answer.' }), { returnImmediately: true }))) as Task;
    await until(() => lines(log).length === 1, 'turn 0 to be asked');
    await first.stop('SIGKILL');
    const both = await Promise.all([serve(config, env), serve(config, env)]);
    const again = await a2aClient(both[0].url);
    for (;;) {
      const task = await again.getTask({ tenant: '', id: sent.id });
      if (task.status?.state === TaskState.TASK_STATE_COMPLETED) break;
      await sleep(100);
    }
    // one continuation: the cut-off turn asked once more, by one instance alone
    expect(lines(log)).toEqual(['{"turn":0}', '{"turn":0}']);
    expect(both.filter((s) => /task \S+: resuming/.test(s.stderr()))).toHaveLength(1);
  });
});
