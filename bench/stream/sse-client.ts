/**
 * The baseline of the streamed-text benchmark: a bare Node client that asks the
 * server for a stream and, for each text delta, prints `got REQUEST INDEX NS`
 * (from the delta's word), NS being the monotonic clock when the bytes holding
 * the delta's event arrived. It parses the SSE events and nothing more.
 *
 *   node sse-client.js URL
 */
import { request } from 'node:http';

const [url] = process.argv.slice(2);
const WORD = /w(\d{3})(\d{4})/;

const req = request(`${url}/v1/messages`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
});
req.end(JSON.stringify({ model: 'bench-model', max_tokens: 1024, stream: true, messages: [{ role: 'user', content: 'Tell a long story.' }] }));
req.on('response', (res) => {
  let rest = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    const at = process.hrtime.bigint();
    const events = (rest + chunk).split('\n\n');
    rest = events.pop()!;
    for (const e of events) {
      const data = /^data: (.*)$/m.exec(e)?.[1];
      if (data === undefined) continue;
      const parsed = JSON.parse(data) as { type: string; delta?: { type: string; text?: string } };
      if (parsed.type !== 'content_block_delta' || parsed.delta?.type !== 'text_delta') continue;
      const word = WORD.exec(parsed.delta.text ?? '');
      if (word !== null) process.stdout.write(`got ${Number(word[1])} ${Number(word[2])} ${at}\n`);
    }
  });
});
