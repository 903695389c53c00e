/**
 * A local server speaking Chat Completions (POST /v1/chat/completions): plain JSON,
 * or SSE `chat.completion.chunk`s with role, content, reasoning and tool_call deltas,
 * a finish_reason chunk, a usage chunk when stream_options.include_usage asks for
 * one, then `data: [DONE]`; and errors with the API's own JSON bodies.
 *
 *   const api = await FakeOpenAI.start();               // api.url -> OPENAI_BASE_URL (ends in /v1)
 *   api.reply(openaiErrors.rateLimited(), { chat: { content: 'hi' } });
 *   api.handler = (req) => ({ chat: ... });              // when the queue is empty
 *   api.requests[0].json / .body                         // every request, parsed and verbatim
 *   await api.close();
 */
import type { Server } from 'node:http';
import {
  countTokens,
  FakeApiServer,
  jsonWire,
  pieces,
  SSE_HEADERS,
  toJsonText,
  type FakeApiSpec,
  type RecordedRequest,
  type Wire,
} from './fake-api-server.js';
import { forFile } from './for-file.js';

export { type RecordedRequest, type Wire } from './fake-api-server.js';

export interface FakeChat {
  content?: string;
  /** Streamed as `reasoning_content`, as several compatible servers do. */
  reasoning_content?: string;
  refusal?: string;
  /** `arguments` is the JSON text, sent as is. `id` may be left out, as some local servers do. */
  tool_calls?: { id?: string; name: string; arguments: string }[];
  /** Default: `tool_calls` when there are tool calls, else `stop`. */
  finish_reason?: string;
  /** `null`: send no usage at all. `cached_tokens` goes in prompt_tokens_details. */
  usage?: { prompt_tokens?: number; completion_tokens?: number; cached_tokens?: number } | null;
  model?: string;
  /** Code points per content / arguments delta. Default 5. */
  chunkSize?: number;
}

export type OpenAIReply =
  /**
   * As SSE when the request streams, else as JSON. `stallAfter`: send that many chunks, then hold the stream open.
   * `delayMs`: wait that long between two chunks (a model streaming slowly).
   */
  | { chat: FakeChat; stallAfter?: number; delayMs?: number }
  /** An error in the API's shape. Retryable statuses carry `retry-after-ms: 1` unless `headers` is given. */
  | { error: { status: number; message: string; type: string; code?: string | null; param?: string | null }; headers?: Record<string, string> }
  /** Anything, verbatim. */
  | { raw: Wire }
  /** Accept the request and never answer. */
  | { hang: true };

/** The real API's error replies. */
export const openaiErrors = {
  unauthorized: (): OpenAIReply => ({
    error: {
      status: 401,
      message: 'Incorrect API key provided: sk-bad. You can find your API key at https://platform.openai.com/account/api-keys.',
      type: 'invalid_request_error',
      code: 'invalid_api_key',
    },
  }),
  rateLimited: (): OpenAIReply => ({
    error: {
      status: 429,
      message: 'Rate limit reached for requests. Please try again in 20ms.',
      type: 'requests',
      code: 'rate_limit_exceeded',
    },
  }),
  server: (): OpenAIReply => ({
    error: {
      status: 500,
      message: 'The server had an error while processing your request. Sorry about that!',
      type: 'server_error',
      code: null,
    },
  }),
  overloaded: (): OpenAIReply => ({
    error: { status: 503, message: 'The engine is currently overloaded, please try again later', type: 'server_error', code: null },
  }),
  /** The refusal of messages longer than the context window, in OpenAI's words and code. */
  contextLengthExceeded: (tokens: number, window: number): OpenAIReply => ({
    error: {
      status: 400,
      message: `This model's maximum context length is ${window} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
      type: 'invalid_request_error',
      param: 'messages',
      code: 'context_length_exceeded',
    },
  }),
  notFound: (model: string): OpenAIReply => ({
    error: {
      status: 404,
      message: `The model \`${model}\` does not exist or you do not have access to it.`,
      type: 'invalid_request_error',
      code: 'model_not_found',
    },
  }),
};

function errorWire(status: number, error: { message: string; type: string; code?: string | null; param?: string | null }, headers?: Record<string, string>): Wire {
  const retryable = status === 429 || status >= 500;
  const extra = headers ?? (retryable ? { 'retry-after-ms': '1' } : {});
  const body = { error: { message: error.message, type: error.type, param: error.param ?? null, code: error.code ?? null } };
  return jsonWire(status, body, { 'x-request-id': 'req_fake', ...extra });
}

const CREATED = 1_767_225_600;

function finishReasonOf(c: FakeChat): string {
  return c.finish_reason ?? (c.tool_calls?.length ? 'tool_calls' : 'stop');
}

function usageJson(c: FakeChat, counted?: number): Record<string, unknown> | null {
  if (c.usage === null) return null;
  const u = c.usage ?? {};
  const prompt = u.prompt_tokens ?? counted ?? 10;
  const completion = u.completion_tokens ?? 5;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...(u.cached_tokens !== undefined ? { prompt_tokens_details: { cached_tokens: u.cached_tokens, audio_tokens: 0 } } : {}),
  };
}

/** The completion as the non-streaming API returns it. */
export function completionJson(c: FakeChat, model: string, counted?: number): Record<string, unknown> {
  const message: Record<string, unknown> = { role: 'assistant', content: c.content ?? null, refusal: c.refusal ?? null };
  if (c.reasoning_content !== undefined) message.reasoning_content = c.reasoning_content;
  if (c.tool_calls?.length) {
    message.tool_calls = c.tool_calls.map((t, i) => ({
      id: t.id ?? `call_fake${i}`,
      type: 'function',
      function: { name: t.name, arguments: t.arguments },
    }));
  }
  return {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: CREATED,
    model: c.model ?? model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReasonOf(c) }],
    usage: usageJson(c, counted),
  };
}

/** The completion as the API streams it, one string per SSE `data:` line, [DONE] last. */
export function openaiChunks(c: FakeChat, model: string, includeUsage: boolean, counted?: number): string[] {
  const size = c.chunkSize ?? 5;
  const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: CREATED, model: c.model ?? model, system_fingerprint: null };
  const usage = includeUsage ? { usage: null } : {};
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    `data: ${toJsonText({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...usage })}\n\n`;
  const out = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const p of pieces(c.reasoning_content ?? '', size)) out.push(chunk({ reasoning_content: p }));
  for (const p of pieces(c.content ?? '', size)) out.push(chunk({ content: p }));
  for (const p of pieces(c.refusal ?? '', size)) out.push(chunk({ refusal: p }));
  (c.tool_calls ?? []).forEach((t, index) => {
    const head: Record<string, unknown> = { index, type: 'function', function: { name: t.name, arguments: '' } };
    if (t.id !== undefined) head.id = t.id;
    out.push(chunk({ tool_calls: [head] }));
    for (const p of pieces(t.arguments, size)) out.push(chunk({ tool_calls: [{ index, function: { arguments: p } }] }));
  });
  out.push(chunk({}, finishReasonOf(c)));
  const u = usageJson(c, counted);
  if (includeUsage && u !== null) out.push(`data: ${toJsonText({ ...base, choices: [], usage: u })}\n\n`);
  out.push('data: [DONE]\n\n');
  return out;
}

const spec: FakeApiSpec<OpenAIReply> = {
  route: (req) => req.method === 'POST' && req.path.split('?')[0]!.endsWith('/chat/completions'),
  modelsRoute: (req) => req.method === 'GET' && req.path.split('?')[0]!.endsWith('/models'),
  models: (ids) => jsonWire(200, { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 1767225600, owned_by: 'system' })) }),
  notFound: (req) => errorWire(404, { message: `Invalid URL (${req.method} ${req.path})`, type: 'invalid_request_error' }),
  scriptError: (message) => errorWire(400, { message, type: 'invalid_request_error' }),
  countTokens: (req) => countTokens(req.json?.messages, req.json?.tools),
  tooLong(_req, tokens, window) {
    if (tokens <= window) return null;
    const e = openaiErrors.contextLengthExceeded(tokens, window) as Extract<OpenAIReply, { error: unknown }>;
    return errorWire(e.error.status, e.error);
  },
  render(reply: OpenAIReply, req: RecordedRequest): Wire {
    if ('hang' in reply) return reply;
    if ('raw' in reply) return reply.raw;
    if ('error' in reply) return errorWire(reply.error.status, reply.error, reply.headers);
    const model = String(req.json?.model ?? 'gpt-fake');
    if (req.json?.stream !== true) return jsonWire(200, completionJson(reply.chat, model, req.inputTokens));
    const chunks = openaiChunks(reply.chat, model, req.json?.stream_options?.include_usage === true, req.inputTokens);
    const delay = reply.delayMs === undefined ? {} : { intervalMs: reply.delayMs };
    if (reply.stallAfter === undefined) return { status: 200, headers: SSE_HEADERS, chunks, ...delay };
    return { status: 200, headers: SSE_HEADERS, chunks: chunks.slice(0, reply.stallAfter), hold: true, ...delay };
  },
};

export class FakeOpenAI extends FakeApiServer<OpenAIReply> {
  /** The base URL including /v1, for OPENAI_BASE_URL or the config's base_url. */
  readonly url: string;

  private constructor(server: Server, origin: string) {
    super(server, origin);
    this.url = `${origin}/v1`;
  }

  static start(): Promise<FakeOpenAI> {
    return FakeApiServer.listenWith(spec, (server, origin) => new FakeOpenAI(server, origin));
  }
}

/** A FakeOpenAI for the calling test file's tests (for-file.ts). */
export function useFakeOpenAI(): FakeOpenAI {
  return forFile(() => FakeOpenAI.start());
}
