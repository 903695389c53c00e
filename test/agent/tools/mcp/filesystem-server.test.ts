/**
 * The reference filesystem server from npm, over stdio, confined to a temp dir,
 * driven through the Tool objects and a ToolRegistry as a run would drive them.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServers } from '../../../../src/agent/tools/mcp/index.js';
import { ToolRegistry } from '../../../../src/agent/tools/registry.js';
import { tempDir } from '../../../helpers/tmp.js';
import { alive, filesystemSpec, gone, input, startServers } from '../../../helpers/mcp/specs.js';

const ctx = () => ({ signal: new AbortController().signal });

describe('the reference filesystem server over stdio', () => {
  let sandbox: string;
  let outside: string;
  let servers: McpServers;
  let registry: ToolRegistry;

  beforeAll(async () => {
    sandbox = tempDir('logbook-mcp-fs-');
    outside = tempDir('logbook-mcp-outside-');
    writeFileSync(join(outside, 'secret.txt'), 'not for the model');
    mkdirSync(join(sandbox, 'notes'));
    writeFileSync(join(sandbox, 'notes', 'todo.txt'), 'water the plants\n');
    servers = await startServers([filesystemSpec('fs', sandbox)]);
    registry = new ToolRegistry(servers.tools);
  });
  afterAll(async () => servers?.close());

  it('lists its tools as mcp__fs__<tool>, with the description and input schema it reports', () => {
    const names = registry.definitions().map((d) => d.name);
    expect(names).toEqual(expect.arrayContaining(['mcp__fs__read_text_file', 'mcp__fs__write_file', 'mcp__fs__list_directory', 'mcp__fs__edit_file']));
    expect(names.every((n) => n.startsWith('mcp__fs__'))).toBe(true);
    const write = registry.definitions().find((d) => d.name === 'mcp__fs__write_file')!;
    expect(write.description).toMatch(/write/i);
    expect(write.input_schema).toMatchObject({ type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'] });
  });

  it('reads a file and lists a directory', async () => {
    const read = await registry.run('mcp__fs__read_text_file', input({ path: join(sandbox, 'notes', 'todo.txt') }), ctx());
    expect(read).toEqual({ content: 'water the plants\n', isError: false });
    const listing = await registry.run('mcp__fs__list_directory', input({ path: sandbox }), ctx());
    expect(listing).toEqual({ content: '[DIR] notes', isError: false });
  });

  it('writes a file that really lands on disk', async () => {
    const target = join(sandbox, 'notes', 'done.txt');
    const out = await registry.run('mcp__fs__write_file', input({ path: target, content: 'fed the cat\n' }), ctx());
    expect(out.isError).toBe(false);
    expect(out.content).toContain(target);
    expect(readFileSync(target, 'utf8')).toBe('fed the cat\n');
    const back = await registry.run('mcp__fs__read_text_file', input({ path: target }), ctx());
    expect(back.content).toBe('fed the cat\n');
  });

  it('keeps the error flag of a call the server refuses (a path outside its directory)', async () => {
    const out = await registry.run('mcp__fs__read_text_file', input({ path: join(outside, 'secret.txt') }), ctx());
    expect(out.isError).toBe(true);
    expect(out.content).toMatch(/access denied/i);
    expect(out.content).not.toContain('not for the model');
    const write = await registry.run('mcp__fs__write_file', input({ path: join(outside, 'planted.txt'), content: 'x' }), ctx());
    expect(write.isError).toBe(true);
    expect(existsSync(join(outside, 'planted.txt'))).toBe(false);
  });

  it('derives each tool policy from its annotations', () => {
    const policy = (name: string) => servers.tools.find((t) => t.listed.name === name)!.policy;
    expect(policy('read_text_file')).toEqual({ confirm: false, sideEffects: false }); // readOnlyHint
    expect(policy('write_file')).toEqual({ confirm: false, sideEffects: false }); // idempotentHint
    expect(policy('edit_file')).toEqual({ confirm: false, sideEffects: true }); // destructive, not idempotent
    expect(policy('move_file')).toEqual({ confirm: false, sideEffects: true });
  });

  it('stops the server process on close', async () => {
    const own = tempDir('logbook-mcp-fs-close-');
    const started = await startServers([filesystemSpec('fs2', own)]);
    // The server (and tether, its keeper, where there is one): the processes naming this directory.
    const pids = execFileSync('pgrep', ['-f', own]).toString().trim().split('\n').map(Number);
    expect(pids.length).toBeGreaterThanOrEqual(1);
    expect(pids.every(alive)).toBe(true);
    await started.close();
    for (const pid of pids) expect(await gone(pid)).toBe(true);
  });
});
