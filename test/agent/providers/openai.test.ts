/**
 * The openai provider: the real SDK against a local server speaking Chat
 * Completions (test/helpers/fake-openai.ts). No network.
 */
import { describe, expect, it, vi } from 'vitest';
import { createProvider } from '../../../src/agent/providers/index.js';
import { OpenAIProvider, PLACEHOLDER_API_KEY } from '../../../src/agent/providers/openai.js';
import { toOpenAIParams } from '../../../src/agent/providers/openai-map.js';
import { LogbookError, RawJson, type Message } from '../../../src/core/index.js';
import { SSE_HEADERS } from '../../helpers/fake-api-server.js';
import { FakeOpenAI, openaiChunks, openaiErrors } from '../../helpers/fake-openai.js';
import { CONTEXT_REFUSALS, refusalReply } from '../../helpers/context-refusals.js';
import { deadPort, expectAbortHangsUp, FAST_RETRY, modelRequest, rejection, useFake } from './request.js';

let api!: FakeOpenAI;
useFake(FakeOpenAI.start, (a) => (api = a));

function provider(retry = FAST_RETRY, extra: { idleTimeoutMs?: number; onRetry?: (m: string) => void } = {}): OpenAIProvider {
  return new OpenAIProvider({ model: 'gpt-test', apiKey: 'sk-test', baseUrl: api.url, retry, ...extra });
}

const ARGS = '{"n": 12345678901234567890, "f": 1.0, "e": 1e3, "s": "a<b"}';

describe('openai: a streamed completion to the neutral model', () => {
  it('maps content, reasoning and tool calls, keeping the arguments byte for byte', async () => {
    api.reply({
      chat: {
        reasoning_content: 'Thinking it over.',
        content: 'Calling two tools.',
        tool_calls: [
          { id: 'call_1', name: 'echo', arguments: ARGS },
          { id: 'call_2', name: 'now', arguments: '' },
        ],
        usage: { prompt_tokens: 200, completion_tokens: 40, cached_tokens: 128 },
      },
    });
    const texts: string[] = [];
    const thoughts: string[] = [];
    const res = await provider().complete(modelRequest(), { onText: (d) => texts.push(d), onThinking: (d) => thoughts.push(d) });
    expect(res.stopReason).toBe('tool_use');
    expect(res.usage).toEqual({ inTokens: 200, outTokens: 40, cacheReadTokens: 128 });
    expect(res.message).toEqual({
      role: 'assistant',
      content: [
        { thinking: { text: 'Thinking it over.' } },
        { text: { text: 'Calling two tools.' } },
        { tool_use: { id: 'call_1', name: 'echo', input: RawJson.fromText(ARGS) } },
        { tool_use: { id: 'call_2', name: 'now', input: RawJson.fromText('{}') } },
      ],
    });
    expect((res.message.content[2] as any).tool_use.input.text).toBe('{"n":12345678901234567890,"f":1.0,"e":1e3,"s":"a\\u003cb"}');
    expect(texts.join('')).toBe('Calling two tools.');
    expect(texts.length).toBeGreaterThan(1);
    expect(thoughts.join('')).toBe('Thinking it over.');
  });

  it('names tool calls a server sent without ids', async () => {
    api.reply({ chat: { tool_calls: [{ name: 'a', arguments: '{}' }, { name: 'b', arguments: '{"x":1}' }] } });
    const res = await provider().complete(modelRequest());
    expect(res.message.content.map((b: any) => b.tool_use.id)).toEqual(['call_0', 'call_1']);
  });

  it.each([
    ['stop', 'end_turn'],
    ['tool_calls', 'tool_use'],
    ['length', 'max_tokens'],
    ['content_filter', 'refusal'],
    ['something_new', 'something_new'],
  ])('maps finish_reason %s to %s', async (finish, stop) => {
    api.reply({ chat: { content: 'x', finish_reason: finish } });
    const res = await provider().complete(modelRequest());
    expect(res.stopReason).toBe(stop);
  });

  it('turns a refusal into text with stop reason refusal, not streamed as an answer', async () => {
    api.reply({ chat: { content: 'Well.', refusal: "I can't help with that." } });
    const seen: string[] = [];
    const res = await provider().complete(modelRequest(), { onText: (d) => seen.push(d) });
    expect(res.stopReason).toBe('refusal');
    expect(res.message.content).toEqual([{ text: { text: 'Well.' } }, { text: { text: "I can't help with that." } }]);
    expect(seen.join('')).toBe('Well.');
  });

  it('reports no cache counts when the server reports none, and zero usage when it sends no usage', async () => {
    api.reply({ chat: { content: 'a', usage: { prompt_tokens: 7, completion_tokens: 3 } } }, { chat: { content: 'b', usage: null } });
    const a = await provider().complete(modelRequest());
    expect(a.usage).toEqual({ inTokens: 7, outTokens: 3 });
    expect(a.usage.cacheCreateTokens).toBeUndefined();
    const b = await provider().complete(modelRequest());
    expect(b.usage).toEqual({ inTokens: 0, outTokens: 0 });
  });

  it('gives {} for broken arguments, with what was wrong, instead of journaling them or failing the call', async () => {
    api.reply({
      chat: {
        tool_calls: [
          { id: 'c', name: 'write', arguments: '{"path":"a' },
          { id: 'd', name: 'read', arguments: '{"path": "b",}' },
        ],
        finish_reason: 'length',
      },
    });
    const res = await provider().complete(modelRequest());
    expect(res.message.content.map((b) => ('tool_use' in b ? b.tool_use.input.text : null))).toEqual(['{}', '{}']);
    expect(res.invalidToolInputs!.get('c')).toMatch(/^its input is not valid JSON \(.+\), cut off where the reply reached max_tokens; it was "\{\\"path\\":\\"a"$/);
    expect(res.invalidToolInputs!.get('d')).toMatch(/^its input is not valid JSON \(.+\), cut off .*; it was "\{\\"path\\": \\"b\\",\}"$/);
  });
});

describe('openai: the neutral model to a request', () => {
  const conversation: Message[] = [
    { role: 'user', content: [{ text: { text: 'do <it>' } }] },
    {
      role: 'assistant',
      content: [
        { thinking: { text: 'private', signature: 'c2ln' } },
        { text: { text: 'On it.' } },
        { provider: { kind: 'server_tool_use', raw: RawJson.fromText('{"type":"server_tool_use","id":"s","name":"web_search","input":{}}') } },
        { tool_use: { id: 'call_1', name: 'echo', input: RawJson.fromText('{"z":1.0,"a":12345678901234567890}') } },
        { tool_use: { id: 'call_2', name: 'fail', input: RawJson.fromText('{}') } },
      ],
    },
    {
      role: 'user',
      content: [
        { tool_result: { tool_use_id: 'call_1', content: 'echoed' } },
        { tool_result: { tool_use_id: 'call_2', content: 'it broke', is_error: true } },
        { text: { text: 'and also this' } },
      ],
    },
    { role: 'assistant', content: [{ tool_use: { id: 'call_3', name: 'echo', input: RawJson.fromText('{}') } }] },
    { role: 'user', content: [{ tool_result: { tool_use_id: 'call_3', content: '' } }] },
  ];
  const tools = [{ name: 'echo', description: 'Echo the input.', input_schema: { type: 'object', properties: { s: { type: 'string' } } } }];

  it('sends messages, tool calls and tool results in order; thinking and provider blocks are not sent', async () => {
    api.reply({ chat: { content: 'done' } });
    await provider().complete(modelRequest({ messages: conversation, tools, maxTokens: 1234 }));
    const [req] = api.requests;
    expect(req!.path).toBe('/v1/chat/completions');
    expect(req!.headers.authorization).toBe('Bearer sk-test');
    const body = req!.json;
    expect(body).toMatchObject({ model: 'gpt-test', stream: true, stream_options: { include_usage: true }, max_tokens: 1234 });
    expect(body).not.toHaveProperty('max_completion_tokens');
    expect(body.tools).toEqual([{ type: 'function', function: { name: 'echo', description: 'Echo the input.', parameters: tools[0]!.input_schema } }]);
    expect(body.messages).toEqual([
      { role: 'system', content: 'You are a test.' },
      { role: 'user', content: 'do <it>' },
      {
        role: 'assistant',
        content: 'On it.',
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'echo', arguments: '{"z":1.0,"a":12345678901234567890}' } },
          { id: 'call_2', type: 'function', function: { name: 'fail', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'echoed' },
      { role: 'tool', tool_call_id: 'call_2', content: 'Error: it broke' },
      { role: 'user', content: 'and also this' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_3', type: 'function', function: { name: 'echo', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_3', content: '' },
    ]);
    expect(req!.body).not.toContain('private');
    expect(req!.body).not.toContain('server_tool_use');
  });

  it('sends max_completion_tokens, which OpenAI reasoning models require, when no base URL is set', () => {
    // (Exercised without HTTP: with no base URL the request would go to OpenAI itself.)
    const own = toOpenAIParams(modelRequest({ maxTokens: 99 }), 'm', { legacyMaxTokens: false });
    expect(own.max_completion_tokens).toBe(99);
    expect(own).not.toHaveProperty('max_tokens');
  });

  it('tells the API no tool may be called when the request says none, and sends the tools still', () => {
    const tools = [{ name: 'echo', description: 'Echo', input_schema: { type: 'object' } }];
    const none = toOpenAIParams(modelRequest({ tools, toolChoice: 'none' }), 'm', { legacyMaxTokens: false });
    expect(none.tool_choice).toBe('none');
    expect(none.tools).toHaveLength(1);
    expect(toOpenAIParams(modelRequest({ tools }), 'm', { legacyMaxTokens: false })).not.toHaveProperty('tool_choice');
  });
});

describe('openai: failures', () => {
  it('retries 429, 500 and 503, then succeeds', async () => {
    api.reply(openaiErrors.rateLimited(), openaiErrors.server(), openaiErrors.overloaded(), { chat: { content: 'finally' } });
    const res = await provider().complete(modelRequest());
    expect(res.message.content).toEqual([{ text: { text: 'finally' } }]);
    expect(api.requests).toHaveLength(4);
  });

  it('retries a stream that ends without a finish_reason', async () => {
    const chunks = openaiChunks({ content: 'partial' }, 'gpt-test', true);
    api.reply({ raw: { status: 200, headers: { 'content-type': 'text/event-stream' }, chunks: chunks.slice(0, 2) } }, { chat: { content: 'whole' } });
    const res = await provider().complete(modelRequest());
    expect(res.message.content).toEqual([{ text: { text: 'whole' } }]);
    expect(api.requests).toHaveLength(2);
  });

  it('retries an error sent inside the stream', async () => {
    const chunks = openaiChunks({ content: 'partial' }, 'gpt-test', true);
    const failure = `data: ${JSON.stringify({ error: { message: 'The server had an error', type: 'server_error', param: null, code: null } })}\n\n`;
    api.reply({ raw: { status: 200, headers: { 'content-type': 'text/event-stream' }, chunks: [...chunks.slice(0, 2), failure] } }, { chat: { content: 'whole' } });
    const res = await provider().complete(modelRequest());
    expect(res.message.content).toEqual([{ text: { text: 'whole' } }]);
  });

  it('gives up after the configured retries with one line', async () => {
    api.reply(openaiErrors.server(), openaiErrors.server());
    const err = await rejection(provider({ ...FAST_RETRY, maxRetries: 1 }).complete(modelRequest()));
    expect(err.code).toBe('provider');
    expect(err.message).toBe('openai failed after 2 attempts (500 server_error): The server had an error while processing your request. Sorry about that!');
  });

  it('does not retry a 401 and says so in one line', async () => {
    api.reply(openaiErrors.unauthorized());
    const err = await rejection(provider().complete(modelRequest()));
    expect(err).toBeInstanceOf(LogbookError);
    expect(err.code).toBe('provider_auth');
    expect(err.message).toBe(
      'openai refused the request (401 invalid_api_key): Incorrect API key provided: sk-bad. You can find your API key at https://platform.openai.com/account/api-keys.',
    );
    expect(api.requests).toHaveLength(1);
  });

  it.each([
    ['OpenAI (its code)', openaiErrors.contextLengthExceeded(130415, 128000), "(400 context_length_exceeded): This model's maximum context length is 128000 tokens."],
    [
      "llama.cpp's server (its type)",
      {
        raw: {
          status: 400,
          headers: { 'content-type': 'application/json' },
          chunks: ['{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":4121,"n_ctx":4096}}'],
        },
      },
      '(400 exceed_context_size_error): the request exceeds the available context size',
    ],
    [
      'vLLM (its words, no code)',
      {
        raw: {
          status: 400,
          headers: { 'content-type': 'application/json' },
          chunks: [
            '{"error":{"message":"This model\'s maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}}',
          ],
        },
      },
      "(400 BadRequestError): This model's maximum context length is 4096 tokens.",
    ],
    [
      "vLLM's older releases (the error as the body itself)",
      {
        raw: {
          status: 400,
          headers: { 'content-type': 'application/json' },
          chunks: [
            '{"object":"error","message":"This model\'s maximum context length is 1500 tokens. However, you requested 1700 tokens (1600 in the messages, 100 in the completion). Please reduce the length of the messages or completion.","type":"BadRequestError","param":null,"code":400}',
          ],
        },
      },
      "(400 BadRequestError): This model's maximum context length is 1500 tokens.",
    ],
  ] as const)('reads a refusal for length from %s as context_exceeded, not retried', async (_server, reply, detail) => {
    api.reply(reply as never);
    const err = await rejection(provider().complete(modelRequest()));
    expect(err.code).toBe('context_exceeded');
    expect(err.message).toContain(`openai refused the request as longer than the model's context window ${detail}`);
    expect(api.requests).toHaveLength(1);
  });

  it('reads the message of an error sent as the body itself, never "(no body)"', async () => {
    api.reply({ raw: { status: 404, headers: { 'content-type': 'application/json' }, chunks: ['{"object":"error","message":"The model `llama9` does not exist.","type":"NotFoundError","param":null,"code":404}'] } });
    const err = await rejection(provider().complete(modelRequest()));
    expect(err.message).toBe('openai refused the request (404 NotFoundError): The model `llama9` does not exist.');
  });

  it('reads the bare-string errors of compatible servers', async () => {
    api.reply({ raw: { status: 404, headers: { 'content-type': 'application/json' }, chunks: ['{"error":"model \\"llama9\\" not found, try pulling it first"}'] } });
    const err = await rejection(provider().complete(modelRequest()));
    expect(err.message).toBe('openai refused the request (404): model "llama9" not found, try pulling it first');
  });

  it.each(CONTEXT_REFUSALS)("recognises %s's refusal of a request longer than the context window, not retried", async (_server, body) => {
    api.reply(refusalReply(body) as never);
    const err = await rejection(provider().complete(modelRequest()));
    expect(err.code).toBe('context_exceeded');
    expect(err.message).toMatch(/^openai refused the request as longer than the model's context window \(400 /);
    expect(api.requests).toHaveLength(1);
  });

  it('retries an unreachable server, then names it', async () => {
    const p = new OpenAIProvider({ model: 'm', apiKey: 'k', baseUrl: `http://127.0.0.1:${await deadPort()}/v1`, retry: { ...FAST_RETRY, maxRetries: 1 } });
    const err = await rejection(p.complete(modelRequest()));
    expect(err.message).toMatch(/^openai failed after 2 attempts \(connection error\): fetch failed: connect ECONNREFUSED/);
  });

  it('retries a stream whose connection drops mid-way, and says why', async () => {
    const chunks = openaiChunks({ content: 'partial' }, 'gpt-test', true);
    api.reply({ raw: { status: 200, headers: SSE_HEADERS, chunks: chunks.slice(0, 2), drop: true } }, { chat: { content: 'whole' } });
    const notices: string[] = [];
    const res = await provider(FAST_RETRY, { onRetry: (m) => notices.push(m) }).complete(modelRequest());
    expect(res.message.content).toEqual([{ text: { text: 'whole' } }]);
    expect(notices).toEqual(['openai: connection dropped: the response stream was cut off: other side closed; trying again (attempt 2 of 4)']);
  });

  describe('a server that falls silent', () => {
    const whole = { chat: { content: 'whole' } };
    const silent = (onRetry?: (m: string) => void, retry = FAST_RETRY) => provider(retry, { idleTimeoutMs: 300, ...(onRetry ? { onRetry } : {}) });

    it('is tried again when its stream stalls mid-way, and says why', async () => {
      api.reply({ chat: { content: 'a long answer that never ends' }, stallAfter: 3 }, whole);
      const notices: string[] = [];
      const res = await silent((m) => notices.push(m)).complete(modelRequest());
      expect(res.message.content).toEqual([{ text: { text: 'whole' } }]);
      expect(notices).toEqual(['openai: stream stalled: no event for 0.3s (idle_timeout in agent.yaml); trying again (attempt 2 of 4)']);
      await api.requests[0]!.closedEarly;
    });

    it('is tried again when the response never comes', async () => {
      api.reply({ hang: true }, whole);
      const notices: string[] = [];
      const res = await silent((m) => notices.push(m)).complete(modelRequest());
      expect(res.message.content).toEqual([{ text: { text: 'whole' } }]);
      expect(notices).toEqual(['openai: no response: no response for 0.3s (idle_timeout in agent.yaml); trying again (attempt 2 of 4)']);
    });

    it('fails as a provider error once the retries are spent, naming the setting', async () => {
      api.reply({ chat: { content: 'never ends' }, stallAfter: 1 }, { hang: true });
      const err = await rejection(silent(undefined, { ...FAST_RETRY, maxRetries: 1 }).complete(modelRequest()));
      expect(err.code).toBe('provider');
      expect(err.message).toBe('openai failed after 2 attempts (no response): no response for 0.3s (idle_timeout in agent.yaml)');
    });

    it('is alive while the server sends keep-alive comments, which the SDK does not pass on', async () => {
      const chunks = openaiChunks({ content: 'slow but sure' }, 'gpt-test', true);
      const comments = Array.from({ length: 15 }, () => ': keep-alive\n\n');
      // 1.4 s of comments, 100 ms apart, against an idle timeout of 1 s.
      api.reply({ raw: { status: 200, headers: SSE_HEADERS, chunks: [chunks[0]!, ...comments, chunks.slice(1).join('')], intervalMs: 100 } });
      const res = await provider(FAST_RETRY, { idleTimeoutMs: 1000 }).complete(modelRequest());
      expect(res.message.content).toEqual([{ text: { text: 'slow but sure' } }]);
      expect(api.requests).toHaveLength(1);
    });
  });

  it('is interrupted by abort before the response, and hangs up', async () => {
    api.reply({ hang: true });
    await expectAbortHangsUp(api, (signal) => provider().complete(modelRequest({ signal })));
  });

  it('is interrupted by abort in the middle of a stream, and hangs up', async () => {
    api.reply({ chat: { content: 'a long answer that never ends' }, stallAfter: 3 });
    const controller = new AbortController();
    const call = provider().complete(modelRequest({ signal: controller.signal }), { onText: () => controller.abort() });
    const err = await rejection(call);
    expect(err.code).toBe('interrupted');
    await api.requests[0]!.closedEarly;
  });
});

describe('openai: settings and environment', () => {
  it('needs OPENAI_API_KEY for OpenAI itself', async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    vi.stubEnv('OPENAI_BASE_URL', '');
    const err = await rejection(createProvider({ env: process.env, provider: 'openai', model: 'gpt' }));
    expect(err).toBeInstanceOf(LogbookError);
    expect(err.code).toBe('provider_auth');
    expect(err.message).toBe('openai: OPENAI_API_KEY is not set: set it to the API key, or name the variable that holds it with apiKeyEnv');
  });

  it('sends a placeholder key to a server at a base URL when no key is set', async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    api.reply({ chat: { content: 'local' } });
    const p = await createProvider({ env: process.env, provider: 'openai', model: 'llama', baseUrl: api.url });
    expect(p.id).toBe('openai');
    const res = await p.complete(modelRequest());
    expect(res.message.content).toEqual([{ text: { text: 'local' } }]);
    expect(api.requests[0]!.headers.authorization).toBe(`Bearer ${PLACEHOLDER_API_KEY}`);
  });

  it('still needs a key that api_key_env names explicitly', async () => {
    const err = await rejection(createProvider({ env: process.env, provider: 'openai', model: 'm', baseUrl: api.url, apiKeyEnv: 'VLLM_KEY' }));
    expect(err.message).toBe('openai: VLLM_KEY is not set: set it to the API key, or name the variable that holds it with apiKeyEnv');
  });

  it('honours OPENAI_BASE_URL and OPENAI_API_KEY; base_url and api_key_env take precedence', async () => {
    vi.stubEnv('OPENAI_BASE_URL', api.url);
    vi.stubEnv('OPENAI_API_KEY', 'sk-env');
    api.reply({ chat: { content: 'a' } }, { chat: { content: 'b' } });
    await (await createProvider({ env: process.env, provider: 'openai', model: 'm' })).complete(modelRequest());
    expect(api.requests[0]!.headers.authorization).toBe('Bearer sk-env');
    vi.stubEnv('OPENAI_BASE_URL', `http://127.0.0.1:${await deadPort()}/v1`);
    vi.stubEnv('OTHER_KEY', 'sk-other');
    await (await createProvider({ env: process.env, provider: 'openai', model: 'm', baseUrl: api.url, apiKeyEnv: 'OTHER_KEY' })).complete(modelRequest());
    expect(api.requests[1]!.headers.authorization).toBe('Bearer sk-other');
  });
});

describe('openai: the models the API lists', () => {
  it('lists them by id (GET /v1/models), and a server that lists none is a provider error', async () => {
    api.models = ['gpt-test', 'gpt-other'];
    expect(await provider().listModels()).toEqual(['gpt-test', 'gpt-other']);
    api.models = undefined;
    const err = await rejection(provider().listModels());
    expect(err).toBeInstanceOf(LogbookError);
    expect((err as LogbookError).code).toBe('provider');
    expect((err as LogbookError).message).toMatch(/^openai: the API did not list its models \(404/);
  });
});
