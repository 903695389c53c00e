#!/usr/bin/env node
/**
 * An MCP server written by hand, line by line, to send what the SDK's own server
 * never would: a stray line that is not JSON-RPC, and malformed answers.
 *   --protocol VERSION   answer initialize with this protocol version
 * Its one tool, `bad`, answers with a text block that has no text.
 */
import { createInterface } from 'node:readline';

const args = process.argv.slice(2);
const protocol = args.includes('--protocol') ? args[args.indexOf('--protocol') + 1] : '2025-06-18';
const send = (message) => process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);

process.stdout.write('raw server starting (this line is not JSON-RPC)\n');
for await (const line of createInterface({ input: process.stdin })) {
  const msg = JSON.parse(line);
  if (msg.id === undefined) continue; // a notification
  if (msg.method === 'initialize') {
    send({ id: msg.id, result: { protocolVersion: protocol, capabilities: { tools: {} }, serverInfo: { name: 'raw', version: '0' } } });
  } else if (msg.method === 'tools/list') {
    send({ id: msg.id, result: { tools: [{ name: 'bad', inputSchema: { type: 'object' } }] } });
  } else if (msg.method === 'tools/call') {
    send({ id: msg.id, result: { content: [{ type: 'text' }] } });
  } else {
    send({ id: msg.id, error: { code: -32601, message: `no method ${msg.method}` } });
  }
}
