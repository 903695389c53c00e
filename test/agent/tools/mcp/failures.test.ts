/**
 * Servers that fail: one that never starts, one that dies during a call, one too
 * slow for its timeout, and a call the run aborts. Each ends in bounded time with
 * an error that names the server and says why.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ToolRegistry } from '../../../../src/agent/tools/registry.js';
import { caught } from '../../../helpers/errors.js';
import { alive, FIXTURE_SERVER, fixtureSpec, gone, input, processGroup, startServers, stdioSpec } from '../../../helpers/mcp/specs.js';
import { tempDir } from '../../../helpers/tmp.js';

const ctx = () => ({ signal: new AbortController().signal });

describe('an MCP server that never starts', () => {
  it('is a tool_server error naming it, when its program does not exist', async () => {
    const err = await caught(startServers([stdioSpec('ghost', ['/nonexistent/mcp-server', '--stdio'])]));
    expect(err.code).toBe('tool_server');
    expect(err.message).toBe('MCP server "ghost" did not start: cannot run /nonexistent/mcp-server: not found');
  });

  it('is a tool_server error with its exit code and the tail of its stderr, when it exits at once', async () => {
    const err = await caught(startServers([fixtureSpec('db', ['--exit-at-once'])]));
    expect(err.code).toBe('tool_server');
    expect(err.message).toBe(
      'MCP server "db" did not start: exited with code 3; its stderr ended with: fixture: starting / fixture: cannot open /nonexistent/state.db',
    );
  });

  it('says so when its cwd does not exist', async () => {
    const err = await caught(startServers([fixtureSpec('lost', [], { cwd: '/nonexistent/dir' })]));
    expect(err).toMatchObject({ code: 'tool_server', message: 'MCP server "lost" did not start: its cwd /nonexistent/dir does not exist' });
  });

  it('is a tool_server error when it does not answer within its startup_timeout, and it is stopped', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'pid');
    const script = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); process.stderr.write('warming up\\n'); setInterval(() => {}, 1000)`;
    const err = await caught(startServers([stdioSpec('slowpoke', [process.execPath, '-e', script], { startup_timeout: 1 })]));
    expect(err).toMatchObject({
      code: 'tool_server',
      message: 'MCP server "slowpoke" did not start: no answer within 1s (its startup_timeout in agent.yaml); its stderr ended with: warming up',
    });
    expect(await gone(Number(readFileSync(pidFile, 'utf8')))).toBe(true);
  });

  it('stops the servers that did start, and fails at once rather than after their timeouts', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'pids');
    const started = Date.now();
    const err = await caught(
      startServers([
        fixtureSpec('good', ['--grandchild', pidFile], { timeout: 600 }),
        stdioSpec('hang', [process.execPath, '-e', 'setInterval(() => {}, 1000)'], { timeout: 600 }),
        fixtureSpec('bad', ['--exit-at-once']),
      ]),
    );
    expect(err.code).toBe('tool_server');
    expect(err.message).toMatch(/^MCP server "bad" did not start/);
    expect(Date.now() - started).toBeLessThan(60_000); // bound, not a speed target: the others' timeouts are 600 s
    const [server, sleeper] = readFileSync(pidFile, 'utf8').split(' ').map(Number);
    expect(await gone(server!)).toBe(true);
    expect(await gone(sleeper!)).toBe(true);
  });
});

describe('closing', () => {
  it('runs each stdio server in a process group of its own, so a Ctrl-C at the terminal reaches logbook alone', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'pids');
    const servers = await startServers([fixtureSpec('fx', ['--grandchild', pidFile])]);
    try {
      const [server, sleeper] = readFileSync(pidFile, 'utf8').split(' ').map(Number);
      expect(processGroup(sleeper!)).toBe(processGroup(server!));
      expect(processGroup(server!)).not.toBe(processGroup(process.pid));
    } finally {
      await servers.close();
    }
  });

  it('stops a server that ignores the end of its input, and what it started, by their process group', async () => {
    const dir = tempDir();
    const pidFile = join(dir, 'pids');
    const servers = await startServers([fixtureSpec('fx', ['--grandchild', pidFile])]);
    const [server, sleeper] = readFileSync(pidFile, 'utf8').split(' ').map(Number);
    expect(alive(server!) && alive(sleeper!)).toBe(true);
    await servers.close();
    expect(await gone(server!)).toBe(true);
    expect(await gone(sleeper!)).toBe(true);
  });
});

describe('an MCP server that dies during a call', () => {
  it('fails the call with tool_server, its exit code and stderr tail, through the registry too', async () => {
    const servers = await startServers([fixtureSpec('fx')]);
    try {
      const registry = new ToolRegistry(servers.tools);
      const err = await caught(registry.run('mcp__fx__crash', input({}), ctx()));
      expect(err.code).toBe('tool_server');
      expect(err.message).toBe(
        'MCP server "fx" stopped answering during mcp__fx__crash: exited with code 7; its stderr ended with: ' +
          'fixture: ready / fixture: writing half a record / fixture: segmentation fault (core dumped)',
      );
      // Later calls fail the same way at once, rather than waiting for a dead server.
      const again = await caught(registry.run('mcp__fx__echo', input({ text: 'hi' }), ctx()));
      expect(again.code).toBe('tool_server');
      expect(again.message).toMatch(/^MCP server "fx" stopped answering during mcp__fx__echo: exited with code 7/);
    } finally {
      await servers.close();
    }
  });
});

describe('a call that takes too long', () => {
  it('times out at the server timeout as an error result, the server asked to cancel it and still usable', async () => {
    const dir = tempDir();
    const log = join(dir, 'log');
    const servers = await startServers([fixtureSpec('fx', ['--log', log], { timeout: 0.5 })]);
    try {
      const registry = new ToolRegistry(servers.tools);
      const out = await registry.run('mcp__fx__slow', input({ ms: 60_000 }), ctx());
      expect(out).toEqual({
        content: 'mcp__fx__slow: no answer from MCP server "fx" within 0.5s (its timeout in agent.yaml); the call was cancelled',
        isError: true,
      });
      expect(await registry.run('mcp__fx__echo', input({ text: 'still here' }), ctx())).toEqual({ content: 'echo: still here', isError: false });
      expect(readFileSync(log, 'utf8')).toBe('cancelled slow\n');
    } finally {
      await servers.close();
    }
  });

  it('is aborted by the run signal: interrupted, not a result, and the server cancels it', async () => {
    const dir = tempDir();
    const log = join(dir, 'log');
    const servers = await startServers([fixtureSpec('fx', ['--log', log], { timeout: 600 })]);
    try {
      const tool = servers.tools.find((t) => t.definition.name === 'mcp__fx__slow')!;
      const controller = new AbortController();
      const call = caught(tool.run({ ms: 60_000 }, { signal: controller.signal }));
      setTimeout(() => controller.abort(), 200);
      expect(await call).toMatchObject({ code: 'interrupted', message: 'mcp__fx__slow interrupted' });
      const echo = servers.tools.find((t) => t.definition.name === 'mcp__fx__echo')!;
      expect(await echo.run({ text: 'after' }, ctx())).toEqual({ content: 'echo: after', isError: false });
      expect(readFileSync(log, 'utf8')).toBe('cancelled slow\n');
    } finally {
      await servers.close();
    }
  });

  it('does not start when the signal is already aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const err = await caught(startServers([fixtureSpec('fx')], { signal: controller.signal }));
    expect(err.code).toBe('interrupted');
  });
});

describe('a server that breaks the protocol', () => {
  const RAW = join(dirname(FIXTURE_SERVER), 'raw-server.mjs');

  it('is skipped over for a stray stdout line, and a malformed result is an error result', async () => {
    const servers = await startServers([stdioSpec('raw', [process.execPath, RAW])]);
    try {
      expect(servers.tools.map((t) => t.definition)).toEqual([{ name: 'mcp__raw__bad', description: '', input_schema: { type: 'object' } }]);
      const out = await servers.tools[0]!.run({}, ctx());
      expect(out.isError).toBe(true);
      expect(out.content).toBe('mcp__raw__bad: MCP server "raw" answered with a malformed result: content.0: Invalid input');
    } finally {
      await servers.close();
    }
  });

  it('does not start when it speaks a protocol version the SDK does not', async () => {
    const err = await caught(startServers([stdioSpec('raw', [process.execPath, RAW, '--protocol', '1999-01-01'])]));
    expect(err).toMatchObject({ code: 'tool_server', message: "MCP server \"raw\" did not start: Server's protocol version is not supported: 1999-01-01" });
  });
});
