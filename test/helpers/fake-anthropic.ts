/**
 * A local server speaking the Messages API (POST /v1/messages): plain JSON, or an
 * SSE stream with the real event sequence (message_start, ping, content_block_start
 * / _delta / _stop with text_delta, thinking_delta, signature_delta and
 * input_json_delta, message_delta with stop_reason and usage, message_stop), and
 * errors with the API's own JSON bodies.
 *
 *   const api = await FakeAnthropic.start();            // api.url -> ANTHROPIC_BASE_URL
 *   api.reply(anthropicErrors.overloaded(), { message: { content: [{ type: 'text', text: 'hi' }] } });
 *   api.handler = (req) => ({ message: ... });          // when the queue is empty
 *   api.requests[0].json / .body                        // every request, parsed and verbatim
 *   await api.close();
 */
import type { Server } from 'node:http';
import {
  countTokens,
  FakeApiServer,
  jsonWire,
  pieces,
  RawText,
  SSE_HEADERS,
  toJsonText,
  type FakeApiSpec,
  type RecordedRequest,
  type Wire,
} from './fake-api-server.js';
import { forFile } from './for-file.js';

export { rawJson, type RecordedRequest, type Wire } from './fake-api-server.js';

/**
 * One content block as the API returns it. In a `tool_use` or `server_tool_use`
 * block, `input` may be rawJson('...') to stream exactly those bytes; any other
 * value may be rawJson too.
 */
export type FakeBlock = { type: string } & Record<string, unknown>;

export interface FakeMessage {
  content: FakeBlock[];
  /** Default: `tool_use` when a tool_use block is present, else `end_turn`. */
  stop_reason?: string;
  usage?: { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
  id?: string;
  /** Default: the model the request named. */
  model?: string;
  /** Code points per text, thinking and input_json delta. Default 5. */
  chunkSize?: number;
}

export type AnthropicReply =
  /**
   * As SSE when the request streams, else as JSON. `stallAfter`: send that many events, then hold the stream open.
   * `delayMs`: wait that long between two events (a model streaming slowly).
   */
  | { message: FakeMessage; stallAfter?: number; delayMs?: number }
  /** An error in the API's shape. Retryable statuses carry `retry-after-ms: 1` unless `headers` is given. */
  | { error: { status: number; type: string; message: string }; headers?: Record<string, string> }
  /** Anything, verbatim: e.g. { raw: sseWire([...anthropicEvents(msg, model).slice(0, 4), streamErrorEvent('overloaded_error', 'Overloaded')]) } */
  | { raw: Wire }
  /** Accept the request and never answer. */
  | { hang: true };

/** The real API's error replies. */
export const anthropicErrors = {
  overloaded: (): AnthropicReply => ({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } }),
  rateLimited: (): AnthropicReply => ({
    error: {
      status: 429,
      type: 'rate_limit_error',
      message: 'This request would exceed the rate limit for your organization of 50 requests per minute.',
    },
  }),
  server: (): AnthropicReply => ({ error: { status: 500, type: 'api_error', message: 'Internal server error' } }),
  unauthorized: (): AnthropicReply => ({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } }),
  forbidden: (): AnthropicReply => ({
    error: { status: 403, type: 'permission_error', message: 'Your API key does not have permission to use the specified resource.' },
  }),
  notFound: (model: string): AnthropicReply => ({ error: { status: 404, type: 'not_found_error', message: `model: ${model}` } }),
  invalid: (message: string): AnthropicReply => ({ error: { status: 400, type: 'invalid_request_error', message } }),
  /** The refusal of a prompt longer than the context window, in the API's words. */
  promptTooLong: (tokens: number, window: number): AnthropicReply => ({
    error: { status: 400, type: 'invalid_request_error', message: `prompt is too long: ${tokens} tokens > ${window} maximum` },
  }),
  /** The refusal of a prompt whose input and max_tokens together pass the context window. */
  exceedsContextLimit: (tokens: number, maxTokens: number, window: number): AnthropicReply => ({
    error: {
      status: 400,
      type: 'invalid_request_error',
      message: `input length and \`max_tokens\` exceed context limit: ${tokens} + ${maxTokens} > ${window}, decrease input length or \`max_tokens\` and try again`,
    },
  }),
};

let requestIds = 0;

function errorWire(status: number, type: string, message: string, headers?: Record<string, string>): Wire {
  const id = `req_fake${++requestIds}`;
  const retryable = status === 429 || status >= 500;
  const extra = headers ?? (retryable ? { 'retry-after-ms': '1' } : {});
  return jsonWire(status, { type: 'error', error: { type, message }, request_id: id }, { 'request-id': id, ...extra });
}

export function sseEvent(type: string, data: unknown): string {
  return `event: ${type}\ndata: ${toJsonText(data)}\n\n`;
}

/** The `error` event the API sends when a stream fails midway. */
export function streamErrorEvent(type: string, message: string): string {
  return sseEvent('error', { type: 'error', error: { type, message } });
}

export function sseWire(events: string[], hold = false): Wire {
  return { status: 200, headers: SSE_HEADERS, chunks: events, hold };
}

function stopReasonOf(m: FakeMessage): string {
  return m.stop_reason ?? (m.content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn');
}

function inputText(input: unknown): string {
  return input instanceof RawText ? input.text : JSON.stringify(input ?? {});
}

/** The message as the non-streaming API returns it; `counted`: the request's input tokens as the server counted them. */
export function messageJson(m: FakeMessage, model: string, counted?: number): Record<string, unknown> {
  const u = m.usage ?? {};
  return {
    id: m.id ?? 'msg_fake',
    type: 'message',
    role: 'assistant',
    model: m.model ?? model,
    content: m.content,
    stop_reason: stopReasonOf(m),
    stop_sequence: null,
    usage: {
      input_tokens: u.input_tokens ?? counted ?? 10,
      cache_creation_input_tokens: u.cache_creation_input_tokens ?? 0,
      cache_read_input_tokens: u.cache_read_input_tokens ?? 0,
      output_tokens: u.output_tokens ?? 5,
    },
  };
}

/** The message as the API streams it, one string per SSE event. */
export function anthropicEvents(m: FakeMessage, model: string, counted?: number): string[] {
  const size = m.chunkSize ?? 5;
  const whole = messageJson(m, model, counted);
  const usage = whole.usage as Record<string, number>;
  const events = [
    sseEvent('message_start', {
      type: 'message_start',
      message: { ...whole, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    }),
    sseEvent('ping', { type: 'ping' }),
  ];
  m.content.forEach((block, index) => {
    const delta = (d: Record<string, unknown>) => sseEvent('content_block_delta', { type: 'content_block_delta', index, delta: d });
    const start = (b: unknown) => events.push(sseEvent('content_block_start', { type: 'content_block_start', index, content_block: b }));
    switch (block.type) {
      case 'text':
        start({ type: 'text', text: '' });
        for (const p of pieces(String(block.text), size)) events.push(delta({ type: 'text_delta', text: p }));
        break;
      case 'thinking':
        start({ type: 'thinking', thinking: '', signature: '' });
        for (const p of pieces(String(block.thinking), size)) events.push(delta({ type: 'thinking_delta', thinking: p }));
        if (block.signature) events.push(delta({ type: 'signature_delta', signature: block.signature }));
        break;
      case 'tool_use':
      case 'server_tool_use': {
        start({ ...block, input: {} });
        events.push(delta({ type: 'input_json_delta', partial_json: '' }));
        for (const p of pieces(inputText(block.input), size)) events.push(delta({ type: 'input_json_delta', partial_json: p }));
        break;
      }
      default:
        start(block); // arrives whole: redacted thinking, server tool results
    }
    events.push(sseEvent('content_block_stop', { type: 'content_block_stop', index }));
  });
  events.push(
    sseEvent('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReasonOf(m), stop_sequence: null },
      usage: { output_tokens: usage.output_tokens },
    }),
    sseEvent('message_stop', { type: 'message_stop' }),
  );
  return events;
}

const spec: FakeApiSpec<AnthropicReply> = {
  route: (req) => req.method === 'POST' && req.path.split('?')[0] === '/v1/messages',
  modelsRoute: (req) => req.method === 'GET' && req.path.split('?')[0] === '/v1/models',
  // The Models API's page: newest first, with the ids of its ends.
  models: (ids) =>
    jsonWire(
      200,
      {
        data: ids.map((id) => ({ type: 'model', id, display_name: id, created_at: '2026-01-01T00:00:00Z' })),
        has_more: false,
        first_id: ids[0] ?? null,
        last_id: ids.at(-1) ?? null,
      },
      { 'request-id': `req_fake${++requestIds}` },
    ),
  notFound: (req) => errorWire(404, 'not_found_error', `Not Found: ${req.method} ${req.path}`),
  scriptError: (message) => errorWire(400, 'invalid_request_error', message),
  countTokens: (req) => countTokens(req.json?.system, req.json?.messages, req.json?.tools),
  tooLong(req, tokens, window) {
    if (tokens > window) return errorWire(400, 'invalid_request_error', `prompt is too long: ${tokens} tokens > ${window} maximum`);
    const maxTokens = Number(req.json?.max_tokens ?? 0);
    if (tokens + maxTokens > window) {
      return errorWire(
        400,
        'invalid_request_error',
        `input length and \`max_tokens\` exceed context limit: ${tokens} + ${maxTokens} > ${window}, decrease input length or \`max_tokens\` and try again`,
      );
    }
    return null;
  },
  render(reply: AnthropicReply, req: RecordedRequest): Wire {
    if ('hang' in reply) return reply;
    if ('raw' in reply) return reply.raw;
    if ('error' in reply) return errorWire(reply.error.status, reply.error.type, reply.error.message, reply.headers);
    const model = String(req.json?.model ?? 'claude-fake');
    if (req.json?.stream !== true) return jsonWire(200, messageJson(reply.message, model, req.inputTokens), { 'request-id': `req_fake${++requestIds}` });
    const events = anthropicEvents(reply.message, model, req.inputTokens);
    const wire = reply.stallAfter === undefined ? sseWire(events) : sseWire(events.slice(0, reply.stallAfter), true);
    return reply.delayMs === undefined ? wire : { ...wire, intervalMs: reply.delayMs };
  },
};

export class FakeAnthropic extends FakeApiServer<AnthropicReply> {
  /** The base URL, for ANTHROPIC_BASE_URL or the config's base_url. */
  readonly url: string;

  private constructor(server: Server, origin: string) {
    super(server, origin);
    this.url = origin;
  }

  static start(): Promise<FakeAnthropic> {
    return FakeApiServer.listenWith(spec, (server, origin) => new FakeAnthropic(server, origin));
  }
}

/** A FakeAnthropic for the calling test file's tests (for-file.ts). */
export function useFakeAnthropic(): FakeAnthropic {
  return forFile(() => FakeAnthropic.start());
}
