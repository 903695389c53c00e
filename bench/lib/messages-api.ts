/**
 * A local Messages API (POST /v1/messages, streamed as the real API streams)
 * in the benchmark's own process, answering each request at once with a short
 * text: what a run with the anthropic provider talks to when the benchmark
 * times it. It notes, on the benchmark's clock, when each request arrived (its
 * headers parsed) and when the last byte of each answer was handed to the
 * socket, so a child process's spawn and exit are timed on the same clock.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { now } from './stats.js';

export interface Exchange {
  /** When the request's headers arrived. */
  arrived: number;
  /** When the request's body was whole. */
  received?: number;
  /** When the answer's last byte was written to the socket. */
  answered?: number;
  /** The request body's size in bytes. */
  bytes?: number;
}

const event = (type: string, data: unknown): string => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;

/** What the API answers a request with: a text, or a tool call after an optional text. */
export type Answer = string | { text?: string; tool: { name: string; input: unknown } };

/** The answer to a request, chosen from its body (the Messages API request, parsed). */
export type Answerer = (body: { messages?: { content?: unknown }[] }) => Answer;

/** The stream events of an answer's content blocks. */
function blocks(answer: Answer, n: number): string[] {
  const text = typeof answer === 'string' ? answer : answer.text;
  const out: string[] = [];
  let index = 0;
  if (text) {
    out.push(
      event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } }),
      event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } }),
      event('content_block_stop', { type: 'content_block_stop', index }),
    );
    index++;
  }
  if (typeof answer !== 'string') {
    out.push(
      event('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: `toolu_bench${n}`, name: answer.tool.name, input: {} } }),
      event('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(answer.tool.input) } }),
      event('content_block_stop', { type: 'content_block_stop', index }),
    );
  }
  return out;
}

export class MessagesApi {
  readonly exchanges: Exchange[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** Answers every request with `answer`, or with what `answer` chooses from the request. */
  static async start(answer: string | Answerer = 'Done.'): Promise<MessagesApi> {
    let api: MessagesApi | undefined;
    const server = createServer((req, res) => api!.handle(req, res, answer));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    api = new MessagesApi(server, `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`);
    return api;
  }

  /** Forgets the exchanges so far: each measured process's are its own. */
  reset(): void {
    this.exchanges.length = 0;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse, answerer: string | Answerer): void {
    const exchange: Exchange = { arrived: now() };
    this.exchanges.push(exchange);
    if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/messages') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"type":"error","error":{"type":"not_found_error","message":"Not Found"}}');
      return;
    }
    let bytes = 0;
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => {
      bytes += d.length;
      if (typeof answerer !== 'string') chunks.push(d);
    });
    req.on('end', () => {
      exchange.received = now();
      exchange.bytes = bytes;
      const n = this.exchanges.length;
      const answer = typeof answerer === 'string' ? answerer : answerer(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Parameters<Answerer>[0]);
      const usage = { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 };
      res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': `req_bench${n}` });
      res.end(
        [
          event('message_start', {
            type: 'message_start',
            message: { id: `msg_bench${n}`, type: 'message', role: 'assistant', model: 'bench-model', content: [], stop_reason: null, stop_sequence: null, usage },
          }),
          ...blocks(answer, n),
          event('message_delta', { type: 'message_delta', delta: { stop_reason: typeof answer === 'string' ? 'end_turn' : 'tool_use', stop_sequence: null }, usage: { output_tokens: 2 } }),
          event('message_stop', { type: 'message_stop' }),
        ].join(''),
        () => (exchange.answered = now()),
      );
    });
  }
}

/** The agent.yaml of a run with the anthropic provider talking to `api` (its key: ANTHROPIC_API_KEY=bench-key). */
export function anthropicConfig(api: MessagesApi, more = ''): string {
  return `provider: anthropic\nmodel: bench-model\nbase_url: ${api.url}\nmax_tokens: 1024\nprompt_cache: false\n${more}`;
}

export const API_ENV: NodeJS.ProcessEnv = { ANTHROPIC_API_KEY: 'bench-key' };
