/**
 * A Streamable HTTP MCP server built with the SDK, on an ephemeral loopback
 * port: sessions as the SDK's server keeps them, answers streamed as SSE, and an
 * optional header every request must carry (else 401).
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

export interface HttpMcpServer {
  url: string;
  /** Header values each request carried, in order of arrival, for the header asked about. */
  seen: string[];
  /** Sessions ended by the client (DELETE). */
  ended: string[];
  close(): Promise<void>;
}

function mcpServer(): Server {
  const server = new Server({ name: 'http-fixture', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: [
      {
        name: 'add',
        description: 'Adds two numbers.',
        inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
        annotations: { readOnlyHint: true },
      },
      { name: 'shout', description: 'Upper-cases text.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
    ],
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const input = (request.params.arguments ?? {}) as Record<string, unknown>;
    if (request.params.name === 'add') return { content: [{ type: 'text', text: String(Number(input.a) + Number(input.b)) }] };
    return { content: [{ type: 'text', text: String(input.text).toUpperCase() }] };
  });
  return server;
}

export async function startHttpMcpServer(options: { header?: { name: string; value: string } } = {}): Promise<HttpMcpServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const seen: string[] = [];
  const ended: string[] = [];
  const headerOf = (req: IncomingMessage): string | undefined => {
    const v = options.header ? req.headers[options.header.name.toLowerCase()] : undefined;
    return Array.isArray(v) ? v.join(',') : v;
  };
  const http: HttpServer = createServer((req, res) => {
    void (async () => {
      if (options.header) {
        const got = headerOf(req);
        seen.push(got ?? '');
        if (got !== options.header.value) {
          res.writeHead(401, { 'content-type': 'text/plain' }).end('missing or wrong credentials');
          return;
        }
      }
      const id = req.headers['mcp-session-id'];
      let transport = typeof id === 'string' ? transports.get(id) : undefined;
      if (transport === undefined) {
        if (typeof id === 'string') {
          res.writeHead(404).end('no such session');
          return;
        }
        const fresh: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (sid) => void transports.set(sid, fresh),
          onsessionclosed: (sid) => {
            ended.push(sid);
            transports.delete(sid);
          },
        });
        await mcpServer().connect(fresh);
        transport = fresh;
      }
      await transport.handleRequest(req, res);
    })().catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(err));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seen,
    ended,
    async close() {
      await Promise.all([...transports.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
