/**
 * The import rules, from the cards agents answer with: include then exclude by
 * name (regular expressions, matched anywhere in the name, as the reference
 * matches them), only tools with a description and an object input schema,
 * `<alias>_<tool>` names, collisions refused whatever order the cards came in,
 * overrides checked against the card, every unreachable agent named; and how a
 * reply reaches the model.
 */
import { describe, expect, it } from 'vitest';
import type { AgentCard, ToolReplyMessage } from '../../src/a2a/index.js';
import { importNotes, importRemoteTools, type RemoteDirectory } from '../../src/agent/tools/remote/import.js';
import { replyOutcome, RemoteTool } from '../../src/agent/tools/remote/remote-tool.js';
import { REMOTE_DEFAULTS, type RemoteToolHost } from '../../src/agent/tools/remote/spec.js';
import { LogbookError, RawJson, isLogbookError } from '../../src/core/index.js';

const schema = (text: string) => RawJson.fromText(text);
const CARDS: Record<string, AgentCard> = {
  build: {
    name: 'build',
    version: '1',
    tools: [
      { name: 'compile', description: 'Compiles', input_schema: schema('{"type":"object","properties":{"target":{"type":"string"}}}') },
      { name: 'test', description: 'Runs the tests' },
      { name: 'deploy_prod', description: 'Deploys' },
      { name: 'quiet', description: '' },
      { name: 'scalar', description: 'Takes a string', input_schema: schema('{"type":"string"}') },
    ],
  },
  ops: { name: 'ops', version: '2', tools: [{ name: 'test', description: 'Tests the fleet' }] },
  empty: { name: 'empty', version: '3' },
};

const host = (name: string, more: Partial<RemoteToolHost> = {}): RemoteToolHost => ({
  name,
  alias: name,
  side_effects: REMOTE_DEFAULTS.side_effects,
  confirm: REMOTE_DEFAULTS.confirm,
  timeout: 1,
  overrides: {},
  ...more,
});

/** Answers discovery from CARDS, after `delays[name]` ms; an agent not there is unavailable. */
function directory(delays: Record<string, number> = {}): RemoteDirectory & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async discover(agent) {
      await new Promise((r) => setTimeout(r, delays[agent] ?? 0));
      const card = CARDS[agent];
      if (card === undefined) throw new LogbookError('agent_unavailable', `agent unavailable: nothing answers on choria.fisk-ai.discovery.${agent}`);
      return card;
    },
    async callTool(agent, tool, input) {
      calls.push(`${agent}.${tool}(${input?.text ?? ''})`);
      return { output: 'ok' } as ToolReplyMessage;
    },
  };
}

const names = (imports: Awaited<ReturnType<typeof importRemoteTools>>): string[] => imports.flatMap((i) => i.tools.map((t) => t.definition.name));

describe('importing the tools of other agents', () => {
  it('names each <alias>_<tool>, keeps those with a description and an object schema, and says why it left the others out', async () => {
    const imports = await importRemoteTools(directory(), [host('build'), host('empty')], { taken: new Set() });
    expect(names(imports)).toEqual(['build_compile', 'build_test', 'build_deploy_prod']);
    const compile = imports[0]!.tools[0]!;
    expect(compile.definition).toEqual({ name: 'build_compile', description: 'Compiles', input_schema: { type: 'object', properties: { target: { type: 'string' } } } });
    expect(imports[0]!.tools[1]!.definition.input_schema).toEqual({ type: 'object' });
    expect(compile.remote).toEqual({ agent: 'build', tool: 'compile' });
    expect(compile.policy).toEqual({ confirm: false, sideEffects: true }); // nothing on the wire says a cut call did not run
    expect(importNotes(imports)).toEqual([
      'tool quiet of agent build is not imported: it has no description',
      'tool scalar of agent build is not imported: its input schema is not for an object',
      'agent empty gives this run no tools (its card lists 0)',
    ]);
  });

  it('picks by include, then exclude, matching anywhere in the name; applies policies per host and per tool', async () => {
    const picked = host('build', { alias: 'b', include: ['^(compile|test|deploy)'], exclude: ['prod'], side_effects: false, overrides: { test: { side_effects: true, confirm: true } } });
    const [imported] = await importRemoteTools(directory(), [picked], { taken: new Set() });
    expect(imported!.tools.map((t) => [t.definition.name, t.policy])).toEqual([
      ['b_compile', { confirm: false, sideEffects: false }],
      ['b_test', { confirm: true, sideEffects: true }],
    ]);
    expect(imported!.filtered).toEqual(['deploy_prod', 'quiet', 'scalar']);
  });

  it('refuses an override of a tool the agent does not offer, or one its filters leave out', async () => {
    const absent = importRemoteTools(directory(), [host('build', { overrides: { lint: { confirm: true } } })], { taken: new Set() });
    await expect(absent).rejects.toThrow('remote_tools entry for agent build: overrides names "lint", which the agent does not offer; it offers compile, test, deploy_prod, quiet, scalar');
    const filtered = importRemoteTools(directory(), [host('build', { exclude: ['test'], overrides: { test: { confirm: true } } })], { taken: new Set() });
    await expect(filtered).rejects.toThrow('overrides names "test", which its include/exclude leave out');
  });

  it('refuses names that collide, with a local tool or between agents, the same way whichever card comes first', async () => {
    const hosts = [host('build', { include: ['^test$'] }), host('ops', { alias: 'build' })];
    for (const delays of [{ build: 30 }, { ops: 30 }] as Record<string, number>[]) {
      const err = await importRemoteTools(directory(delays), hosts, { taken: new Set() }).catch((e: unknown) => e);
      expect((err as Error).message).toBe('imported tool names collide: build_test comes from agents build and ops; give the remote_tools entry another alias');
    }
    const local = await importRemoteTools(directory(), [host('ops')], { taken: new Set(['ops_test']) }).catch((e: unknown) => e);
    expect((local as Error).message).toBe('imported tool names collide: ops_test (agent ops) is also a local tool; give the remote_tools entry another alias');
    // Different aliases keep the same tool name apart.
    expect(names(await importRemoteTools(directory(), [host('build', { include: ['^test$'] }), host('ops')], { taken: new Set() }))).toEqual(['build_test', 'ops_test']);
  });

  it('asks every agent at once, and fails naming each one that did not answer', async () => {
    const progress: string[] = [];
    const err = await importRemoteTools(directory({ build: 20 }), [host('build'), host('ghost'), host('phantom')], {
      taken: new Set(),
      onProgress: (p) => progress.push(`${p.ready.join(',')}|${p.pending.join(',')}`),
    }).catch((e: unknown) => e);
    expect(isLogbookError(err, 'agent_unavailable')).toBe(true);
    expect((err as Error).message).toBe(
      'agent ghost cannot be reached (agent unavailable: nothing answers on choria.fisk-ai.discovery.ghost); agent phantom cannot be reached (agent unavailable: nothing answers on choria.fisk-ai.discovery.phantom); start them (logbook serve) or take them out of remote_tools',
    );
    expect(progress).toEqual(['|build,ghost,phantom', 'build|ghost,phantom']);
  });

  it('calls a tool with one request to its agent, by the name the agent gave it', async () => {
    const d = directory();
    const [imported] = await importRemoteTools(d, [host('build', { alias: 'b' })], { taken: new Set() });
    const tool = imported!.tools[0] as RemoteTool;
    expect(await tool.run({}, { signal: new AbortController().signal }, RawJson.fromText('{"target":"all"}'))).toEqual({ content: 'ok', isError: false, remote: true });
    expect(d.calls).toEqual(['build.compile({"target":"all"})']);
  });
});

describe('a reply as the model reads it', () => {
  const reply = (fields: Partial<ToolReplyMessage>) => fields as ToolReplyMessage;

  it('is_error is an error result; a command that ran is the command envelope, an error when it exited non-zero', () => {
    expect(replyOutcome(reply({ is_error: true, output: 'tool "x" is not available' }))).toEqual({ content: 'tool "x" is not available', isError: true, remote: true });
    expect(replyOutcome(reply({ output: 'hi', exec: { command: 'echo hi' } }))).toEqual({ content: '{"command":"echo hi","exit_code":0,"output":"hi"}', isError: false, remote: true });
    expect(replyOutcome(reply({ output: 'no', exec: { command: 'false', exit_code: 1, truncated: true } }))).toEqual({
      content: '{"command":"false","exit_code":1,"output":"no","truncated":true}',
      isError: true,
      remote: true,
    });
    expect(replyOutcome(reply({}))).toEqual({ content: '', isError: false, remote: true });
  });

  it('a call that could not be made is an error result naming the call and the agent', async () => {
    const failing: RemoteDirectory = {
      discover: async () => CARDS.build!,
      callTool: async () => {
        throw new LogbookError('agent_unavailable', 'agent unavailable: nothing answers on choria.fisk-ai.tool.build');
      },
    };
    const [imported] = await importRemoteTools(failing, [host('build')], { taken: new Set() });
    expect(await imported!.tools[1]!.run({}, { signal: new AbortController().signal }, RawJson.fromText('{}'))).toEqual({
      content: 'calling test on agent build: agent unavailable: nothing answers on choria.fisk-ai.tool.build',
      isError: true,
      remote: true,
    });
  });
});
