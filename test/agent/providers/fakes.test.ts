/**
 * The fake APIs themselves, through the official SDKs' plain (non-streaming) calls:
 * other tests rely on them speaking the real wire format.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import { anthropicErrors, rawJson, useFakeAnthropic } from '../../helpers/fake-anthropic.js';
import { useFakeOpenAI } from '../../helpers/fake-openai.js';

const anthropic = useFakeAnthropic();
const openai = useFakeOpenAI();

describe('FakeAnthropic', () => {
  const client = () => new Anthropic({ apiKey: 'k', baseURL: anthropic.url, maxRetries: 0, openTelemetry: false });

  it('answers a plain request with the whole message as JSON', async () => {
    anthropic.reply({ message: { content: [{ type: 'tool_use', id: 't1', name: 'echo', input: rawJson('{"a":1}') }], usage: { cache_read_input_tokens: 4 } } });
    const msg = await client().messages.create({ model: 'claude-x', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    expect(msg).toMatchObject({ type: 'message', role: 'assistant', model: 'claude-x', stop_reason: 'tool_use', content: [{ type: 'tool_use', id: 't1', name: 'echo', input: { a: 1 } }] });
    expect(msg.usage).toMatchObject({ input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 4, cache_creation_input_tokens: 0 });
  });

  it('streams with the real event sequence, which the SDK accumulates', async () => {
    anthropic.reply({ message: { content: [{ type: 'thinking', thinking: 'hmm', signature: 'c2ln' }, { type: 'text', text: 'Hello there' }] } });
    const stream = client().messages.stream({ model: 'claude-x', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    const types: string[] = [];
    stream.on('streamEvent', (e) => types.push(e.type));
    const msg = await stream.finalMessage();
    expect(msg.content).toEqual([
      { type: 'thinking', thinking: 'hmm', signature: 'c2ln' },
      { type: 'text', text: 'Hello there' },
    ]);
    expect(types[0]).toBe('message_start');
    expect(types.at(-2)).toBe('message_delta');
    expect(types.at(-1)).toBe('message_stop');
    expect(types).toContain('content_block_start');
  });

  it('answers errors in the API shape, an unscripted request with a 400, and an unknown path with a 404', async () => {
    anthropic.reply(anthropicErrors.overloaded());
    const overloaded = await client().messages.create({ model: 'm', max_tokens: 1, messages: [] }).catch((e) => e);
    expect(overloaded.status).toBe(529);
    expect(overloaded.error).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    expect(overloaded.headers.get('retry-after-ms')).toBe('1');
    const unscripted = await client().messages.create({ model: 'm', max_tokens: 1, messages: [] }).catch((e) => e);
    expect(unscripted.status).toBe(400);
    expect(unscripted.error.error.message).toMatch(/no reply scripted/);
    const res = await fetch(`${anthropic.url}/v1/complete`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(404);
  });
});

describe('FakeOpenAI', () => {
  const client = () => new OpenAI({ apiKey: 'k', baseURL: openai.url, maxRetries: 0 });

  it('answers a plain request with the whole completion as JSON', async () => {
    openai.reply({ chat: { content: 'hi', tool_calls: [{ id: 'c1', name: 'f', arguments: '{"x":1.0}' }], usage: { cached_tokens: 2 } } });
    const res = await client().chat.completions.create({ model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: { role: 'assistant', content: 'hi', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"x":1.0}' } }] },
    });
    expect(res.usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 2 } });
  });

  it('streams chunks, a usage chunk only when asked for, then [DONE]', async () => {
    openai.reply({ chat: { content: 'abcdefgh' } }, { chat: { content: 'abc' } });
    const collect = async (includeUsage: boolean) => {
      const stream = await client().chat.completions.create({
        model: 'gpt-x',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
      });
      const chunks = [];
      for await (const c of stream) chunks.push(c);
      return chunks;
    };
    const withUsage = await collect(true);
    expect(withUsage.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('abcdefgh');
    expect(withUsage.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 10 } });
    const without = await collect(false);
    expect(without.some((c) => c.usage)).toBe(false);
    expect(openai.requests.at(-1)!.body).not.toContain('stream_options');
  });
});
