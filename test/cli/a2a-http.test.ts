/**
 * A logbook agent over A2A 1.0 on HTTP, through the binary, with the official
 * SDK's client: a task sent and waited for, streamed (events in order, the
 * last one final), read back with its history (whole, or its last N), listed;
 * a running task canceled (its run suspended naming the cancel); three
 * messages of one context as one conversation; a confirm tool's call answered
 * through INPUT_REQUIRED; every task's Task the projection of its run.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { a2aClient, eventShape, httpAgentConfig, sendRequest, startHttpServe, userMessage } from '../helpers/a2a-http.js';
import { runCli } from '../helpers/cli.js';
import type { ServeProcess } from '../helpers/serve.js';
import { shTool } from '../helpers/tasks.js';
import { tempDir } from '../helpers/tmp.js';

const say = (text: string) => ({ text });

/** A GET with headers fetch will not send as given (Host). */
function httpGet(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
const call = (name: string, input: Record<string, unknown> = {}) => ({ tool_calls: [{ name, input }] });

describe('serve --http', () => {
  const dir = tempDir('logbook-a2a-http-');
  const serving: ServeProcess[] = [];
  afterEach(async () => {
    await Promise.all(serving.splice(0).map((s) => s.stop('SIGKILL')));
  });
  async function serve(config: string, env: Record<string, string> = {}, listen?: string) {
    const s = await startHttpServe(config, { cwd: dir, env, ...(listen ? { listen } : {}) });
    serving.push(s);
    return s;
  }
  const runOf = (config: string, runId: string) =>
    runCli(['session', 'show', runId, '--config', config, '--json'], { cwd: dir, timeoutMs: 30_000 });

  it('serves a task sent and waited for, streamed in order to its final state, read back with its history, and listed', async () => {
    const config = httpAgentConfig(dir, 'basic', [
      { text: 'Let me look.', ...call('echo', { text: 'hi' }) },
      say('It says hi.'),
    ], `a2a: { identity: basic, description: "says what echo says" }\ntools:\n${shTool('echo', 'printf %s "$1"', { args: ['text'] })}`);
    const s = await serve(config);
    const card = (await (await fetch(`${s.url}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } })).json()) as {
      name: string;
      capabilities: { streaming: boolean; pushNotifications: boolean };
      supportedInterfaces: { protocolBinding: string; url: string; protocolVersion: string }[];
    };
    expect(card.name).toBe('basic');
    expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: false });
    expect(card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion} ${i.url.slice(s.url.length)}`)).toEqual([
      'JSONRPC 1.0 /jsonrpc',
      'HTTP+JSON 1.0 /rest',
      'JSONRPC 0.3 /jsonrpc',
      'HTTP+JSON 0.3 /rest',
    ]);

    // a body that is no JSON gets JSON-RPC's parse error, as the SDK gives it
    const bad = await fetch(`${s.url}/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: '{not json' });
    expect(((await bad.json()) as { error: { code: number } }).error.code).toBe(-32700);

    const client = await a2aClient(s.url);
    const sent = (await client.sendMessage(sendRequest(userMessage({ text: 'What does echo say?' })))) as Task;
    expect(sent.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(sent.artifacts.map((a) => a.parts.map((p) => p.content?.value))).toEqual([['It says hi.']]);
    // prompt, turn with the call, the call's result, the answer
    expect(sent.history.map((m) => m.role)).toEqual([1, 2, 2, 2]);
    expect(JSON.stringify(sent.history[2]!.parts[0]!.content)).toContain('"output":"hi"');

    const got = await client.getTask({ tenant: '', id: sent.id, historyLength: 2 });
    expect(got.history.map((m) => m.messageId)).toEqual(sent.history.slice(-2).map((m) => m.messageId));
    expect(got.status).toEqual(sent.status);

    const events: StreamResponse[] = [];
    for await (const e of client.sendMessageStream(sendRequest(userMessage({ text: 'Stream it.' }), {}))) events.push(e);
    // the first event is the task as the store has it when it is sent (the SDK reads it back): submitted, or already working
    expect(events.map(eventShape).map((e) => e.replace(/^task:.*/, 'task'))).toEqual([
      'task',
      `status:${TaskState.TASK_STATE_WORKING}`,
      `status:${TaskState.TASK_STATE_WORKING}`,
      `status:${TaskState.TASK_STATE_WORKING}`,
      'artifact:answer',
      `status:${TaskState.TASK_STATE_COMPLETED}`,
    ]);
    const streamed = events[0]!.payload!.value as Task;
    const after = await client.getTask({ tenant: '', id: streamed.id });
    expect(after.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(after.artifacts[0]!.parts[0]!.content?.value).toBe('It says hi.');

    // every SSE event id is unique and one more than the last: the task first (its number covers the events it holds), then each later event
    const raw = async (method: string, params: unknown, headers: Record<string, string> = {}) => {
      const r = await fetch(`${s.url}/jsonrpc`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', accept: 'text/event-stream', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method, params }),
      });
      const text = await r.text();
      return { ids: [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1])), task: /"task":\{"id":"([^"]+)"/.exec(text)?.[1] };
    };
    const sse = await raw('SendStreamingMessage', { message: { messageId: 'm-sse', role: 'ROLE_USER', parts: [{ text: 'Stream raw.' }] } });
    const [first, ...later] = sse.ids;
    expect(later.length).toBeGreaterThan(0);
    expect(sse.ids).toEqual(sse.ids.map((_, i) => first! + i));
    // and a client naming any of them gets every event after it again
    const replayed = await raw('SubscribeToTask', { id: sse.task }, { 'last-event-id': String(first) });
    expect(replayed.ids).toEqual(later);

    const rest = await a2aClient(s.url, { binding: 'HTTP+JSON' });
    const listed = await rest.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined, includeArtifacts: true });
    expect(listed.tasks.map((t) => t.id).sort()).toEqual([sent.id, streamed.id, sse.task].sort());
    expect(listed.tasks.find((t) => t.id === sent.id)).toEqual({ ...sent, history: sent.history });
    await expect(rest.getTask({ tenant: '', id: 'no-such-task' })).rejects.toThrow(/not found/i);
  });

  it('cancels a running task: it ends CANCELED and its run is suspended naming the cancel', async () => {
    const config = httpAgentConfig(dir, 'slow', [{ text: 'Thinking hard.', delay_ms: 60_000 }], 'a2a: { identity: slow }\n');
    const s = await serve(config);
    const client = await a2aClient(s.url);
    const first = (await client.sendMessage(sendRequest(userMessage({ text: 'Take your time.' }), { returnImmediately: true }))) as Task;
    await s.waitFor(/task \S+: run task-slow-/);
    const canceled = await client.cancelTask({ tenant: '', id: first.id, metadata: {} });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const got = await client.getTask({ tenant: '', id: first.id });
    expect(got.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const run = JSON.parse((await runOf(config, `task-slow-${first.id}`)).stdout) as { status: string; terminal?: { message?: string } };
    expect(run.status).toBe('suspended');
    expect(JSON.stringify(run)).toContain('canceled by an A2A client');
  });

  it('goes on with a context of three messages as one conversation, each task asking the model only its own turn', async () => {
    const log = join(dir, 'context.log');
    const config = httpAgentConfig(dir, 'context', [say('One.'), say('Two.'), say('Three.')], 'a2a: { identity: context }\n');
    const s = await serve(config, { LOGBOOK_SCRIPT_LOG: log });
    const client = await a2aClient(s.url);
    const one = (await client.sendMessage(sendRequest(userMessage({ text: 'Count.' })))) as Task;
    const two = (await client.sendMessage(sendRequest(userMessage({ text: 'Again.' }, { contextId: one.contextId })))) as Task;
    const three = (await client.sendMessage(sendRequest(userMessage({ text: 'Once more.' }, { contextId: one.contextId })))) as Task;
    expect([one, two, three].map((t) => t.artifacts[0]?.parts[0]?.content?.value)).toEqual(['One.', 'Two.', 'Three.']);
    expect(new Set([one.contextId, two.contextId, three.contextId]).size).toBe(1);
    expect(new Set([one.id, two.id, three.id]).size).toBe(3);
    // each task's history is its own: its prompt and its answer
    expect(three.history.map((m) => m.parts[0]?.content?.value)).toEqual(['Once more.', 'Three.']);
    expect(readFileSync(log, 'utf8').trim().split('\n')).toEqual(['{"turn":0}', '{"turn":1}', '{"turn":2}']);
    const listed = await client.listTasks({ tenant: '', contextId: one.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined, includeArtifacts: false });
    expect(listed.tasks).toHaveLength(3);
  });

  it("asks for a confirm tool's approval as INPUT_REQUIRED, and goes on when the client approves", async () => {
    const marker = join(dir, 'touched');
    const config = httpAgentConfig(
      dir,
      'confirm',
      [{ text: 'Touching.', ...call('touch', {}) }, say('Touched.')],
      `a2a: { identity: confirm }\ntools:\n${shTool('touch', `touch ${marker}`)}    confirm: true\n`,
    );
    const s = await serve(config);
    const client = await a2aClient(s.url);
    const asked = (await client.sendMessage(sendRequest(userMessage({ text: 'Touch it.' })))) as Task;
    expect(asked.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(asked.status?.message?.parts[0]?.content?.value).toMatch(/call toolu_0_0 \(touch\) needs an approval; answer on this task with "approve" or "deny"/);
    await expect(client.sendMessage(sendRequest(userMessage({ text: 'maybe' }, { taskId: asked.id, contextId: asked.contextId })))).rejects.toThrow(/answer "approve" or "deny"/);
    const done = (await client.sendMessage(sendRequest(userMessage({ data: { approval: 'approve' } }, { taskId: asked.id, contextId: asked.contextId })))) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(done.artifacts[0]?.parts[0]?.content?.value).toBe('Touched.');
    expect(readFileSync(marker, 'utf8')).toBe('');
  });

  it("keeps a peer's escape sequences, echoed in the SDK's own log lines, off the operator's terminal", async () => {
    const config = httpAgentConfig(dir, 'echoed', [say('Hello.')], 'a2a: { identity: echoed }\n');
    const s = await serve(config);
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SubscribeToTask', params: { id: '\u001b]0;pwned\u0007\u001b[2Jtask' } });
    const r = await fetch(`${s.url}/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body });
    await r.text();
    await s.waitFor(/Task not found: .*task/);
    expect(s.stderr()).not.toMatch(/[\u001b\u0007]/);
    expect(s.stderr()).not.toMatch(/node_modules/);
  });

  it('names the configured public URL in its card, and refuses an agent-role message or a negative historyLength as invalid params', async () => {
    const config = httpAgentConfig(dir, 'strict', [say('Hello.')], 'a2a: { identity: strict, http: { url: "https://agents.example.com/strict/" } }\n');
    const s = await serve(config);
    expect(s.stderr()).toContain('its URLs name https://agents.example.com/strict');
    const card = (await (await fetch(`${s.url}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } })).json()) as { supportedInterfaces: { url: string }[] };
    expect([...new Set(card.supportedInterfaces.map((i) => i.url))]).toEqual(['https://agents.example.com/strict/jsonrpc', 'https://agents.example.com/strict/rest']);

    const rpc = async (method: string, params: unknown) => {
      const r = await fetch(`${s.url}/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }) });
      return (await r.json()) as { id: unknown; error?: { code: number; message: string } };
    };
    const message = (role: string) => ({ messageId: `m-${role}`, role, parts: [{ text: 'Hi.' }] });
    const agentSaid = await rpc('SendMessage', { message: message('ROLE_AGENT') });
    expect(agentSaid.error).toMatchObject({ code: -32602, message: expect.stringMatching(/role/) });
    const negative = await rpc('SendMessage', { message: message('ROLE_USER'), configuration: { historyLength: -3 } });
    expect(negative.error).toMatchObject({ code: -32602, message: 'historyLength must be a non-negative integer' });
    const streamed = await rpc('SendStreamingMessage', { message: message('ROLE_AGENT') });
    expect(streamed.error?.code).toBe(-32602);
    const got = await rpc('GetTask', { id: 'any', historyLength: -1 });
    expect(got.error).toMatchObject({ code: -32602, message: 'historyLength must be a non-negative integer' });
    const rest = await fetch(`${s.url}/rest/tasks/any?historyLength=-1`, { headers: { 'a2a-version': '1.0' } });
    expect(rest.status).toBe(400);
    expect(existsSync(join(dir, 'strict-runs')) ? readdirSync(join(dir, 'strict-runs')).filter((f) => f.startsWith('task-')) : []).toEqual([]);
  });

  it('refuses to serve off loopback without a token; with one, a request without it gets 401 and makes no run (ask saying so), and a body past the bound 413 in JSON, with a length or without one', async () => {
    const config = httpAgentConfig(dir, 'guarded', [say('Hello.')], 'a2a: { identity: guarded, http: { token_env: GUARD_TOKEN } }\n');
    const open = httpAgentConfig(dir, 'open', [say('Hello.')], 'a2a: { identity: open }\n');
    const refused = await runCli(['serve', '--http', '0.0.0.0:0', '--config', open], { cwd: dir, timeoutMs: 30_000 });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/off loopback, needs a bearer token: set a2a: \{ http: \{ token_env: NAME \} \}/);
    const unset = await runCli(['serve', '--http', '0.0.0.0:0', '--config', config], { cwd: dir, timeoutMs: 30_000 });
    expect(unset.stderr).toMatch(/a2a.http.token_env names GUARD_TOKEN, which is not set/);

    const s = await serve(config, { GUARD_TOKEN: 'sekrit-token' }, '0.0.0.0:0');
    // on every interface, the card names the address its client asked by, never 0.0.0.0
    const port = new URL(s.url).port;
    expect(s.url).toBe(`http://127.0.0.1:${port}`);
    const cardAt = async (host: string) => {
      const r = await httpGet(`${s.url}/.well-known/agent-card.json`, { host, 'a2a-version': '1.0' });
      return { status: r.status, urls: r.status === 200 ? [...new Set((JSON.parse(r.body) as { supportedInterfaces: { url: string }[] }).supportedInterfaces.map((i) => i.url))] : [] };
    };
    expect(await cardAt(`127.0.0.1:${port}`)).toEqual({ status: 200, urls: [`http://127.0.0.1:${port}/jsonrpc`, `http://127.0.0.1:${port}/rest`] });
    expect(await cardAt('Agents.Internal:8443')).toEqual({ status: 200, urls: ['http://agents.internal:8443/jsonrpc', 'http://agents.internal:8443/rest'] });
    expect((await cardAt('evil host/')).status).toBe(400);

    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: sendRequest(userMessage({ text: 'Hi.' })) });
    const bare = await fetch(`${s.url}/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', 'a2a-version': '1.0' }, body });
    expect(bare.status).toBe(401);
    expect(bare.headers.get('www-authenticate')).toBe('Bearer');
    // JSON-RPC's error object (the body is not read, so the id is null); HTTP+JSON's own error shape
    expect(await bare.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/bearer token/) } });
    const wrong = await fetch(`${s.url}/rest/tasks`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: { code: 401, status: 'UNAUTHENTICATED', message: expect.stringMatching(/bearer token/), details: [] } });
    const lowercase = await fetch(`${s.url}/rest/tasks`, { headers: { authorization: 'bearer sekrit-token', 'a2a-version': '1.0' } });
    expect(lowercase.status).toBe(200); // the scheme's name is case-insensitive (RFC 9110)
    expect(existsSync(join(dir, 'guarded-runs')) ? readdirSync(join(dir, 'guarded-runs')).filter((f) => f.startsWith('task-')) : []).toEqual([]);
    const card = await fetch(`${s.url}/.well-known/agent-card.json`);
    expect(((await card.json()) as { securitySchemes: Record<string, unknown> }).securitySchemes).toHaveProperty('bearer');

    const big = await fetch(`${s.url}/jsonrpc`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sekrit-token' }, body: 'x'.repeat(200 * 1024) });
    expect(big.status).toBe(413);
    expect(await big.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(/at most 102400 bytes/) } });
    const bigRest = await fetch(`${s.url}/rest/message:send`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer sekrit-token' }, body: 'x'.repeat(200 * 1024) });
    expect(bigRest.status).toBe(413);
    expect(await bigRest.json()).toMatchObject({ error: { code: 413, status: 'INVALID_ARGUMENT', message: expect.stringMatching(/at most 102400 bytes/) } });
    const chunks = new ReadableStream({
      start(c) {
        for (let i = 0; i < 4; i++) c.enqueue(new TextEncoder().encode('x'.repeat(64 * 1024)));
        c.close();
      },
    });
    const unannounced = await fetch(`${s.url}/jsonrpc`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sekrit-token' },
      body: chunks,
      duplex: 'half',
    } as RequestInit);
    expect(unannounced.status).toBe(413);
    expect(unannounced.headers.get('content-type')).toMatch(/^application\/json/);
    const cut = await unannounced.text();
    expect(cut).not.toMatch(/node_modules|Error/);
    expect(JSON.parse(cut)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });

    const tokenless = await runCli(['ask', s.url, 'Hi.'], { cwd: dir, timeoutMs: 30_000 });
    expect(tokenless.code).not.toBe(0);
    expect(tokenless.stderr).toContain(`the agent at ${s.url} wants a bearer token (HTTP 401) and none was given`);
    const mistaken = await runCli(['ask', '--token-env', 'GUARD_TOKEN', s.url, 'Hi.'], { cwd: dir, env: { GUARD_TOKEN: 'nope' }, timeoutMs: 30_000 });
    expect(mistaken.stderr).toContain('refused the bearer token given (HTTP 401)');

    const client = await a2aClient(s.url, { token: 'sekrit-token' });
    const done = (await client.sendMessage(sendRequest(userMessage({ text: 'Hi.' })))) as Task;
    expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });
});
