/**
 * The anthropic provider: the real SDK against a local server speaking the
 * Messages API (test/helpers/fake-anthropic.ts). No network.
 */
import { describe, expect, it, vi } from 'vitest';
import { AnthropicProvider } from '../../../src/agent/providers/anthropic.js';
import { anthropicMessagesJson } from '../../../src/agent/providers/anthropic-map.js';
import { createProvider } from '../../../src/agent/providers/index.js';
import { PLACEHOLDER_API_KEY } from '../../../src/agent/providers/credentials.js';
import { retryPolicyFromText } from '../../../src/agent/providers/retry.js';
import { readEnvironment } from '../../../src/cli/environment.js';
import { LogbookError, RawJson, type Message } from '../../../src/core/index.js';
import {
  anthropicErrors,
  anthropicEvents,
  FakeAnthropic,
  rawJson,
  sseEvent,
  sseWire,
  streamErrorEvent,
} from '../../helpers/fake-anthropic.js';
import { CONTEXT_REFUSALS, refusalReply } from '../../helpers/context-refusals.js';
import { deadPort, expectAbortHangsUp, FAST_RETRY, modelRequest, rejection, useFake } from './request.js';

let api!: FakeAnthropic;
useFake(FakeAnthropic.start, (a) => (api = a));

function provider(retry = FAST_RETRY, extra: { idleTimeoutMs?: number; onRetry?: (m: string) => void } = {}): AnthropicProvider {
  return new AnthropicProvider({ model: 'claude-test', apiKey: 'sk-test', baseUrl: api.url, retry, ...extra });
}

const SERVER_TOOL_INPUT = '{"query":"big 12345678901234567890","weight":1.0}';
const SEARCH_RESULT = {
  type: 'web_search_tool_result',
  tool_use_id: 'srvtoolu_1',
  content: [{ type: 'web_search_result', url: 'https://example.test/a?x=1&y=<2>', title: 'A', encrypted_content: 'ZW5j', page_age: null }],
};

describe('anthropic: a streamed response to the neutral model', () => {
  it('maps text, thinking with its signature, tool_use with its exact input bytes, and provider blocks', async () => {
    api.reply({
      message: {
        content: [
          { type: 'thinking', thinking: 'Let me think about it.', signature: 'EqQBCkgIBxABGAIiQHx+/sig==' },
          { type: 'redacted_thinking', data: 'ZW5jcnlwdGVk' },
          { type: 'text', text: 'Searching… <now> & then' },
          { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: rawJson(SERVER_TOOL_INPUT) },
          SEARCH_RESULT,
          { type: 'tool_use', id: 'toolu_1', name: 'echo', input: rawJson('{"n": 12345678901234567890, "f": 1.0, "e": 1e3, "s": "a<b"}') },
        ],
        usage: { input_tokens: 120, output_tokens: 33, cache_read_input_tokens: 80, cache_creation_input_tokens: 7 },
      },
    });
    const texts: string[] = [];
    const thoughts: string[] = [];
    const res = await provider().complete(modelRequest(), { onText: (d) => texts.push(d), onThinking: (d) => thoughts.push(d) });

    expect(res.stopReason).toBe('tool_use');
    expect(res.usage).toEqual({ inTokens: 120, outTokens: 33, cacheReadTokens: 80, cacheCreateTokens: 7 });
    const [thinking, redacted, text, serverUse, searchResult, toolUse] = res.message.content;
    expect(res.message.role).toBe('assistant');
    expect(res.message.content).toHaveLength(6);
    // Journaled as the reference keeps it: base64 of the signature string's UTF-8 bytes.
    expect(thinking).toEqual({ thinking: { text: 'Let me think about it.', signature: 'RXFRQkNrZ0lCeEFCR0FJaVFIeCsvc2lnPT0=' } });
    expect(redacted).toEqual({ provider: { kind: 'redacted_thinking', raw: RawJson.fromText('{"type":"redacted_thinking","data":"ZW5jcnlwdGVk"}') } });
    expect(text).toEqual({ text: { text: 'Searching… <now> & then' } });
    // The server tool's input comes from the streamed bytes too.
    expect((serverUse as any).provider.kind).toBe('server_tool_use');
    expect((serverUse as any).provider.raw.text).toBe(
      '{"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{"query":"big 12345678901234567890","weight":1.0}}',
    );
    expect((searchResult as any).provider.kind).toBe('web_search_tool_result');
    expect((searchResult as any).provider.raw.text).toBe(RawJson.fromValue(SEARCH_RESULT).text);
    // Big integers, 1.0 and 1e3 survive from the SSE bytes (whitespace dropped, `<` escaped).
    expect(toolUse).toEqual({
      tool_use: { id: 'toolu_1', name: 'echo', input: RawJson.fromText('{"n":12345678901234567890,"f":1.0,"e":1e3,"s":"a\\u003cb"}') },
    });
    expect((toolUse as any).tool_use.input.text).toBe('{"n":12345678901234567890,"f":1.0,"e":1e3,"s":"a\\u003cb"}');
    expect(texts.join('')).toBe('Searching… <now> & then');
    expect(thoughts.join('')).toBe('Let me think about it.');
    expect(texts.length).toBeGreaterThan(1); // really streamed in pieces
  });

  it('keeps a tool input that arrives in one piece or empty', async () => {
    api.reply({
      message: {
        content: [
          { type: 'tool_use', id: 'toolu_a', name: 'now', input: {} },
          { type: 'tool_use', id: 'toolu_b', name: 'echo', input: rawJson('{"k":[1,2.50,{"z":null}]}') },
        ],
        chunkSize: 1000,
      },
    });
    const res = await provider().complete(modelRequest());
    expect(res.message.content.map((b: any) => b.tool_use.input.text)).toEqual(['{}', '{"k":[1,2.50,{"z":null}]}']);
  });

  it.each(['end_turn', 'tool_use', 'max_tokens', 'stop_sequence', 'pause_turn', 'refusal', 'model_context_window_exceeded'])(
    'passes stop reason %s through',
    async (stop) => {
      api.reply({ message: { content: [{ type: 'text', text: 'x' }], stop_reason: stop } });
      const res = await provider().complete(modelRequest());
      expect(res.stopReason).toBe(stop);
    },
  );

  it('reports cache tokens as 0 when the API leaves them out', async () => {
    const events = anthropicEvents({ content: [{ type: 'text', text: 'ok' }] }, 'claude-test').map((e) =>
      e.startsWith('event: message_start')
        ? sseEvent('message_start', {
            type: 'message_start',
            message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: null, usage: { input_tokens: 9, output_tokens: 1 } },
          })
        : e,
    );
    api.reply({ raw: sseWire(events) });
    const res = await provider().complete(modelRequest());
    expect(res.usage).toEqual({ inTokens: 9, outTokens: 5, cacheReadTokens: 0, cacheCreateTokens: 0 });
  });

  it('takes whole-message usage from message_delta when the API sends it there', async () => {
    const events = anthropicEvents({ content: [{ type: 'text', text: 'ok' }], usage: { input_tokens: 3 } }, 'claude-test').map((e) =>
      e.startsWith('event: message_delta')
        ? sseEvent('message_delta', {
            type: 'message_delta',
            delta: { stop_reason: 'end_turn', stop_sequence: null },
            usage: { input_tokens: 50, cache_creation_input_tokens: 11, cache_read_input_tokens: 22, output_tokens: 44 },
          })
        : e,
    );
    api.reply({ raw: sseWire(events) });
    const res = await provider().complete(modelRequest());
    expect(res.usage).toEqual({ inTokens: 50, outTokens: 44, cacheReadTokens: 22, cacheCreateTokens: 11 });
  });

  it('gives {} for a cut-off tool input, with what was wrong, instead of broken JSON or a failed call', async () => {
    const whole = anthropicEvents(
      { content: [{ type: 'tool_use', id: 't', name: 'write', input: { a: 'long' } }], stop_reason: 'max_tokens', chunkSize: 1000 },
      'claude-test',
    );
    const cut = whole.map((e) => e.replace('"partial_json":"{\\"a\\":\\"long\\"}"', '"partial_json":"{\\"a\\":\\"lo"'));
    expect(cut).not.toEqual(whole);
    api.reply({ raw: sseWire(cut) });
    const res = await provider().complete(modelRequest());
    expect(res.message.content).toEqual([{ tool_use: { id: 't', name: 'write', input: RawJson.fromText('{}') } }]);
    expect([...res.invalidToolInputs!]).toEqual([
      ['t', expect.stringMatching(/^its input is not valid JSON \(.+\), cut off where the reply reached max_tokens; it was "\{\\"a\\":\\"lo"$/)],
    ]);
  });
});

describe('anthropic: the neutral model to a request', () => {
  const conversation: Message[] = [
    { role: 'user', content: [{ text: { text: 'find <it>' } }] },
    {
      role: 'assistant',
      content: [
        { thinking: { text: 'hmm', signature: 'c2lnLcOp4pyT' } },
        { thinking: { text: 'unsigned, from elsewhere' } },
        { text: { text: '' } },
        { text: { text: 'Looking.' } },
        { provider: { kind: 'server_tool_use', raw: RawJson.fromText('{"type":"server_tool_use","id":"srvtoolu_9","name":"web_search","input":{"n":1.0,"big":12345678901234567890}}') } },
        { provider: { kind: 'redacted_thinking', raw: RawJson.fromText('{"type":"redacted_thinking","data":"abc"}') } },
        { tool_use: { id: 'toolu_1', name: 'echo', input: RawJson.fromText('{"z":1.0,"a":12345678901234567890,"s":"x<y"}') } },
        { tool_use: { id: 'toolu_2', name: 'fail', input: RawJson.fromText('{}') } },
      ],
    },
    {
      role: 'user',
      content: [
        { tool_result: { tool_use_id: 'toolu_1', content: 'echoed' } },
        { tool_result: { tool_use_id: 'toolu_2', content: 'it broke', is_error: true } },
        { text: { text: 'and also this' } },
      ],
    },
  ];
  const tools = [{ name: 'echo', description: 'Echo the input.', input_schema: { type: 'object', properties: { s: { type: 'string' } } } }];

  it('sends every block kind, raw JSON byte for byte', async () => {
    api.reply({ message: { content: [{ type: 'text', text: 'done' }] } });
    await provider().complete(modelRequest({ messages: conversation, tools, maxTokens: 2000 }));
    const [req] = api.requests;
    expect(req!.headers.authorization).toBe('Bearer sk-test'); // how this SDK major sends an API key
    const body = req!.json;
    expect(body).toMatchObject({ model: 'claude-test', max_tokens: 2000, stream: true, system: 'You are a test.' });
    expect(body.thinking).toBeUndefined();
    expect(body.tools).toEqual(tools);
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'find <it>' }] },
      {
        role: 'assistant',
        content: [
          // The journal's byte field, decoded: the string the API signed.
          { type: 'thinking', thinking: 'hmm', signature: 'sig-\u00e9\u2713' },
          { type: 'text', text: 'Looking.' },
          { type: 'server_tool_use', id: 'srvtoolu_9', name: 'web_search', input: { n: 1, big: 12345678901234567890 } },
          { type: 'redacted_thinking', data: 'abc' },
          { type: 'tool_use', id: 'toolu_1', name: 'echo', input: { z: 1, a: 12345678901234567890, s: 'x<y' } },
          { type: 'tool_use', id: 'toolu_2', name: 'fail', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'echoed' },
          { type: 'tool_result', tool_use_id: 'toolu_2', content: 'it broke', is_error: true },
          { type: 'text', text: 'and also this' },
        ],
      },
    ]);
    // What a parse cannot show: the bytes. Provider blocks go as the block itself,
    // tool inputs as the journal holds them.
    expect(req!.body).toContain(
      ',{"type":"server_tool_use","id":"srvtoolu_9","name":"web_search","input":{"n":1.0,"big":12345678901234567890}},{"type":"redacted_thinking","data":"abc"},',
    );
    expect(req!.body).toContain('"input":{"z":1.0,"a":12345678901234567890,"s":"x\\u003cy"}');
    expect(req!.body).not.toContain('cache_control');
    expect(req!.body).not.toContain('\\u0000');
  });

  it('round-trips provider blocks from a response into the next request unchanged', async () => {
    api.reply(
      {
        message: {
          content: [
            { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: rawJson(SERVER_TOOL_INPUT) },
            SEARCH_RESULT,
            { type: 'text', text: 'Found it.' },
          ],
          stop_reason: 'pause_turn',
        },
      },
      { message: { content: [{ type: 'text', text: 'done' }] } },
    );
    const p = provider();
    const first = await p.complete(modelRequest());
    expect(first.stopReason).toBe('pause_turn');
    await p.complete(modelRequest({ messages: [...modelRequest().messages, first.message] }));
    const sent = api.requests[1]!.body;
    const raws = first.message.content.flatMap((b) => ('provider' in b ? [b.provider.raw.text] : []));
    expect(raws).toHaveLength(2);
    expect(sent).toContain(`"content":[${raws.join(',')},{"type":"text","text":"Found it."}]`);
    expect(sent).toContain('"input":{"query":"big 12345678901234567890","weight":1.0}');
  });

  it('marks cache breakpoints on the system prompt and the last message, only when asked', async () => {
    api.reply({ message: { content: [{ type: 'text', text: 'ok' }] } });
    await provider().complete(modelRequest({ messages: conversation, promptCache: true }));
    const body = api.requests[0]!.json;
    expect(body.system).toEqual([{ type: 'text', text: 'You are a test.', cache_control: { type: 'ephemeral' } }]);
    const last = body.messages.at(-1).content;
    expect(last.at(-1)).toEqual({ type: 'text', text: 'and also this', cache_control: { type: 'ephemeral' } });
    expect(api.requests[0]!.body.match(/cache_control/g)).toHaveLength(2);
  });

  it('puts the breakpoint on the last message sent, on its last block that takes one', () => {
    const user = (text: string): Message => ({ role: 'user', content: [{ text: { text } }] });
    const search = { provider: { kind: 'redacted_thinking', raw: RawJson.fromText('{"type":"redacted_thinking","data":"abc"}') } };
    // The last message ends in a provider block (no breakpoint there); the empty reply after it is not sent.
    const messages: Message[] = [user('a'), { role: 'assistant', content: [{ text: { text: 'b' } }, search] }, { role: 'assistant', content: [{ text: { text: '' } }] }];
    expect(anthropicMessagesJson(messages, true)).toBe(
      '[{"role":"user","content":[{"type":"text","text":"a"}]},{"role":"assistant","content":[{"type":"text","text":"b","cache_control":{"type":"ephemeral"}},{"type":"redacted_thinking","data":"abc"}]}]',
    );
    expect(anthropicMessagesJson([user('a')], false)).toBe('[{"role":"user","content":[{"type":"text","text":"a"}]}]');
    expect(anthropicMessagesJson([{ role: 'user', content: [{ text: { text: '' } }] }], true)).toBe('[]');
  });

  it('enables extended thinking with a budget for "summarized", and leaves it off for "off"', async () => {
    api.reply({ message: { content: [{ type: 'text', text: 'a' }] } }, { message: { content: [{ type: 'text', text: 'b' }] } });
    await provider().complete(modelRequest({ thinking: 'summarized', maxTokens: 16000 }));
    await provider().complete(modelRequest({ thinking: 'off', maxTokens: 16000 }));
    expect(api.requests[0]!.json.thinking).toEqual({ type: 'enabled', budget_tokens: 8000 });
    expect(api.requests[1]!.json).not.toHaveProperty('thinking');
  });

  it('leaves out a message with no blocks (an empty reply), which the API would refuse', async () => {
    api.reply({ message: { content: [{ type: 'text', text: 'done' }] } });
    const messages: Message[] = [
      { role: 'user', content: [{ text: { text: 'hi' } }] },
      { role: 'assistant', content: [] },
      { role: 'user', content: [{ text: { text: 'try again' } }] },
    ];
    await provider().complete(modelRequest({ messages }));
    expect(api.requests[0]!.json.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'user', content: [{ type: 'text', text: 'try again' }] },
    ]);
  });

  it('omits an empty system prompt', async () => {
    api.reply({ message: { content: [{ type: 'text', text: 'a' }] } });
    await provider().complete(modelRequest({ system: '' }));
    expect(api.requests[0]!.json).not.toHaveProperty('system');
  });
});

describe('anthropic: failures', () => {
  it('retries 429, 529 and 500, then succeeds', async () => {
    api.reply(anthropicErrors.rateLimited(), anthropicErrors.overloaded(), anthropicErrors.server(), {
      message: { content: [{ type: 'text', text: 'finally' }] },
    });
    const res = await provider().complete(modelRequest());
    expect(res.message.content).toEqual([{ text: { text: 'finally' } }]);
    expect(api.requests).toHaveLength(4);
    // Every attempt sends the same body.
    expect(new Set(api.requests.map((r) => r.body)).size).toBe(1);
  });

  it('retries a stream that fails midway with an overloaded error event', async () => {
    const events = anthropicEvents({ content: [{ type: 'text', text: 'partial answer' }] }, 'claude-test');
    api.reply({ raw: sseWire([...events.slice(0, 5), streamErrorEvent('overloaded_error', 'Overloaded')]) }, {
      message: { content: [{ type: 'text', text: 'whole answer' }] },
    });
    const seen: string[] = [];
    const res = await provider().complete(modelRequest(), { onText: (d) => seen.push(d), onRestart: () => seen.push('<restart>') });
    expect(res.message.content).toEqual([{ text: { text: 'whole answer' } }]);
    expect(api.requests).toHaveLength(2);
    // The listener is told the first attempt's words are void before the second streams.
    const restart = seen.indexOf('<restart>');
    expect(seen.slice(0, restart).join('')).toBe('partial an'); // the two deltas before the error
    expect(seen.slice(restart + 1).join('')).toBe('whole answer');
  });

  it('tells a listener which block each delta belongs to, announcing even an empty text block', async () => {
    api.reply({
      message: {
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 'c2ln' },
          { type: 'text', text: 'First.' },
          { type: 'text', text: '' },
          { type: 'tool_use', id: 'toolu_1', name: 'echo', input: {} },
          { type: 'text', text: 'Second.' },
        ],
      },
    });
    const seen: [string, string, number][] = [];
    await provider().complete(modelRequest(), { onText: (d, b) => seen.push(['text', d, b]), onThinking: (d, b) => seen.push(['thinking', d, b]) });
    const joined = (kind: string, block: number): string => seen.filter(([k, , b]) => k === kind && b === block).map(([, d]) => d).join('');
    expect(joined('thinking', 0)).toBe('hmm');
    expect(joined('text', 1)).toBe('First.');
    expect(seen.filter(([k, , b]) => k === 'text' && b === 2)).toEqual([['text', '', 2]]);
    expect(joined('text', 4)).toBe('Second.');
  });

  it('retries a stream cut off before message_stop', async () => {
    const events = anthropicEvents({ content: [{ type: 'text', text: 'partial' }] }, 'claude-test');
    api.reply({ raw: sseWire(events.slice(0, -2)) }, { message: { content: [{ type: 'text', text: 'whole' }] } });
    const res = await provider().complete(modelRequest());
    expect(res.message.content).toEqual([{ text: { text: 'whole' } }]);
  });

  it('retries a stream whose connection drops mid-way, and says why', async () => {
    const events = anthropicEvents({ content: [{ type: 'text', text: 'partial' }] }, 'claude-test');
    api.reply({ raw: { ...sseWire(events.slice(0, 4)), drop: true } }, { message: { content: [{ type: 'text', text: 'whole' }] } });
    const notices: string[] = [];
    const res = await provider(FAST_RETRY, { onRetry: (m) => notices.push(m) }).complete(modelRequest());
    expect(res.message.content).toEqual([{ text: { text: 'whole' } }]);
    expect(notices).toEqual(['anthropic: connection dropped: the response stream was cut off: other side closed; trying again (attempt 2 of 4)']);
  });

  it('gives up after the configured retries with one line naming the last error', async () => {
    api.reply(...Array.from({ length: 3 }, anthropicErrors.overloaded));
    const err = await rejection(provider({ ...FAST_RETRY, maxRetries: 2 }).complete(modelRequest()));
    expect(err).toBeInstanceOf(LogbookError);
    expect(err.code).toBe('provider');
    expect(err.message).toBe('anthropic failed after 3 attempts (529 overloaded_error): Overloaded');
    expect(api.requests).toHaveLength(3);
  });

  it('gives up at once when the server asks to wait longer than the retry budget allows', async () => {
    api.reply({ ...anthropicErrors.rateLimited(), headers: { 'retry-after': '3600' } } as never);
    const err = await rejection(provider({ ...FAST_RETRY, maxDelayMs: 60_000, maxTotalWaitMs: 10_000 }).complete(modelRequest()));
    expect(err.message).toMatch(/^anthropic failed after 1 attempt \(429 rate_limit_error\): This request would exceed/);
    expect(api.requests).toHaveLength(1);
  });

  it.each([
    [anthropicErrors.unauthorized(), 'provider_auth', 'anthropic refused the request (401 authentication_error): invalid x-api-key'],
    [anthropicErrors.forbidden(), 'provider_auth', 'anthropic refused the request (403 permission_error): Your API key does not have permission to use the specified resource.'],
    [anthropicErrors.notFound('claude-test'), 'provider_refused', 'anthropic refused the request (404 not_found_error): model: claude-test'],
    [anthropicErrors.invalid('messages.1.content: multi\nline'), 'provider_refused', 'anthropic refused the request (400 invalid_request_error): messages.1.content: multi line'],
    [
      anthropicErrors.promptTooLong(208310, 200000),
      'context_exceeded',
      "anthropic refused the request as longer than the model's context window (400 invalid_request_error): prompt is too long: 208310 tokens > 200000 maximum",
    ],
    [
      anthropicErrors.exceedsContextLimit(188240, 21333, 200000),
      'context_exceeded',
      "anthropic refused the request as longer than the model's context window (400 invalid_request_error): input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again",
    ],
  ])('does not retry a refusal and says so in one line (%#)', async (reply, code, message) => {
    api.reply(reply);
    const err = await rejection(provider().complete(modelRequest()));
    expect(err).toBeInstanceOf(LogbookError);
    expect(err.code).toBe(code);
    expect(err.message).toBe(message);
    expect(api.requests).toHaveLength(1);
  });

  it.each(CONTEXT_REFUSALS)("recognises %s's refusal of a request longer than the context window, not retried", async (_server, body) => {
    api.reply(refusalReply(body) as never);
    const err = await rejection(provider().complete(modelRequest()));
    expect(err.code).toBe('context_exceeded');
    expect(err.message).toMatch(/^anthropic refused the request as longer than the model's context window \(400 /);
    expect(api.requests).toHaveLength(1);
  });

  it('retries an unreachable server, then names it', async () => {
    const port = await deadPort();
    const p = new AnthropicProvider({ model: 'm', apiKey: 'k', baseUrl: `http://127.0.0.1:${port}`, retry: { ...FAST_RETRY, maxRetries: 1 } });
    const err = await rejection(p.complete(modelRequest()));
    expect(err.code).toBe('provider');
    expect(err.message).toMatch(/^anthropic failed after 2 attempts \(connection error\): fetch failed: connect ECONNREFUSED/);
    expect(err.message).not.toContain('\n');
  });

  it('is interrupted by abort while waiting for the response, and hangs up', async () => {
    api.reply({ hang: true });
    await expectAbortHangsUp(api, (signal) => provider().complete(modelRequest({ signal })));
  });

  it('is interrupted by abort in the middle of a stream, and hangs up', async () => {
    api.reply({ message: { content: [{ type: 'text', text: 'a long answer that never ends' }] }, stallAfter: 6 });
    const controller = new AbortController();
    let seen = '';
    const call = provider().complete(modelRequest({ signal: controller.signal }), {
      onText: (d) => {
        seen += d;
        if (seen.length >= 5) controller.abort();
      },
    });
    const err = await rejection(call);
    expect(err.code).toBe('interrupted');
    await api.requests[0]!.closedEarly;
  });

  describe('a server that falls silent', () => {
    const whole = { message: { content: [{ type: 'text', text: 'whole' }] } };
    const silent = (onRetry?: (m: string) => void, retry = FAST_RETRY) => provider(retry, { idleTimeoutMs: 300, ...(onRetry ? { onRetry } : {}) });

    it('is tried again when its stream stalls mid-way, and says why', async () => {
      api.reply({ message: { content: [{ type: 'text', text: 'a long answer that never ends' }] }, stallAfter: 6 }, whole);
      const notices: string[] = [];
      const res = await silent((m) => notices.push(m)).complete(modelRequest());
      expect(res.message.content).toEqual([{ text: { text: 'whole' } }]);
      expect(notices).toEqual(['anthropic: stream stalled: no event for 0.3s (idle_timeout in agent.yaml); trying again (attempt 2 of 4)']);
      await api.requests[0]!.closedEarly; // the stalled request was hung up
    });

    it('is tried again when the response never comes', async () => {
      api.reply({ hang: true }, whole);
      const notices: string[] = [];
      const res = await silent((m) => notices.push(m)).complete(modelRequest());
      expect(res.message.content).toEqual([{ text: { text: 'whole' } }]);
      expect(notices).toEqual(['anthropic: no response: no response for 0.3s (idle_timeout in agent.yaml); trying again (attempt 2 of 4)']);
    });

    it('fails as a provider error once the retries are spent, naming the setting', async () => {
      api.reply({ hang: true }, { ...whole, stallAfter: 2 });
      const err = await rejection(silent(undefined, { ...FAST_RETRY, maxRetries: 1 }).complete(modelRequest()));
      expect(err.code).toBe('provider');
      expect(err.message).toBe('anthropic failed after 2 attempts (stream stalled): no event for 0.3s (idle_timeout in agent.yaml)');
    });

    it('is alive while the server sends pings, which the SDK does not pass on', async () => {
      const events = anthropicEvents({ content: [{ type: 'text', text: 'slow but sure' }] }, 'claude-test');
      const pings = Array.from({ length: 15 }, () => sseEvent('ping', { type: 'ping' }));
      // 1.4 s of pings, 100 ms apart, against an idle timeout of 1 s.
      api.reply({ raw: { ...sseWire([events[0]!, ...pings, events.slice(1).join('')]), intervalMs: 100 } });
      const res = await provider(FAST_RETRY, { idleTimeoutMs: 1000 }).complete(modelRequest());
      expect(res.message.content).toEqual([{ text: { text: 'slow but sure' } }]);
      expect(api.requests).toHaveLength(1);
    });
  });

  it('is interrupted by abort while waiting to retry', async () => {
    api.reply({ ...anthropicErrors.overloaded(), headers: { 'retry-after': '30' } } as never);
    const controller = new AbortController();
    const call = provider({ ...FAST_RETRY, maxDelayMs: 60_000, maxTotalWaitMs: 120_000 }).complete(modelRequest({ signal: controller.signal }));
    await api.waitForRequests(1);
    controller.abort();
    const err = await rejection(call);
    expect(err.code).toBe('interrupted');
    expect(api.requests).toHaveLength(1);
  });

  it('refuses a "summarized" thinking run whose max_tokens leaves no budget', async () => {
    const err = await rejection(provider().complete(modelRequest({ thinking: 'summarized', maxTokens: 1024 })));
    expect(err.code).toBe('config');
    expect(err.message).toBe('anthropic: thinking "summarized" needs max_tokens above 1024, it is 1024; raise max_tokens or set thinking to off');
    expect(api.requests).toHaveLength(0);
  });
});

describe('anthropic: settings and environment', () => {
  it('needs a key, and says which variable to set', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '');
    vi.stubEnv('ANTHROPIC_BASE_URL', '');
    const err = await rejection(createProvider({ env: process.env, provider: 'anthropic', model: 'm' }));
    expect(err).toBeInstanceOf(LogbookError);
    expect(err.code).toBe('provider_auth');
    expect(err.message).toBe('anthropic: ANTHROPIC_API_KEY is not set: set it to the API key, or name the variable that holds it with apiKeyEnv');
    const named = await rejection(createProvider({ env: process.env, provider: 'anthropic', model: 'm', apiKeyEnv: 'MY_CLAUDE_KEY' }));
    expect(named.message).toBe('anthropic: MY_CLAUDE_KEY is not set: set it to the API key, or name the variable that holds it with apiKeyEnv');
  });

  it('sends a placeholder key to a server at a base URL when no key is set, as the openai provider does', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', '');
    api.reply({ message: { content: [{ type: 'text', text: 'local' }] } });
    const p = await createProvider({ env: process.env, provider: 'anthropic', model: 'local', baseUrl: api.url });
    expect((await p.complete(modelRequest())).message.content).toEqual([{ text: { text: 'local' } }]);
    expect(JSON.stringify(api.requests.at(-1)!.headers)).toContain(PLACEHOLDER_API_KEY);
  });

  it('honours ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL, and reports its id', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', 'sk-from-env');
    vi.stubEnv('ANTHROPIC_BASE_URL', api.url);
    api.reply({ message: { content: [{ type: 'text', text: 'hi' }] } });
    const p = await createProvider({ env: process.env, provider: 'anthropic', model: 'claude-env' });
    expect(p.id).toBe('anthropic');
    expect(p.model).toBe('claude-env');
    await p.complete(modelRequest());
    expect(api.requests[0]!.headers.authorization).toBe('Bearer sk-from-env');
    expect(api.requests[0]!.json.model).toBe('claude-env');
  });

  it('lets base_url override ANTHROPIC_BASE_URL, and api_key_env name the key', async () => {
    vi.stubEnv('ANTHROPIC_BASE_URL', `http://127.0.0.1:${await deadPort()}`);
    vi.stubEnv('TEAM_KEY', 'sk-team');
    api.reply({ message: { content: [{ type: 'text', text: 'hi' }] } });
    const p = await createProvider({ env: process.env, provider: 'anthropic', model: 'm', baseUrl: api.url, apiKeyEnv: 'TEAM_KEY' });
    await p.complete(modelRequest());
    expect(api.requests[0]!.headers.authorization).toBe('Bearer sk-team');
  });

  it('reads the retry count from LOGBOOK_PROVIDER_MAX_RETRIES', async () => {
    vi.stubEnv('ANTHROPIC_API_KEY', 'k');
    vi.stubEnv('LOGBOOK_PROVIDER_MAX_RETRIES', '0');
    api.reply(anthropicErrors.server(), { message: { content: [{ type: 'text', text: 'never reached' }] } });
    const retry = () => retryPolicyFromText(readEnvironment().maxRetries, 'LOGBOOK_PROVIDER_MAX_RETRIES');
    const p = await createProvider({ env: process.env, provider: 'anthropic', model: 'm', baseUrl: api.url, retry: retry() });
    const err = await rejection(p.complete(modelRequest()));
    expect(err.message).toBe('anthropic failed after 1 attempt (500 api_error): Internal server error');
    expect(api.pending).toBe(1); // the success was never asked for
    vi.stubEnv('LOGBOOK_PROVIDER_MAX_RETRIES', 'lots');
    const bad = await rejection((async () => createProvider({ env: process.env, provider: 'anthropic', model: 'm', baseUrl: api.url, retry: retry() }))());
    expect(bad.code).toBe('config');
  });
});

describe('anthropic: the models the API lists', () => {
  it('lists them by id (GET /v1/models), and a server that lists none is a provider error', async () => {
    api.models = ['claude-test', 'claude-other'];
    expect(await provider().listModels()).toEqual(['claude-test', 'claude-other']);
    api.models = undefined;
    const err = await rejection(provider().listModels());
    expect((err as LogbookError).code).toBe('provider');
    expect((err as LogbookError).message).toMatch(/^anthropic: the API did not list its models \(404/);
  });
});
