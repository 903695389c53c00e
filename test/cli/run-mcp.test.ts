/**
 * MCP tool servers in `logbook run`, through the real binary, against real
 * servers (the reference filesystem server over stdio, an SDK-built Streamable
 * HTTP server, the SDK-built fixture), with the model played by the local
 * Messages API server: the calls and results journaled, the tool set in the
 * fingerprint (a changed one refused with the tools named, unless --force), a
 * server that dies mid-call suspending the run, and one that never starts. The
 * tools' annotations decide what a resume after a SIGKILL inside a call may run
 * again: an unannotated tool (destructive, by the protocol's defaults) only when
 * asked to, a read-only one freely.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileStore } from '../../src/index.js';
import { finished, runCli, spawnCli, type CliResult } from '../helpers/cli.js';
import { rawJson, useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { startHttpMcpServer, type HttpMcpServer } from '../helpers/mcp/http-server.js';
import { FILESYSTEM_SERVER, FIXTURE_SERVER } from '../helpers/mcp/specs.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-run-mcp-');
const files = join(dir, 'files');
const stateDir = join(dir, 'state');
const store = new FileStore(join(stateDir, 'runs'));
const api = useFakeAnthropic();
let http: HttpMcpServer;

beforeAll(async () => {
  mkdirSync(files);
  writeFileSync(join(files, 'hello.txt'), 'Hello from disk.\n');
  http = await startHttpMcpServer({ header: { name: 'authorization', value: 'Bearer sesame' } });
});
afterAll(async () => {
  await http.close();
});

/** A config with the anthropic provider (the local server) and these MCP servers. */
function config(name: string, mcp: string): string {
  const path = join(dir, `${name}.yaml`);
  writeFileSync(path, `provider: anthropic\nmodel: claude-test\nmcp:\n${mcp}`);
  return path;
}

const fs = (extra = '') => `  - { name: fs, command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(FILESYSTEM_SERVER)}, ${JSON.stringify(files)}]${extra} }\n`;

function run(cfg: string, args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runCli(['run', '--config', cfg, '--state-dir', stateDir, ...args], {
    cwd: dir,
    env: { ANTHROPIC_BASE_URL: api.origin, ANTHROPIC_API_KEY: 'k', LOGBOOK_PROVIDER_MAX_RETRIES: '0', ...env },
    timeoutMs: 60_000,
  });
}

const call = (id: string, name: string, input: string) => ({ type: 'tool_use', id, name, input: rawJson(input) });

/** The tool results the model was sent in request `i`. */
function resultsSent(i: number): { tool_use_id: string; content: unknown; is_error?: boolean }[] {
  const messages = (api.requests[i]!.json as { messages: { content: { type: string }[] }[] }).messages;
  return messages.at(-1)!.content.filter((b) => b.type === 'tool_result') as never;
}

describe('logbook run with MCP servers', () => {
  it('lists, reads and writes through the reference filesystem server; the journal holds every call and result', async () => {
    api.reset();
    const target = join(files, 'out.txt');
    api.reply(
      { message: { content: [call('t1', 'mcp__fs__list_directory', JSON.stringify({ path: files })), call('t2', 'mcp__fs__read_text_file', JSON.stringify({ path: join(files, 'hello.txt') }))] } },
      { message: { content: [call('t3', 'mcp__fs__write_file', JSON.stringify({ path: target, content: 'written by the model' }))] } },
      { message: { content: [{ type: 'text', text: 'Read and wrote.' }] } },
    );
    const r = await run(config('fs', fs()), ['--name', 'fsrun', 'Look around and write a file.']);
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('Read and wrote.\n');
    expect(readFileSync(target, 'utf8')).toBe('written by the model');
    const tools = (api.requests[0]!.json as { tools: { name: string }[] }).tools.map((t) => t.name);
    expect(tools).toEqual(expect.arrayContaining(['mcp__fs__list_directory', 'mcp__fs__read_text_file', 'mcp__fs__write_file']));
    expect(resultsSent(1).map((b) => String(b.content))).toEqual([expect.stringContaining('hello.txt'), 'Hello from disk.\n']);
    const { records } = await store.load('fsrun');
    const results = records.flatMap((x) => ('tool_result' in x ? [x.tool_result] : []));
    expect(results.map((x) => x.tool_use_id)).toEqual(['t1', 't2', 't3']);
    expect(results[1]!.result.content).toBe('Hello from disk.\n');
  });

  it('calls a Streamable HTTP server, with a header taken from the environment', async () => {
    api.reset();
    api.reply({ message: { content: [call('h1', 'mcp__web__add', '{"a":2,"b":40}')] } }, { message: { content: [{ type: 'text', text: '42.' }] } });
    const cfg = config('web', `  - { name: web, url: ${JSON.stringify(http.url)}, headers: { authorization: "Bearer \${WEB_TOKEN}" } }\n`);
    const r = await run(cfg, ['--name', 'webrun', 'Add them.'], { WEB_TOKEN: 'sesame' });
    expect(r.code).toBe(0);
    expect(resultsSent(1)).toEqual([expect.objectContaining({ tool_use_id: 'h1', content: '42' })]);
  });

  it('refuses a resume after the exposed tool set changed, naming the tools, and goes on with --force', async () => {
    api.reset();
    api.reply({ message: { content: [call('s1', 'mcp__fs__read_text_file', JSON.stringify({ path: join(files, 'hello.txt') }))] } }, { message: { content: [{ type: 'text', text: 'Read.' }] } });
    const full = config('full', fs());
    expect((await run(full, ['--chat', '--name', 'shrunk', 'Read it.'], {})).code).toBe(0);
    const narrow = config('narrow', fs(', tools: [read_text_file, list_directory]'));
    const refused = await run(narrow, ['--resume', 'shrunk', 'again?']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^logbook: run shrunk was written with a different configuration \(tool set: changed \(.*mcp__fs__write_file removed.*\)\); restore it, or pass --force/m);
    api.reply({ message: { content: [{ type: 'text', text: 'Again.' }] } });
    const forced = await run(narrow, ['--resume', 'shrunk', '--force', 'again?']);
    expect(forced.code).toBe(0);
  });

  it('suspends the run when a server dies mid-call, naming it and the tail of its stderr; a resume goes on', async () => {
    api.reset();
    api.reply({ message: { content: [call('c1', 'mcp__fx__crash', '{}')] } });
    const cfg = config('crashy', `  - { name: fx, command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(FIXTURE_SERVER)}] }\n`);
    const r = await run(cfg, ['--name', 'crashed', 'Crash it.']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^logbook: MCP server "fx" .*segmentation fault.*; resume with: logbook run --resume crashed --config /m);
    const { state } = await store.load('crashed');
    expect(state.terminal?.reason).toBe('suspended');
    expect(state.pending?.answered).toEqual([]);
  });

  it('journals a 9 MB result cut to max_output (the model told so), and an 11 MB one as an error result naming its size, at once', async () => {
    api.reset();
    api.reply(
      { message: { content: [call('big', 'mcp__fx__sized', '{"bytes":9000000}'), call('huge', 'mcp__fx__sized', '{"bytes":11000000}')] } },
      { message: { content: [{ type: 'text', text: 'Too much.' }] } },
    );
    // A call timeout far beyond the test's bound: a result waited for until it ran out would fail the test.
    const cfg = config('sized', `  - { name: fx, command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(FIXTURE_SERVER)}], timeout: 3600 }\n`);
    const r = await run(cfg, ['--name', 'sized', 'Read it all.']);
    expect(r.stderr).not.toMatch(/^logbook:/m);
    expect(r.code).toBe(0);
    const { state } = await store.load('sized');
    const [big, huge] = state.messages[2]!.content.map((b) => ('tool_result' in b ? b.tool_result : null));
    expect(big).toEqual({ tool_use_id: 'big', content: `${'x'.repeat(100_000)}\n[output truncated: 8900000 more bytes]` });
    expect(huge?.is_error).toBe(true);
    expect(huge?.content).toMatch(/^mcp__fx__sized: MCP server "fx" answered, but it sent a message of 10\.5 MiB \(110000\d\d bytes\), more than the 10\.0 MiB/);
    expect(resultsSent(1).map((b) => b.content)).toEqual([big!.content, huge!.content]);
    expect(readFileSync(join(stateDir, 'runs', 'sized.jsonl'), 'utf8').length).toBeLessThan(200_000);
  });

  it('says in one line which server never started, and journals nothing', async () => {
    const cfg = config('broken', '  - { name: nope, command: [/nonexistent/mcp-server] }\n');
    const r = await run(cfg, ['--name', 'never', 'hi']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^logbook: MCP server "nope" did not start: /);
    expect((await store.list()).map((x) => x.runId)).not.toContain('never');
  });

  describe('SIGKILL inside a call, then a resume', () => {
    const marker = join(dir, 'marker');
    const fixture = () => config('marked', `  - { name: fx, command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(FIXTURE_SERVER)}, --marker, ${JSON.stringify(marker)}] }\n`);
    const marks = (): string[] => (existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean) : []);

    /** Starts run `id`, whose model calls `tool`, and SIGKILLs logbook once the call is inside the server. */
    async function killedInside(id: string, tool: string): Promise<string> {
      writeFileSync(marker, '');
      api.reset();
      api.reply({ message: { content: [call('k1', `mcp__fx__${tool}`, '{}')] } });
      const cfg = fixture();
      const child = spawnCli(['run', '--config', cfg, '--state-dir', stateDir, '--name', id, 'Go.'], {
        cwd: dir,
        env: { ANTHROPIC_BASE_URL: api.origin, ANTHROPIC_API_KEY: 'k', LOGBOOK_PROVIDER_MAX_RETRIES: '0' },
      });
      const done = finished(child, 60_000);
      for (let i = 0; i < 600 && marks().length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(marks()).toEqual([tool]);
      child.kill('SIGKILL');
      expect((await done).signal).toBe('SIGKILL');
      const { state } = await store.load(id);
      expect(state.status).toBe('open');
      expect(state.pending?.answered).toEqual([]);
      return cfg;
    }

    it('of an unannotated tool: refused without a terminal, naming the call; --skip answers it without running it', async () => {
      const cfg = await killedInside('unannotated', 'write_note');
      const refused = await run(cfg, ['--resume', 'unannotated']);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^logbook: run unannotated stopped while call k1 \(mcp__fx__write_note\) may have been running.*--rerun k1.*--skip k1/m);
      expect(marks()).toEqual(['write_note']);
      expect((await store.load('unannotated')).records).toHaveLength(2);

      api.reply({ message: { content: [{ type: 'text', text: 'Noted.' }] } });
      const skipped = await run(cfg, ['--resume', 'unannotated', '--skip', 'k1']);
      expect(skipped.code).toBe(0);
      expect(marks()).toEqual(['write_note']);
      expect(resultsSent(api.requests.length - 1)).toEqual([
        expect.objectContaining({ tool_use_id: 'k1', is_error: true, content: expect.stringMatching(/not re-run after an interruption/) }),
      ]);
    });

    it('of an unannotated tool: --rerun runs it once more', async () => {
      const cfg = await killedInside('rerun', 'write_note');
      api.reply({ message: { content: [{ type: 'text', text: 'Noted.' }] } });
      const again = await run(cfg, ['--resume', 'rerun', '--rerun', 'k1']);
      expect(again.code).toBe(0);
      expect(marks()).toEqual(['write_note', 'write_note']);
      expect(resultsSent(api.requests.length - 1)).toEqual([expect.objectContaining({ tool_use_id: 'k1', content: 'write_note done' })]);
    });

    it('of a read-only tool: the resume runs it again without asking', async () => {
      const cfg = await killedInside('read-only', 'read_note');
      api.reply({ message: { content: [{ type: 'text', text: 'Read.' }] } });
      const resumed = await run(cfg, ['--resume', 'read-only']);
      expect(resumed.stderr).not.toMatch(/^logbook:/m);
      expect(resumed.code).toBe(0);
      expect(marks()).toEqual(['read_note', 'read_note']);
      expect((await store.load('read-only')).state.status).toBe('completed');
    });
  });
});
