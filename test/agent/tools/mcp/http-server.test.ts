/**
 * A Streamable HTTP MCP server built with the SDK in the test, on loopback: a
 * header whose value comes from an environment variable, calls, the session
 * ended on close, and a server that is not there or goes away.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { caught } from '../../../helpers/errors.js';
import { startHttpMcpServer, type HttpMcpServer } from '../../../helpers/mcp/http-server.js';
import { httpSpec, startServers } from '../../../helpers/mcp/specs.js';

const ctx = () => ({ signal: new AbortController().signal });
const auth = { headers: { Authorization: 'Bearer ${MCP_TEST_TOKEN}' } };

describe('a Streamable HTTP MCP server', () => {
  let server: HttpMcpServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('is reached with a header read from an environment variable, its tools called, its session ended on close', async () => {
    server = await startHttpMcpServer({ header: { name: 'Authorization', value: 'Bearer s3cret' } });
    const servers = await startServers([httpSpec('web', server.url, auth)], { env: { MCP_TEST_TOKEN: 's3cret' } });
    try {
      expect(servers.tools.map((t) => t.definition.name)).toEqual(['mcp__web__add', 'mcp__web__shout']);
      expect(servers.servers[0]!.where).toBe(server.url);
      const [add, shout] = servers.tools;
      expect(add!.policy).toEqual({ confirm: false, sideEffects: false });
      expect(shout!.policy).toEqual({ confirm: false, sideEffects: true });
      expect(await add!.run({ a: 2, b: 3 }, ctx())).toEqual({ content: '5', isError: false });
      expect(await shout!.run({ text: 'quiet' }, ctx())).toEqual({ content: 'QUIET', isError: false });
    } finally {
      await servers.close();
    }
    expect(server.seen.length).toBeGreaterThanOrEqual(4); // initialize, initialized, list, two calls, ...
    expect(new Set(server.seen)).toEqual(new Set(['Bearer s3cret']));
    expect(server.ended).toHaveLength(1);
  });

  it('is not contacted when the variable a header names is not set', async () => {
    server = await startHttpMcpServer({ header: { name: 'Authorization', value: 'Bearer s3cret' } });
    const err = await caught(startServers([httpSpec('web', server.url, auth)], { env: {} }));
    expect(err).toMatchObject({
      code: 'config',
      message: 'MCP server "web": headers.Authorization names the environment variable MCP_TEST_TOKEN, which is not set; set it, or change agent.yaml',
    });
    expect(server.seen).toEqual([]);
  });

  it('refusing the credentials is a tool_server error naming the server, its URL and the HTTP status', async () => {
    server = await startHttpMcpServer({ header: { name: 'Authorization', value: 'Bearer s3cret' } });
    const err = await caught(startServers([httpSpec('web', server.url, auth)], { env: { MCP_TEST_TOKEN: 'wrong' } }));
    expect(err.code).toBe('tool_server');
    expect(err.message).toBe(`MCP server "web" did not start: ${server.url} answered HTTP 401: missing or wrong credentials`);
  });

  it('not listening is a tool_server error saying the connection was refused', async () => {
    server = await startHttpMcpServer();
    const url = server.url;
    await server.close();
    server = undefined;
    const err = await caught(startServers([httpSpec('web', url)]));
    expect(err.code).toBe('tool_server');
    expect(err.message).toMatch(new RegExp(`^MCP server "web" did not start: ${url}: fetch failed: connect ECONNREFUSED 127.0.0.1:\\d+$`));
  });

  it('going away after the start fails a call with tool_server rather than a result', async () => {
    server = await startHttpMcpServer();
    const servers = await startServers([httpSpec('web', server.url)]);
    try {
      await server.close();
      const url = server.url;
      server = undefined;
      const err = await caught(servers.tools[0]!.run({ a: 1, b: 1 }, ctx()));
      expect(err.code).toBe('tool_server');
      expect(err.message).toMatch(/^MCP server "web" stopped answering during mcp__web__add: http:\/\/127.0.0.1:\d+\/mcp: fetch failed: /);
      expect(err.message).toContain(url);
    } finally {
      await servers.close();
    }
  });
});
