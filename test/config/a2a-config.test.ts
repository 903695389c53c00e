/**
 * agent.yaml's keys for agents over NATS: `a2a:` (this agent's identity),
 * `remote_tools:` as the reference spells it plus logbook's side_effects,
 * confirm and per-tool overrides, and `expose:` for what `serve` answers.
 * Strict like the rest of the file.
 */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.js';

const BASE = 'provider: script\nscript: s.yaml\nnats: { url: "nats://127.0.0.1:4222" }\n';
const parse = (yaml: string) => parseConfig(BASE + yaml, '/cfg/agent.yaml');
function refusal(yaml: string, base = BASE): string {
  try {
    parseConfig(base + yaml, '/cfg/agent.yaml');
  } catch (err) {
    expect((err as { code: string }).code).toBe('config');
    return (err as Error).message;
  }
  return 'accepted';
}

describe('a2a, remote_tools and expose in agent.yaml', () => {
  it('have defaults: no identity, no remote tools, expose 2 calls at once for 30 s each', () => {
    const c = parse('');
    expect(c.a2a).toEqual({});
    expect(c.remote_tools).toEqual([]);
    expect(c.expose).toEqual({ max_concurrent_tools: 2, tool_timeout: 30 });
  });

  it('read a host as the reference spells it, with side effects assumed and the identity as alias', () => {
    const c = parse(
      'a2a: { identity: builder, description: "Builds things" }\n' +
        'remote_tools:\n' +
        '  - name: probe\n' +
        '  - name: ops-box\n    alias: ops\n    include: { tools: ["^deploy", status] }\n    exclude: { tools: [dangerous] }\n' +
        '    side_effects: false\n    confirm: true\n    timeout: 120\n    overrides: { status: { confirm: false } }\n',
    );
    expect(c.a2a).toEqual({ identity: 'builder', description: 'Builds things' });
    expect(c.remote_tools).toEqual([
      { name: 'probe', alias: 'probe', side_effects: true, confirm: false, timeout: 30, overrides: {} },
      { name: 'ops-box', alias: 'ops', include: ['^deploy', 'status'], exclude: ['dangerous'], side_effects: false, confirm: true, timeout: 120, overrides: { status: { confirm: false } } },
    ]);
  });

  it('read expose', () => {
    expect(parse('expose: { tools: { include: { tools: [echo] }, exclude: { tools: [rm] } }, max_concurrent_tools: 4, tool_timeout: 2.5 }\n').expose).toEqual({
      include: ['echo'],
      exclude: ['rm'],
      max_concurrent_tools: 4,
      tool_timeout: 2.5,
    });
    expect(parse('expose: { tools: { include: {} } }\n').expose).toEqual({ max_concurrent_tools: 2, tool_timeout: 30 });
  });

  it('refuse what they cannot honour, one line naming the key', () => {
    expect(refusal('remote_tools: [{ name: probe }]\n', 'provider: script\nscript: s\n')).toBe(
      '/cfg/agent.yaml: remote_tools needs a nats: block (url, and creds if the server wants them) to reach the agents',
    );
    expect(refusal('remote_tools: [{ name: "pro be" }]\n')).toMatch(/remote_tools\[0\]\.name must match pattern/);
    expect(refusal('remote_tools: [{ name: probe, alais: p }]\n')).toBe('/cfg/agent.yaml: unknown key "alais" in remote_tools[0] (did you mean "alias"?)');
    expect(refusal('remote_tools: [{ name: probe }, { name: probe, alias: p2 }]\n')).toBe('/cfg/agent.yaml: remote_tools[1] (probe): a second remote_tools entry for agent "probe"');
    expect(refusal('remote_tools: [{ name: a, alias: x }, { name: b, alias: x }]\n')).toBe(
      '/cfg/agent.yaml: remote_tools[1] (b): alias "x" is already the prefix of agent "a"\'s tools; give each agent its own alias',
    );
    expect(refusal('remote_tools: [{ name: a, include: { tags: [ops] } }]\n')).toBe(
      "/cfg/agent.yaml: remote_tools[0] (a): include.tags: tools cannot be picked by tag (an agent's card carries no tags); pick them by name with tools: [...]",
    );
    expect(refusal('remote_tools: [{ name: a, exclude: { tools: ["(unclosed"] } }]\n')).toMatch(/remote_tools\[0\] \(a\): exclude\.tools\[0\]: "\(unclosed" is not a regular expression/);
    expect(refusal('remote_tools: [{ name: a, timeout: 0 }]\n')).toMatch(/remote_tools\[0\]\.timeout must be above 0/);
    expect(refusal('remote_tools: [{ name: a, overrides: { t: { confirm: yes please } } }]\n')).toMatch(/confirm must be boolean/);
    expect(refusal('a2a: { identity: "my agent" }\n')).toMatch(/a2a\.identity must match pattern/);
    expect(refusal('a2a: { name: x }\n')).toBe('/cfg/agent.yaml: unknown key "name" in a2a');
    expect(refusal('expose: { max_concurrent_tools: 0 }\n')).toMatch(/expose\.max_concurrent_tools must be at least 1/);
    expect(refusal('expose: { tool_timeout: -1 }\n')).toMatch(/expose\.tool_timeout must be above 0/);
    expect(refusal('expose: { tools: [echo] }\n')).toMatch(/expose\.tools must be object/);
  });
});
