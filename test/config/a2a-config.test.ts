/**
 * agent.yaml's keys for agents over NATS: `a2a:` (this agent's identity and
 * the streams tasks go through), `remote_tools:` as the reference spells it
 * plus logbook's side_effects, confirm and per-tool overrides, `remote_agents:`
 * (agents a run may hand a task to), and `expose:` for what `serve` answers and
 * takes. Strict like the rest of the file.
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
  const EXPOSE = { max_concurrent_tools: 2, tool_timeout: 30, tasks: true, task_ack_wait: 30 };
  const STREAMS = { tasks_stream: 'A2A_TASKS', events_stream: 'A2A_EVENTS' };

  it('have defaults: no identity, the A2A_TASKS and A2A_EVENTS streams, no remote tools or agents, expose 2 calls at once for 30 s each and tasks', () => {
    const c = parse('');
    expect(c.a2a).toEqual(STREAMS);
    expect(c.remote_tools).toEqual([]);
    expect(c.remote_agents).toEqual([]);
    expect(c.expose).toEqual(EXPOSE);
  });

  it('read remote_agents: the identity as alias, a tool ask_<alias> each, a 600 s wait by default', () => {
    const c = parse(
      'a2a: { identity: lead, tasks_stream: WORK, events_stream: WORK_EVENTS }\n' +
        'remote_agents:\n  - name: researcher\n  - name: build-box\n    alias: build\n    description: "Builds and tests the tree"\n    timeout: 60\n',
    );
    expect(c.a2a).toEqual({ identity: 'lead', tasks_stream: 'WORK', events_stream: 'WORK_EVENTS' });
    expect(c.remote_agents).toEqual([
      { name: 'researcher', alias: 'researcher', timeout: 600 },
      { name: 'build-box', alias: 'build', description: 'Builds and tests the tree', timeout: 60 },
    ]);
  });

  it('refuse remote_agents it cannot honour', () => {
    expect(refusal('remote_agents: [{ name: a }]\n', 'provider: script\nscript: s\n')).toBe(
      '/cfg/agent.yaml: remote_agents needs a nats: block (url, and creds if the server wants them) to reach the agents',
    );
    expect(refusal('remote_agents: [{ name: a }, { name: a, alias: b }]\n')).toBe('/cfg/agent.yaml: remote_agents[1] (a): a second remote_agents entry for agent "a"');
    expect(refusal('remote_agents: [{ name: a, alias: x }, { name: b, alias: x }]\n')).toBe(
      '/cfg/agent.yaml: remote_agents[1] (b): alias "x" is already agent "a"\'s; give each agent its own alias',
    );
    expect(refusal('tools: [{ name: ask_a, command: ["true"] }]\nremote_agents: [{ name: a }]\n')).toBe(
      '/cfg/agent.yaml: remote_agents[0] (a): its tool ask_a has the name of a tool in tools:; give it another alias',
    );
    expect(refusal(`remote_agents: [{ name: ${'a'.repeat(70)} }]\n`)).toMatch(/longer than the 64 characters a tool name may have; give it a shorter alias/);
    expect(refusal('remote_agents: [{ name: a, alias: "x y" }]\n')).toMatch(/remote_agents\[0\]\.alias must match pattern/);
    expect(refusal('remote_agents: [{ name: a, timeout: 0 }]\n')).toMatch(/remote_agents\[0\]\.timeout must be above 0/);
    expect(refusal('a2a: { tasks_stream: S, events_stream: S }\n')).toBe(
      '/cfg/agent.yaml: a2a.tasks_stream and a2a.events_stream are both S; tasks and their events need a stream each',
    );
    expect(refusal('a2a: { tasks_stream: "a.b" }\n')).toMatch(/a2a\.tasks_stream must match pattern/);
    expect(refusal('expose: { task_ack_wait: 0.5 }\n')).toMatch(/expose\.task_ack_wait must be at least 1/);
  });

  it('read remote_agents over HTTP by url (no nats: needed) and a2a.http; refuse a url agent without alias or name, and token_env without url', () => {
    const noNats = 'provider: script\nscript: s\n';
    const c = parseConfig(
      noNats +
        'a2a: { http: { listen: "127.0.0.1:8080", token_env: SERVE_TOKEN } }\n' +
        'remote_agents:\n  - url: https://agents.example.com/r\n    alias: researcher\n    token_env: R_TOKEN\n  - url: http://127.0.0.1:9/\n    name: local\n',
      '/cfg/agent.yaml',
    );
    expect(c.a2a.http).toEqual({ listen: '127.0.0.1:8080', token_env: 'SERVE_TOKEN' });
    expect(c.remote_agents).toEqual([
      { name: 'researcher', alias: 'researcher', timeout: 600, url: 'https://agents.example.com/r', token_env: 'R_TOKEN' },
      { name: 'local', alias: 'local', timeout: 600, url: 'http://127.0.0.1:9/' },
    ]);
    expect(refusal('remote_agents: [{ url: "http://x/" }]\n', noNats)).toBe(
      '/cfg/agent.yaml: remote_agents[0] (http://x/): an agent named by its url needs an alias (its tool is ask_<alias>) or a name',
    );
    expect(refusal('remote_agents: [{ name: a, token_env: T }]\n')).toBe('/cfg/agent.yaml: remote_agents[0] (a): token_env is for an agent named by its url');
    expect(refusal('remote_agents: [{ alias: a }]\n')).toBe('/cfg/agent.yaml: remote_agents[0]: name the agent: name: IDENTITY (over NATS) or url: URL (over HTTP)');
    expect(refusal('remote_agents: [{ url: "ftp://x/", alias: a }]\n')).toMatch(/remote_agents\[0\]\.url must match pattern/);
  });

  it('read a2a.http.url as the base URL the card names, without its trailing slash; refuse one a client cannot use', () => {
    const noNats = 'provider: script\nscript: s\n';
    expect(parseConfig(`${noNats}a2a: { http: { url: "https://agents.example.com/r/" } }\n`, '/cfg/agent.yaml').a2a.http).toEqual({ url: 'https://agents.example.com/r' });
    expect(refusal('a2a: { http: { url: "agents.example.com" } }\n', noNats)).toMatch(/a2a\.http\.url "agents\.example\.com" is not an http:\/\/ or https:\/\/ URL/);
    expect(refusal('a2a: { http: { url: "https://u:secret@agents.example.com" } }\n', noNats)).toMatch(/names credentials/);
    expect(refusal('a2a: { http: { url: "https://u:secret@agents.example.com" } }\n', noNats)).not.toContain('secret');
    expect(refusal('a2a: { http: { url: "https://agents.example.com/?x=1" } }\n', noNats)).toMatch(/has a query or a fragment/);
  });

  it('read a host as the reference spells it, with side effects assumed and the identity as alias', () => {
    const c = parse(
      'a2a: { identity: builder, description: "Builds things" }\n' +
        'remote_tools:\n' +
        '  - name: probe\n' +
        '  - name: ops-box\n    alias: ops\n    include: { tools: ["^deploy", status] }\n    exclude: { tools: [dangerous] }\n' +
        '    side_effects: false\n    confirm: true\n    timeout: 120\n    overrides: { status: { confirm: false } }\n',
    );
    expect(c.a2a).toEqual({ identity: 'builder', description: 'Builds things', ...STREAMS });
    expect(c.remote_tools).toEqual([
      { name: 'probe', alias: 'probe', side_effects: true, confirm: false, timeout: 30, overrides: {} },
      { name: 'ops-box', alias: 'ops', include: ['^deploy', 'status'], exclude: ['dangerous'], side_effects: false, confirm: true, timeout: 120, overrides: { status: { confirm: false } } },
    ]);
  });

  it('read expose', () => {
    expect(
      parse('expose: { tools: { include: { tools: [echo] }, exclude: { tools: [rm] } }, max_concurrent_tools: 4, tool_timeout: 2.5, tasks: false, task_ack_wait: 5 }\n').expose,
    ).toEqual({
      include: ['echo'],
      exclude: ['rm'],
      max_concurrent_tools: 4,
      tool_timeout: 2.5,
      tasks: false,
      task_ack_wait: 5,
    });
    expect(parse('expose: { tools: { include: {} } }\n').expose).toEqual(EXPOSE);
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
