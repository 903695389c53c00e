/**
 * What `serve` answers for: the reference's exposure rules (never a tool that
 * asks for a confirmation, none without a description or with a name the wire
 * cannot carry) under agent.yaml's expose.tools include and exclude; and how a
 * tool's outcome is carried in a tool.reply.
 */
import { describe, expect, it } from 'vitest';
import { exposedTools, outcomeFields } from '../../src/agent/exposure.js';
import { defineTool, type Tool } from '../../src/agent/tools/tool.js';

const tool = (name: string, description = 'does it', confirm = false): Tool => ({
  ...defineTool({ name, description, run: () => 'ok' }),
  policy: { confirm, sideEffects: false },
});

describe('exposure', () => {
  const tools = [tool('read_file'), tool('write_file'), tool('deploy', 'ships it', true), tool('silent', ''), tool('mcp__fs__list'), tool('bad.name')];

  it('leaves out confirm tools, tools without a description and names the wire cannot carry, saying why', () => {
    const { exposed, withheld } = exposedTools(tools, {});
    expect(exposed.map((t) => t.definition.name)).toEqual(['read_file', 'write_file', 'mcp__fs__list']);
    expect(withheld).toEqual([
      { name: 'deploy', reason: 'confirm' },
      { name: 'silent', reason: 'no description' },
      { name: 'bad.name', reason: 'name' },
    ]);
  });

  it('serves only what include picks and exclude leaves, matching anywhere in the name; confirm tools stay out whatever include says', () => {
    const { exposed, withheld } = exposedTools(tools, { include: ['file', 'deploy'], exclude: ['^write'] });
    expect(exposed.map((t) => t.definition.name)).toEqual(['read_file']);
    expect(withheld.map((w) => `${w.name}:${w.reason}`)).toEqual(['write_file:exclude', 'deploy:confirm', 'silent:include', 'mcp__fs__list:include', 'bad.name:include']);
  });

  it('carries a command that ran as a success with exec, a non-zero exit included; anything else as its content', () => {
    expect(outcomeFields({ content: '{...}', isError: true, exec: { command: 'false', exitCode: 1, output: '', truncated: false } })).toEqual({ output: '', exec: { command: 'false', exit_code: 1 } });
    expect(outcomeFields({ content: '{...}', isError: false, exec: { command: 'cat f', exitCode: 0, output: 'x', truncated: true } })).toEqual({ output: 'x', exec: { command: 'cat f', exit_code: 0, truncated: true } });
    expect(outcomeFields({ content: 'denied', isError: true })).toEqual({ is_error: true, output: 'denied' });
    expect(outcomeFields({ content: 'fine', isError: false })).toEqual({ output: 'fine' });
  });
});
