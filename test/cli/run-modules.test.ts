/**
 * What a run loads is what it uses: with a plain config (the anthropic
 * provider, a command tool), on no terminal, a run loads neither
 * OpenTelemetry, NATS, MCP, the A2A code, the price table, Ink, the Markdown
 * renderer, the text measuring packages nor Ajv (its tool's schema is compiled
 * when the tool is first called, and it is not); its follow-up, which weighs a
 * compaction before its request, reads the price table's context window and
 * nothing else of those. That window is kept in the state directory
 * (context-windows.json): a resume of a run that weighed a compaction takes it
 * from there and loads no price table. A start whose config is unchanged
 * since the last takes it, checked, from the config cache: it loads no YAML.
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { anthropicErrors, useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { FIXTURES_DIR } from '../helpers/fixtures.js';
import { loadedSources, loadProbe } from '../helpers/load-probe.js';
import { tempDir } from '../helpers/tmp.js';

const anthropic = useFakeAnthropic();

const UNUSED_PACKAGES = /dist\/vendor\/otel-sdk\.mjs|node_modules\/(@opentelemetry|@nats-io|@modelcontextprotocol|@pydantic\/genai-prices|ink|react|yoga-layout|markdown-it|string-width|wrap-ansi|openai)\//;
/** The modules that do the work of OpenTelemetry, A2A, tasks, MCP and remote tools, the viewers and Markdown (their settings' specs are part of every config's check). */
const UNUSED_MODULES =
  /src\/(otel\/(live|spans|trace-context)|a2a\/(client|service|task-events|schemas|decode|encode|directory)|agent\/tasks\/(server|caller|wire|agent-tool|streams)|agent\/tools\/mcp\/(connection|mcp-tool|server-process)|agent\/tools\/remote\/(import|remote-tool|start)|cli\/a2a\/(ask|serve|tasks|task-view|agents)|cli\/(viewer|picker)\/|render\/markdown)\.tsx?/;

/** Ajv, bundled or not (its small runtime helpers, which the build's standalone validators require, aside): only a tool's first call (or a schema whose compile may fail, checked at start) loads it. */
const AJV = /dist\/vendor\/ajv\.cjs|node_modules\/ajv\/(?!dist\/runtime\/)/;

/** WebCrypto, which node:crypto (loaded by every run: hashes) spares a run: a temporary file's random name is node:crypto's too. */
const WEBCRYPTO = /^builtin:internal\/crypto\/web(crypto|idl)$/m;

/** The ES module files of dist/ that a probe's log names, each chunk by its name without the build's hash. */
function esModuleFiles(loaded: string): string[] {
  const dist = `${pathToFileURL(resolve(import.meta.dirname, '../../dist')).href}/`;
  const files = loaded.split('\n').filter((url) => url.startsWith(dist) && /\.m?js$/.test(url));
  return [...new Set(files.map((url) => url.slice(dist.length).replace(/-[\w-]{8}\.js$/, '.js')))].sort();
}

/** A directory with a state directory and an anthropic config of one command tool, the fake Messages API reset for it. */
function anthropicRun(): { dir: string; state: string; config: string; env: Record<string, string> } {
  const dir = tempDir();
  const state = join(dir, 'state');
  const config = join(dir, 'agent.yaml');
  writeFileSync(
    config,
    `provider: anthropic\nmodel: claude-sonnet-4-5\nmax_tokens: 1024\ntools:\n  - name: echo\n    description: Print its text\n    input_schema: { type: object, properties: { text: { type: string } } }\n    command: [echo, "{{text}}"]\n`,
  );
  anthropic.reset();
  return { dir, state, config, env: { ANTHROPIC_BASE_URL: anthropic.origin, ANTHROPIC_API_KEY: 'test-key' } };
}

describe('the modules a run loads', () => {
  it('are those it uses: no OpenTelemetry, NATS, MCP, A2A, price table, Ink or Markdown, in a run and its resume', async () => {
    const { dir, state, config, env } = anthropicRun();
    anthropic.reply({ message: { content: [{ type: 'text', text: 'It said hi.' }], usage: { input_tokens: 50_000, output_tokens: 10 } } });
    const runLog = join(dir, 'run.txt');
    const run = await runCli(['run', '--config', config, '--state-dir', state, '--name', 'm1', 'say hi'], { cwd: dir, env: { ...env, ...loadProbe(runLog) } });
    expect(run.stderr).not.toMatch(/^logbook:/m);
    expect(run).toMatchObject({ code: 0, stdout: 'It said hi.\n' });
    const loaded = loadedSources(runLog);
    expect(loaded).toMatch(/src\/agent\/providers\/anthropic\.ts/); // the probe sees what loads
    expect(loaded).toMatch(/dist\/vendor\/yaml\.cjs/); // and what is required
    expect(loaded.split('\n').filter((l) => UNUSED_PACKAGES.test(l))).toEqual([]);
    expect(loaded.split('\n').filter((l) => UNUSED_MODULES.test(l))).toEqual([]);
    expect(loaded).not.toMatch(AJV);
    expect(loaded).toMatch(/^builtin:internal\/crypto\/random$/m); // the probe sees Node's internal modules
    expect(loaded).not.toMatch(WEBCRYPTO);
    expect(loaded).not.toMatch(/^builtin:readline$/m); // it asks nothing and reads no typed turn
    // Node's builtins are taken with process.getBuiltinModule, the vendored SDK's too: no ES module facade is built for one (but node:module, which gives the SDK its require).
    expect(loaded.split('\n').filter((l) => l.startsWith('node:') && l !== 'node:module')).toEqual([]);
    // Few files: the entry, the start's two chunks, the run's two (what the API shares of it, and the command line's), the provider's and its SDK (each file is resolved, read and linked on its own).
    expect(esModuleFiles(loaded)).toEqual(['cli/main.js', 'common.js', 'command.js', 'agent.js', 'run.js', 'anthropic.js', 'vendor/anthropic-sdk.mjs'].sort());

    // A follow-up goes on from the completed run (as a new run) with its last input known: a compaction is weighed, so the table's window is read.
    anthropic.reply({ message: { content: [{ type: 'text', text: 'Still hi.' }] } });
    const resumeLog = join(dir, 'resume.txt');
    const resumed = await runCli(['run', '--config', config, '--state-dir', state, '--resume', 'm1', 'again'], { cwd: dir, env: { ...env, ...loadProbe(resumeLog) } });
    expect(resumed).toMatchObject({ code: 0, stdout: 'Still hi.\n' });
    const again = loadedSources(resumeLog);
    expect(again).toMatch(/src\/agent\/providers\/anthropic\.ts/);
    expect(again.split('\n').filter((l) => UNUSED_MODULES.test(l))).toEqual([]);
    expect(again).not.toMatch(AJV);
    expect(again).not.toMatch(WEBCRYPTO);
    expect(again).not.toMatch(/^builtin:readline$/m);
    // The same files as the run: nothing of the tasks' code (a run that is no task's has no task note to check).
    expect(esModuleFiles(again)).toEqual(['cli/main.js', 'common.js', 'command.js', 'agent.js', 'run.js', 'anthropic.js', 'vendor/anthropic-sdk.mjs'].sort());
    // Its config, unchanged since the run checked it, is taken as checked from the config cache: neither YAML nor the config's validator loads.
    expect(again).not.toMatch(/dist\/vendor\/yaml\.cjs|dist\/validators\/config\.cjs/);
    // Nor is its tool's schema checked against draft-07 again: that is part of the config's check.
    expect(loaded).toMatch(/dist\/validators\/json-schema-draft-07\.cjs/);
    expect(again).not.toMatch(/dist\/validators\/json-schema-draft-07\.cjs/);
    expect(again).not.toMatch(/dist\/vendor\/otel-sdk\.mjs|node_modules\/(@opentelemetry|@nats-io|@modelcontextprotocol|ink|react|markdown-it|string-width|wrap-ansi|openai)\//);
  });

  it("weigh a resume's compaction without the price table once a run kept the window it gave", async () => {
    const { dir, state, config, env } = anthropicRun();
    // A tool call, then a refused call: the run stops owing its answer, its last input known.
    anthropic.reply(
      { message: { content: [{ type: 'tool_use', id: 'toolu_1', name: 'echo', input: { text: 'hi' } }], usage: { input_tokens: 50_000, output_tokens: 10 } } },
      anthropicErrors.unauthorized(),
    );
    const runLog = join(dir, 'run.txt');
    const run = await runCli(['run', '--config', config, '--state-dir', state, '--name', 'w1', 'say hi'], { cwd: dir, env: { ...env, ...loadProbe(runLog) } });
    expect(run.code).not.toBe(0);
    expect(loadedSources(runLog)).toMatch(/node_modules\/@pydantic\/genai-prices\//); // its second call weighed a compaction
    const kept = JSON.parse(readFileSync(join(state, 'context-windows.json'), 'utf8')) as { windows: Record<string, number | null> };
    expect(kept.windows[JSON.stringify(['anthropic', 'claude-sonnet-4-5', anthropic.origin])]).toBe(200_000);

    anthropic.reply({ message: { content: [{ type: 'text', text: 'Hi.' }] } });
    const resumeLog = join(dir, 'resume.txt');
    const resumed = await runCli(['run', '--config', config, '--state-dir', state, '--resume', 'w1'], { cwd: dir, env: { ...env, ...loadProbe(resumeLog) } });
    expect(resumed).toMatchObject({ code: 0, stdout: 'Hi.\n' });
    expect(loadedSources(resumeLog).split('\n').filter((l) => UNUSED_PACKAGES.test(l))).toEqual([]);

    // With the config cache turned off, the same config is parsed and checked anew.
    anthropic.reply({ message: { content: [{ type: 'text', text: 'Again.' }] } });
    const uncachedLog = join(dir, 'uncached.txt');
    const uncached = await runCli(['run', '--config', config, '--state-dir', state, '--resume', 'w1', 'again'], { cwd: dir, env: { ...env, ...loadProbe(uncachedLog), LOGBOOK_CONFIG_CACHE: '0' } });
    expect(uncached).toMatchObject({ code: 0, stdout: 'Again.\n' });
    expect(loadedSources(uncachedLog)).toMatch(/dist\/vendor\/yaml\.cjs/);
  });
});

describe('the ES modules of the build', () => {
  it('are ASCII, so each decodes to a string of one byte a character, quicker to parse', () => {
    const dist = resolve(import.meta.dirname, '../../dist');
    const modules = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((p) => /\.m?js$/.test(p));
    expect(modules).toContain('vendor/anthropic-sdk.mjs');
    expect(modules.filter((p) => /[^\x00-\x7f]/.test(readFileSync(join(dist, p), 'utf8')))).toEqual([]);
  });
});

describe('the modules `session show` loads', () => {
  it("are neither of a run's chunks, nor the NATS client, the JetStream store or the A2A wire, with a config or without", async () => {
    const { dir, state, config } = anthropicRun();
    mkdirSync(join(state, 'runs'), { recursive: true });
    copyFileSync(join(FIXTURES_DIR, 'runs', 'completed.jsonl'), join(state, 'runs', 'completed.jsonl'));
    for (const withConfig of [false, true]) {
      const log = join(dir, `show-${withConfig}.txt`);
      const shown = await runCli(['session', 'show', 'completed', '--state-dir', state, ...(withConfig ? ['--config', config] : [])], { cwd: dir, env: loadProbe(log) });
      expect(shown).toMatchObject({ code: 0, stderr: '' });
      expect(shown.stdout).toMatch(/^status\s+completed$/m);
      const loaded = loadedSources(log);
      expect(loaded).toMatch(/src\/cli\/session\/show\.ts/); // the probe sees what loads
      // What it shares with a run (where a run rests, the summary's formatters, the instructions and snapshot notes, a tool's side effects) is in the start's chunks or its own.
      const files = esModuleFiles(loaded);
      expect(files.filter((f) => /^(agent|run|connection|election|reads|decode|workspace|changes)\.js$/.test(f))).toEqual([]);
      expect(loaded).not.toMatch(/src\/agent\/(runner|run|providers\/index)\.ts|src\/store\/jetstream\/|src\/a2a\/(decode|schemas)\.ts|node_modules\/@nats-io\//);
    }
  });
});
