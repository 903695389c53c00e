/**
 * The model of the streamed-text benchmark, as a process of its own: a server
 * speaking the Messages API's streaming (POST /v1/messages, the real SSE event
 * sequence), whose one text block comes as DELTAS text deltas, each a word
 * `w<request><index>` (a paragraph ends every twelfth), sent GAP_MIN to GAP_MAX
 * ms apart (a deterministic sequence seeded by the request's number, counted
 * from 1). Right before writing each delta it prints `sent REQUEST INDEX NS` on
 * stdout (NS: the monotonic clock, which every process here shares); first
 * `port PORT`.
 *
 *   node sse-server.js DELTAS
 */
import { createServer } from 'node:http';
import { random } from '../lib/content.js';

const DELTAS = Number(process.argv[2] ?? 60);
const GAP_MIN = 5;
const GAP_MAX = 45;

/** The word of delta `index` of request `request`: found again, whole, on a terminal. */
export function marker(request: number, index: number): string {
  return `w${String(request).padStart(3, '0')}${String(index).padStart(4, '0')}`;
}

const event = (type: string, data: unknown): string => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let requests = 0;
const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/messages') {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"type":"error","error":{"type":"not_found_error","message":"Not Found"}}');
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (d: Buffer) => chunks.push(d));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model?: string };
    const request = ++requests;
    void stream(res, request, body.model ?? 'bench-model');
  });
});

async function stream(res: import('node:http').ServerResponse, request: number, model: string): Promise<void> {
  const next = random(request);
  const usage = { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 1 };
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': `req_bench${request}` });
  res.write(
    event('message_start', {
      type: 'message_start',
      message: { id: `msg_bench${request}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage },
    }),
  );
  res.write(event('ping', { type: 'ping' }));
  res.write(event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }));
  for (let i = 0; i < DELTAS; i++) {
    await sleep(GAP_MIN + next() * (GAP_MAX - GAP_MIN));
    const text = `${marker(request, i)}${i % 12 === 11 ? '.\n\n' : ' '}`;
    process.stdout.write(`sent ${request} ${i} ${process.hrtime.bigint()}\n`);
    res.write(event('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }));
  }
  res.write(event('content_block_stop', { type: 'content_block_stop', index: 0 }));
  res.write(event('message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: DELTAS } }));
  res.end(event('message_stop', { type: 'message_stop' }));
}

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`port ${typeof address === 'object' && address !== null ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
