/**
 * What an MCP server's tools become: names, the tool list followed across pages,
 * `tools:` filtering, the policy from annotations and overrides, and results of
 * every content kind. Against the SDK-built fixture server over stdio.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServers } from '../../../../src/agent/tools/mcp/index.js';
import { mcpToolPolicy } from '../../../../src/agent/tools/mcp/policy.js';
import { caught } from '../../../helpers/errors.js';
import { fixtureSpec, startServers } from '../../../helpers/mcp/specs.js';

const ctx = () => ({ signal: new AbortController().signal });
const ALL = ['echo', 'read_thing', 'put_thing', 'delete_thing', 'slow', 'crash', 'mixed', 'fails', 'environment', 'write_note', 'read_note', 'sized'];

describe('the tools of an MCP server', () => {
  let servers: McpServers;
  beforeAll(async () => {
    servers = await startServers([
      fixtureSpec('fx'),
      fixtureSpec('picky', [], {
        tools: ['delete_thing', 'read_thing', 'echo'],
        overrides: { read_thing: { confirm: true }, delete_thing: { side_effects: false }, echo: { side_effects: true } },
      }),
    ]);
  });
  afterAll(async () => servers?.close());

  const tool = (name: string) => servers.tools.find((t) => t.definition.name === name)!;

  it('are every tool of every page of its list, in its order, as mcp__<server>__<tool>', () => {
    const fx = servers.servers[0]!;
    expect(fx.tools.map((t) => t.definition.name)).toEqual(ALL.map((n) => `mcp__fx__${n}`)); // pages of three
    expect(fx.hidden).toEqual([]);
    expect(fx.where).toMatch(/fixture-server\.mjs$/);
    expect(tool('mcp__fx__echo').definition).toEqual({
      name: 'mcp__fx__echo',
      description: 'Says the text back.',
      input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
  });

  it('are only those its tools: list names, the rest listed as hidden', () => {
    const picky = servers.servers[1]!;
    expect(picky.tools.map((t) => t.listed.name)).toEqual(['echo', 'read_thing', 'delete_thing']);
    expect(picky.hidden).toEqual(['put_thing', 'slow', 'crash', 'mixed', 'fails', 'environment', 'write_note', 'read_note', 'sized']);
    expect(servers.tools.map((t) => t.definition.name)).toEqual([...ALL.map((n) => `mcp__fx__${n}`), 'mcp__picky__echo', 'mcp__picky__read_thing', 'mcp__picky__delete_thing']);
  });

  it('have side effects unless read-only or idempotent, as the protocol defaults assume', () => {
    expect(tool('mcp__fx__read_thing').policy).toEqual({ confirm: false, sideEffects: false });
    expect(tool('mcp__fx__put_thing').policy).toEqual({ confirm: false, sideEffects: false });
    expect(tool('mcp__fx__delete_thing').policy).toEqual({ confirm: false, sideEffects: true });
    expect(tool('mcp__fx__echo').policy).toEqual({ confirm: false, sideEffects: true }); // no annotations at all
    expect(tool('mcp__fx__read_thing').reasons).toEqual({ sideEffects: 'read-only', confirm: 'default' });
    expect(tool('mcp__fx__put_thing').reasons.sideEffects).toBe('idempotent');
    expect(tool('mcp__fx__delete_thing').reasons.sideEffects).toBe('annotations');
    expect(tool('mcp__fx__echo').reasons.sideEffects).toBe('no annotations');
    expect(tool('mcp__fx__delete_thing').annotations).toEqual({ title: 'Delete', destructiveHint: true, idempotentHint: false });
  });

  it('take the overrides of agent.yaml over what the server says', () => {
    expect(tool('mcp__picky__read_thing').policy).toEqual({ confirm: true, sideEffects: false });
    expect(tool('mcp__picky__read_thing').reasons).toEqual({ sideEffects: 'read-only', confirm: 'agent.yaml' });
    expect(tool('mcp__picky__delete_thing').policy).toEqual({ confirm: false, sideEffects: false });
    expect(tool('mcp__picky__echo').policy).toEqual({ confirm: false, sideEffects: true });
    expect(tool('mcp__picky__echo').reasons.sideEffects).toBe('agent.yaml');
    // A read-only tool can be declared to have side effects after all.
    expect(mcpToolPolicy({ readOnlyHint: true }, { side_effects: true }).policy).toEqual({ confirm: false, sideEffects: true });
    expect(mcpToolPolicy({ readOnlyHint: false, idempotentHint: false }, undefined).policy.sideEffects).toBe(true);
  });

  it('answer with their text content, other content summarised in words', async () => {
    expect(await tool('mcp__fx__echo').run({ text: 'hi' }, ctx())).toEqual({ content: 'echo: hi', isError: false });
    expect(await tool('mcp__fx__mixed').run({}, ctx())).toEqual({
      content: [
        'first',
        '[image: image/png, 2.0 KiB]',
        '[audio: audio/wav, 10 bytes]',
        '[resource link: notes <file:///notes.txt>, text/plain]',
        '[resource <file:///a.txt>, text/plain: 5 characters of text]',
        '[resource <file:///b.bin>: 3 bytes]',
        'last',
      ].join('\n'),
      isError: false,
    });
  });

  it('keep the error flag of an error result', async () => {
    expect(await tool('mcp__fx__fails').run({}, ctx())).toEqual({ content: 'no such thing', isError: true });
  });
});

describe('a stdio server', () => {
  it("inherits only HOME, LOGNAME, PATH, SHELL, TERM and USER from logbook's environment, plus its env: with ${NAME} read", async () => {
    const env = { PATH: process.env.PATH, HOME: '/home/someone', ANTHROPIC_API_KEY: 'sk-secret', MCP_FX_TOKEN: 't0k' };
    const servers = await startServers([fixtureSpec('fx', [], { env: { TOKEN: 'Bearer ${MCP_FX_TOKEN}', MODE: 'plain' } })], { env });
    try {
      const tool = servers.tools.find((t) => t.definition.name === 'mcp__fx__environment')!;
      const seen = JSON.parse((await tool.run({}, ctx())).content) as Record<string, string>;
      expect(seen).toMatchObject({ PATH: process.env.PATH, HOME: '/home/someone', TOKEN: 'Bearer t0k', MODE: 'plain' });
      expect(seen).not.toHaveProperty('ANTHROPIC_API_KEY');
      expect(seen).not.toHaveProperty('MCP_FX_TOKEN');
    } finally {
      await servers.close();
    }
  });
});

describe('tools: and overrides naming what the server lacks, and names the model APIs refuse', () => {
  it('refuses a tools: entry the server does not offer, listing what it does', async () => {
    const err = await caught(startServers([fixtureSpec('fx', [], { tools: ['echo', 'reed_thing'] })]));
    expect(err).toMatchObject({
      code: 'config',
      message: `MCP server "fx": tools: names "reed_thing", which the server does not offer; it offers ${ALL.join(', ')}`,
    });
  });

  it('refuses an override for a tool the server does not offer', async () => {
    const err = await caught(startServers([fixtureSpec('fx', [], { overrides: { nope: { confirm: true } } })]));
    expect(err.code).toBe('config');
    expect(err.message).toMatch(/^MCP server "fx": overrides: names "nope", which the server does not offer/);
  });

  it('refuses a tool whose exposed name breaks ^[a-zA-Z0-9_-]{1,64}$, unless tools: leaves it out', async () => {
    const err = await caught(startServers([fixtureSpec('fx', ['--bad-name'])]));
    expect(err).toMatchObject({
      code: 'config',
      message:
        'MCP server "fx": its tool "bad.name" would reach the model as "mcp__fx__bad.name", which breaks the model APIs\' rule for tool names ' +
        '(letters, digits, _ and -, at most 64 characters); leave it out with a tools: list, or give the server a shorter name',
    });
    const long = 'x'.repeat(50);
    const tooLong = await caught(startServers([fixtureSpec(long, [], { tools: ['delete_thing'] })]));
    expect(tooLong.message).toContain(`would reach the model as "mcp__${long}__delete_thing"`);
    const filtered = await startServers([fixtureSpec('fx', ['--bad-name'], { tools: ['echo'] })]);
    try {
      expect(filtered.servers[0]!.hidden).toContain('bad.name');
      expect(filtered.tools.map((t) => t.definition.name)).toEqual(['mcp__fx__echo']);
    } finally {
      await filtered.close();
    }
  });

  it('reports progress: all pending first, then each server as it comes up', async () => {
    const seen: string[] = [];
    const servers = await startServers([fixtureSpec('a'), fixtureSpec('b')], {
      onProgress: (p) => seen.push(`${p.ready.join(',')}|${p.pending.join(',')}`),
    });
    await servers.close();
    expect(seen[0]).toBe('|a,b');
    expect(seen.at(-1)).toBe('a,b|');
    expect(seen).toHaveLength(3);
  });
});

describe('a result larger than max_output', () => {
  const MB = 1_000_000;
  let servers: McpServers;
  beforeAll(async () => {
    // A timeout far beyond the test's: an answer waited for until it passed would fail the test, not pass it.
    servers = await startServers([fixtureSpec('fx', [], { timeout: 3600, max_output: 1000, overrides: { echo: { max_output: 4 } } })]);
  });
  afterAll(async () => servers?.close());

  const run = (name: string, args: Record<string, unknown>) => servers.tools.find((t) => t.definition.name === `mcp__fx__${name}`)!.run(args, ctx());

  it('is cut to it, and the model told how many bytes were cut, as for a command tool', async () => {
    expect(await run('sized', { bytes: 9 * MB })).toEqual({ content: `${'x'.repeat(1000)}\n[output truncated: ${9 * MB - 1000} more bytes]`, isError: false });
  });

  it('is cut on a character boundary', async () => {
    // 333 three-byte characters leave one byte of room: the cut is before the next one, not inside it.
    const out = await run('sized', { bytes: 1500, text: '€' });
    expect(out.content).toBe(`${'€'.repeat(333)}\n[output truncated: 501 more bytes]`);
  });

  it('is the override’s for a tool that has one', async () => {
    expect((await run('echo', { text: 'hello' })).content).toBe('echo\n[output truncated: 7 more bytes]');
  });

  it('is an error result at once when the answer is too long to read at all, naming its size; the server stays usable', async () => {
    const out = await run('sized', { bytes: 11 * MB });
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(
      /^mcp__fx__sized: MCP server "fx" answered, but it sent a message of 10\.5 MiB \(110000\d\d bytes\), more than the 10\.0 MiB a message from a server may be, so the answer was not read and the call was cancelled; ask for less at a time$/,
    );
    expect(await run('sized', { bytes: 10 })).toEqual({ content: 'x'.repeat(10), isError: false });
  });
});
