/**
 * Every file shipped in examples/ loads and runs through the real binary: each
 * config against the server its provider talks to (the local Messages and Chat
 * Completions servers, a nats-server started here for the JetStream backend, the
 * script provider as is), with every tool it declares called and succeeding. A
 * turns file counts as covered when a config that runs plays it. A new file
 * that this test cannot place fails it, so no example goes unchecked.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseDocument } from 'yaml';
import { CommandTool } from '../../src/agent/tools/command-tool.js';
import { loadConfig } from '../../src/config/config.js';
import { RawJson } from '../../src/index.js';
import { type FakeBlock, type RecordedRequest, useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { useFakeOpenAI } from '../helpers/fake-openai.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { addStream, journalStream } from '../helpers/jetstream.js';
import { useNatsServer } from '../helpers/nats-server.js';
import { tempDir } from '../helpers/tmp.js';

const ROOT = resolve(__dirname, '../..');
const EXAMPLES = join(ROOT, 'examples');

/** examples/embed holds programs, not configs: test/examples/embed.test.ts runs them. */
const PROGRAMS = join(EXAMPLES, 'embed');

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (path === PROGRAMS) return [];
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

type Example = { file: string; name: string; yaml: Record<string, any> };
const examples: Example[] = filesUnder(EXAMPLES)
  .filter((file) => /\.ya?ml$/.test(file))
  .map((file) => ({ file, name: relative(EXAMPLES, file), yaml: parse(readFileSync(file, 'utf8')) as Record<string, any> }));
const configs = examples.filter((e) => e.yaml?.provider !== undefined);

type McpServer = { name: string; command?: string[]; cwd?: string };

/**
 * The directories an example's MCP servers are given on their command line
 * (`./notes`), relative to the example: a run works on copies of them, so the
 * tools' writes never touch the repository.
 */
function mcpDirectories(example: Example): string[] {
  return ((example.yaml.mcp ?? []) as McpServer[]).flatMap((server) => {
    const cwd = resolve(dirname(example.file), server.cwd ?? '.');
    return (server.command ?? [])
      .filter((arg) => arg.startsWith('.') && existsSync(resolve(cwd, arg)) && statSync(resolve(cwd, arg)).isDirectory())
      .map((arg) => relative(dirname(example.file), resolve(cwd, arg)));
  });
}

/** Every file in examples/ that is not YAML is data an example's MCP server works on. */
const dataFiles = filesUnder(EXAMPLES).filter((file) => !/\.ya?ml$/.test(file));

/**
 * Arguments for each tool the examples declare, run from the repository root
 * (the examples' tools look at src/ and package.json). A new example tool needs
 * an entry here.
 */
const CALLS: Record<string, Record<string, unknown>> = {
  list_files: { path: 'src' },
  read_file: { path: 'package.json' },
  grep: { pattern: 'logbook', path: 'package.json' },
  largest_files: { path: 'src' },
  disk_usage: { path: 'src' },
  count_lines: { file: 'package.json' },
  commit: { message: 'Commit made by the examples test' },
  // examples/mcp.yaml, on a copy of examples/notes
  mcp__notes__read_text_file: { path: 'README.md' },
  mcp__notes__list_directory: { path: '.' },
  mcp__notes__write_file: { path: 'added.md', content: '# Added\n' },
  mcp__notes__edit_file: { path: 'README.md', edits: [{ oldText: '# Notes', newText: '# Notes kept' }] },
};

const state = tempDir('logbook-examples-');
const nats = useNatsServer();
const anthropic = useFakeAnthropic();
const openai = useFakeOpenAI();

/**
 * The example with only these keys changed (its relative `script` made
 * absolute), written to a temp dir beside copies of its MCP servers' directories.
 */
function derived(example: Example, changes: [string[], unknown][]): string {
  const doc = parseDocument(readFileSync(example.file, 'utf8'));
  for (const [path, value] of changes) doc.setIn(path, value);
  const script = doc.get('script');
  if (typeof script === 'string') doc.set('script', resolve(dirname(example.file), script));
  const out = join(tempDir(), basename(example.file));
  writeFileSync(out, String(doc));
  for (const dir of mcpDirectories(example)) cpSync(join(dirname(example.file), dir), join(dirname(out), dir), { recursive: true });
  return out;
}

/** `npx [-y] PACKAGE ARGS...` as the checkout's own bin of PACKAGE, given ARGS. */
function localBin(npxArgs: string[]): string[] {
  const [spec, ...args] = npxArgs.filter((a) => a !== '-y' && a !== '--yes');
  const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules', spec!, 'package.json'), 'utf8')) as { bin: string | Record<string, string> };
  const bin = typeof pkg.bin === 'string' ? pkg.bin : Object.values(pkg.bin)[0]!;
  return [process.execPath, join(ROOT, 'node_modules', spec!, bin), ...args];
}

/** Names of the tools a request offered, in the request's own shape. */
function offeredTools(req: RecordedRequest): string[] {
  return ((req.json?.tools ?? []) as { name?: string; function?: { name: string } }[]).map((t) => t.name ?? t.function!.name);
}

/** A git repository with one file staged, for a tool that commits. */
function scratchRepository(): string {
  const repo = tempDir();
  const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { stdio: 'pipe' });
  git('init', '-q');
  git('config', 'user.email', 'examples@logbook.test');
  git('config', 'user.name', 'examples');
  writeFileSync(join(repo, 'staged.txt'), 'staged\n');
  git('add', 'staged.txt');
  return repo;
}

function argumentsFor(tool: string): Record<string, unknown> {
  const args = CALLS[tool];
  if (args === undefined) throw new Error(`no arguments for example tool "${tool}": add it to CALLS in this test`);
  return args;
}

/** First request: call every tool offered; then answer. */
function anthropicModel(req: RecordedRequest): { message: { content: FakeBlock[] } } {
  if (anthropic.requests.length > 1) return { message: { content: [{ type: 'text', text: 'Done.' }] } };
  const calls = offeredTools(req).map((name, i) => ({ type: 'tool_use', id: `toolu_${i}`, name, input: argumentsFor(name) }));
  return { message: { content: [{ type: 'text', text: 'Looking.' }, ...calls] } };
}

function openaiModel(req: RecordedRequest) {
  if (openai.requests.length > 1) return { chat: { content: 'Done.' } };
  const calls = offeredTools(req).map((name, i) => ({ id: `call_${i}`, name, arguments: JSON.stringify(argumentsFor(name)) }));
  return { chat: { content: 'Looking.', tool_calls: calls } };
}

interface ShownBlock {
  tool_use?: { id: string; name: string };
  tool_result?: { tool_use_id: string; content: string; is_error?: boolean };
}

/** The run's end and each tool call's name and result, read back through `session show --json`. */
async function toolRuns(config: string, id: string): Promise<{ terminal: unknown; calls: { name: string; content: string; is_error?: boolean }[] }> {
  const shown = await runCli(['session', 'show', id, '--json', '--config', config, '--state-dir', state], { cwd: ROOT });
  expect(shown.stderr).toBe('');
  const run = JSON.parse(shown.stdout) as { terminal: unknown; messages: { content: ShownBlock[] }[] };
  const blocks = run.messages.flatMap((m) => m.content);
  const names = new Map(blocks.flatMap((b) => (b.tool_use ? [[b.tool_use.id, b.tool_use.name] as const] : [])));
  const calls = blocks.flatMap((b) => (b.tool_result ? [{ ...b.tool_result, name: names.get(b.tool_result.tool_use_id)! }] : []));
  return { terminal: run.terminal, calls };
}

function expectClean(r: CliResult): void {
  expect(r.stderr).not.toMatch(/^logbook:/m);
  expect(r.code).toBe(0);
}

describe('every file in examples/', () => {
  it('is a config this test runs, or a turns file such a config plays', () => {
    const played = new Set(configs.filter((c) => c.yaml.script).map((c) => resolve(dirname(c.file), c.yaml.script)));
    for (const e of examples) {
      if (configs.includes(e)) continue;
      expect(Array.isArray(e.yaml?.turns) && played.has(e.file), `${e.name}: neither a config nor a played turns file`).toBe(true);
    }
    expect(configs.map((c) => c.name).sort()).toEqual(
      expect.arrayContaining(['anthropic.yaml', 'demo/agent.yaml', 'jetstream.yaml', 'mcp.yaml', 'openai.yaml', 'script.yaml']),
    );
    const served = configs.flatMap((c) => mcpDirectories(c).map((dir) => resolve(dirname(c.file), dir)));
    for (const file of dataFiles) {
      expect(served.some((dir) => file.startsWith(`${dir}/`)), `${relative(EXAMPLES, file)}: not YAML, and no example's MCP server works on it`).toBe(true);
    }
  });

  it.each(configs.map((c) => [c.name, c] as const))('%s runs, and every tool it declares succeeds', async (name, example) => {
    const id = `ex-${name.replace(/[^a-z0-9]+/gi, '-')}`;
    const declared = [
      ...((example.yaml.tools ?? []) as { name: string }[]).map((t) => t.name),
      ...((example.yaml.mcp ?? []) as { name: string; tools: string[] }[]).flatMap((s) => s.tools.map((t) => `mcp__${s.name}__${t}`)),
    ];
    const changes: [string[], unknown][] = [];
    // A tool with side effects (the commit example) acts on a scratch repository, never on this one.
    const scratch = new Map<string, string>();
    ((example.yaml.tools ?? []) as { name: string; side_effects?: boolean }[]).forEach((t, i) => {
      if (t.side_effects !== true) return;
      scratch.set(t.name, scratchRepository());
      changes.push([['tools', i, 'cwd'] as unknown as string[], scratch.get(t.name)]);
    });
    const env: Record<string, string> = { LOGBOOK_PROVIDER_MAX_RETRIES: '0' };
    if (example.yaml.session?.backend === 'jetstream') {
      if (!nats.enabled) return;
      // The stream as the example's own comment says to create it.
      const subjects = /--subjects '([^']+)\.>'/.exec(readFileSync(example.file, 'utf8'));
      expect(subjects, `${name} shows the nats stream add line`).not.toBeNull();
      await addStream(nats.server().url, journalStream(example.yaml.session.options.stream, subjects![1]!));
      changes.push([['nats', 'url'], nats.server().url]);
    }
    switch (example.yaml.provider) {
      case 'anthropic':
        anthropic.reset();
        anthropic.handler = anthropicModel;
        Object.assign(env, { ANTHROPIC_BASE_URL: anthropic.url, ANTHROPIC_API_KEY: 'test-key' });
        break;
      case 'openai':
        openai.reset();
        openai.handler = openaiModel;
        changes.push([['base_url'], openai.url]);
        break;
      case 'script':
        break;
      default:
        throw new Error(`${name}: no server for provider ${example.yaml.provider}`);
    }
    // A server started with npx comes from this checkout's node_modules (a dev dependency), never the network:
    // its package's own bin, since npx run from the config's copy outside the checkout would look in npm's cache.
    ((example.yaml.mcp ?? []) as McpServer[]).forEach((server, i) => {
      if (server.command?.[0] === 'npx') changes.push([['mcp', i, 'command'] as unknown as string[], localBin(server.command.slice(1))]);
    });
    const config = changes.length > 0 || mcpDirectories(example).length > 0 ? derived(example, changes) : example.file;
    // --yes: the calls of tools with confirm: true are approved, as a person at a terminal would.
    const run = await runCli(['run', '--config', config, '--state-dir', state, '--name', id, '--yes', 'What is in this repository?'], { cwd: ROOT, env, timeoutMs: 120_000 });
    expectClean(run);
    expect(run.stdout.trim()).not.toBe('');
    if (example.yaml.provider === 'anthropic') expect(offeredTools(anthropic.requests[0]!).sort()).toEqual([...declared].sort());
    if (example.yaml.provider === 'openai') expect(offeredTools(openai.requests[0]!).sort()).toEqual([...declared].sort());

    const { terminal, calls } = await toolRuns(config, id);
    expect(terminal).toEqual({ reason: 'completed' });
    // The API servers call every tool offered; a turns file must call every tool its configs declare.
    expect(calls.map((c) => c.name).sort()).toEqual([...declared].sort());
    for (const c of calls) {
      expect(c.is_error, `${c.name}: ${c.content}`).toBeUndefined();
      if (c.name.startsWith('mcp__')) continue;
      const body = JSON.parse(c.content) as { command: string[]; exit_code: number; output: string };
      expect(body.exit_code, `${body.command.join(' ')}: ${body.output}`).toBe(0);
    }
    for (const [tool, repo] of scratch) {
      expect(execFileSync('git', ['-C', repo, 'log', '--format=%s'], { encoding: 'utf8' }), tool).toBe(`${CALLS[tool]!.message}\n`);
    }
    if (mcpDirectories(example).length > 0) {
      const notes = join(dirname(config), 'notes');
      expect(readFileSync(join(notes, 'added.md'), 'utf8')).toBe('# Added\n');
      expect(readFileSync(join(notes, 'README.md'), 'utf8')).toMatch(/^# Notes kept\n/);
      expect(readFileSync(join(EXAMPLES, 'notes', 'README.md'), 'utf8')).toMatch(/^# Notes\n/);
    }
  }, 150_000);
});

describe('the example tools', () => {
  it.each(configs.map((c) => [c.name, c] as const))('%s: a value beginning with "-" never becomes an option', async (name, example) => {
    for (const spec of loadConfig(example.file).tools) {
      const cwd = tempDir();
      writeFileSync(join(cwd, 'canary'), 'kept');
      const params = Object.keys((spec.input_schema as { properties?: object }).properties ?? {});
      const input = Object.fromEntries(params.map((p) => [p, '-delete']));
      const out = await new CommandTool({ ...spec, cwd }, { env: process.env }).run(input, { signal: new AbortController().signal }, RawJson.fromValue(input));
      expect(existsSync(join(cwd, 'canary')), `${name}: ${spec.name}`).toBe(true);
      if (spec.allow_leading_dash !== true) {
        expect(JSON.parse(out.content).error, `${name}: ${spec.name}`).toMatch(/^not run: /);
        continue;
      }
      // Allowed only where the program cannot read the value as an option: after
      // "--", or as the argument of the option just before it (grep -e PATTERN).
      spec.command.forEach((element, i) => {
        if (!/^\{\{.*\}\}$/.test(element)) return;
        const guarded = spec.command.slice(1, i).includes('--') || spec.command[i - 1]!.startsWith('-');
        expect(guarded, `${name}: ${spec.name}: command[${i}] ${element} is neither after "--" nor an option's argument`).toBe(true);
      });
    }
  });
});
