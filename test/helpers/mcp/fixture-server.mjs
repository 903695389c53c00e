#!/usr/bin/env node
/**
 * A real MCP server over stdio, built with the SDK, whose tools each show one
 * behaviour a client must handle: annotations of every kind, content of every
 * kind, an error result, a slow call, a call during which the server dies, its
 * own environment, a result of any size. Its
 * tool list comes in pages of three. Flags:
 *   --exit-at-once         write to stderr and exit 3 before reading anything
 *   --bad-name             also list a tool whose name has a dot
 *   --grandchild FILE      start a long sleep in its own process group and write
 *                          "<own pid> <sleep pid>" to FILE
 *   --log FILE             append "cancelled <tool>" lines when a call is cancelled
 *   --crash-note TEXT      the crash tool writes this line to stderr as it dies
 *   --marker FILE          write_note and read_note append "<tool>" to FILE each
 *                          time they run, and the first call of each then hangs
 *                          (long enough to be killed in)
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const value = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);

if (flag('--exit-at-once')) {
  process.stderr.write('fixture: starting\nfixture: cannot open /nonexistent/state.db\n');
  process.exit(3);
}

const grandchildFile = value('--grandchild');
if (grandchildFile !== undefined) {
  const sleeper = spawn('sleep', ['300'], { stdio: 'ignore' });
  writeFileSync(grandchildFile, `${process.pid} ${sleeper.pid}`);
}

const object = (properties = {}, required = []) => ({ type: 'object', properties, required });
const TOOLS = [
  { name: 'echo', description: 'Says the text back.', inputSchema: object({ text: { type: 'string' } }, ['text']) },
  { name: 'read_thing', description: 'Reads.', inputSchema: object(), annotations: { readOnlyHint: true, openWorldHint: false } },
  { name: 'put_thing', description: 'Writes, idempotently.', inputSchema: object(), annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true } },
  { name: 'delete_thing', description: 'Deletes.', inputSchema: object(), annotations: { title: 'Delete', destructiveHint: true, idempotentHint: false } },
  { name: 'slow', description: 'Answers after ms milliseconds.', inputSchema: object({ ms: { type: 'integer' } }, ['ms']) },
  { name: 'crash', description: 'The server dies during the call.', inputSchema: object() },
  { name: 'mixed', description: 'Content of every kind.', inputSchema: object() },
  { name: 'fails', description: 'An error result.', inputSchema: object() },
  { name: 'environment', description: 'Its environment variables, as JSON.', inputSchema: object(), annotations: { readOnlyHint: true } },
  { name: 'write_note', description: 'Writes a note (no annotations: the protocol assumes destructive).', inputSchema: object() },
  { name: 'read_note', description: 'Reads a note.', inputSchema: object(), annotations: { readOnlyHint: true } },
  {
    name: 'sized',
    description: 'A text of at least bytes bytes of UTF-8: text repeated (default "x").',
    inputSchema: object({ bytes: { type: 'integer' }, text: { type: 'string' } }, ['bytes']),
    annotations: { readOnlyHint: true },
  },
];
if (flag('--bad-name')) TOOLS.push({ name: 'bad.name', description: 'A dot in its name.', inputSchema: object() });

const PAGE = 3;
const server = new Server({ name: 'fixture', version: '1.0.0' }, { capabilities: { tools: {} } });

server.setRequestHandler(ListToolsRequestSchema, async (request) => {
  const start = Number(request.params?.cursor ?? 0);
  const next = start + PAGE;
  return { tools: TOOLS.slice(start, next), ...(next < TOOLS.length ? { nextCursor: String(next) } : {}) };
});

const text = (t) => ({ content: [{ type: 'text', text: t }] });
const log = value('--log');

server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const input = request.params.arguments ?? {};
  switch (request.params.name) {
    case 'echo':
      return text(`echo: ${input.text}`);
    case 'read_thing':
    case 'put_thing':
    case 'delete_thing':
      return text(`${request.params.name} done`);
    case 'slow':
      return await new Promise((resolve) => {
        const timer = setTimeout(() => resolve(text(`slept ${input.ms} ms`)), input.ms);
        extra.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          if (log !== undefined) appendFileSync(log, 'cancelled slow\n');
          resolve(text('cancelled'));
        });
      });
    case 'crash':
      process.stderr.write(`fixture: writing half a record\n${value('--crash-note') ?? 'fixture: segmentation fault (core dumped)'}\n`);
      setTimeout(() => process.exit(7), 20);
      return await new Promise(() => {});
    case 'mixed':
      return {
        content: [
          { type: 'text', text: 'first' },
          { type: 'image', mimeType: 'image/png', data: Buffer.alloc(2048).toString('base64') },
          { type: 'audio', mimeType: 'audio/wav', data: Buffer.alloc(10).toString('base64') },
          { type: 'resource_link', name: 'notes', uri: 'file:///notes.txt', mimeType: 'text/plain' },
          { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'héllo' } },
          { type: 'resource', resource: { uri: 'file:///b.bin', blob: Buffer.alloc(3).toString('base64') } },
          { type: 'text', text: 'last' },
        ],
      };
    case 'environment':
      return text(JSON.stringify(process.env));
    case 'write_note':
    case 'read_note': {
      const marker = value('--marker');
      const tool = request.params.name;
      const before = existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter((l) => l === tool).length : 0;
      appendFileSync(marker, `${tool}\n`);
      if (before === 0) await new Promise(() => {}); // the first call hangs until the server is killed
      return text(`${tool} done`);
    }
    case 'fails':
      return { content: [{ type: 'text', text: 'no such thing' }], isError: true };
    case 'sized': {
      const unit = input.text ?? 'x';
      return text(unit.repeat(Math.ceil(input.bytes / Buffer.byteLength(unit))));
    }
    default:
      return { content: [{ type: 'text', text: `unknown tool ${request.params.name}` }], isError: true };
  }
});

await server.connect(new StdioServerTransport());
process.stderr.write('fixture: ready\n');
