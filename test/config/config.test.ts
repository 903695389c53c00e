import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.js';

function refusal(yaml: string): string {
  try {
    parseConfig(yaml, '/cfg/agent.yaml');
  } catch (err) {
    expect((err as { code: string }).code).toBe('config');
    return (err as Error).message;
  }
  return 'accepted';
}

describe('agent.yaml', () => {
  it('refuses an unknown key, naming it and the file', () => {
    expect(refusal('provider: script\nscript: s.yaml\nmodle: x\n')).toBe('/cfg/agent.yaml: unknown key "modle" at the top level (did you mean "model"?)');
    expect(refusal('provider: script\nscript: s.yaml\ntools: [{name: a, command: [ls], tiemout: 3}]\n')).toBe(
      '/cfg/agent.yaml: unknown key "tiemout" in tools[0] (did you mean "timeout"?)',
    );
    expect(refusal('provider: script\nscript: s.yaml\ncolour: red\n')).toBe('/cfg/agent.yaml: unknown key "colour" at the top level');
  });

  it('names a misspelt key before the key it leaves missing', () => {
    expect(refusal('provider: script\nscript: s\ntools:\n  - name: ls\n    comand: [ls]\n')).toBe(
      '/cfg/agent.yaml: unknown key "comand" in tools[0] (did you mean "command"?)',
    );
    expect(refusal('provder: script\n')).toBe('/cfg/agent.yaml: unknown key "provder" at the top level (did you mean "provider"?)');
    expect(refusal('provider: script\nscript: s\nnats: { ulr: "nats://h" }\n')).toBe('/cfg/agent.yaml: unknown key "ulr" in nats (did you mean "url"?)');
    // Nothing unknown: the missing key is named.
    expect(refusal('provider: script\nscript: s\ntools: [{name: ls}]\n')).toBe('/cfg/agent.yaml: missing key "command" in tools[0]');
  });

  it('says a YAML syntax error in one whole line: the reason, where, and that line', () => {
    expect(refusal('provider: script\nscript: s\nmodel: a: b\n')).toBe(
      '/cfg/agent.yaml: not valid YAML: Nested mappings are not allowed in compact mappings at line 3, column 8 ("model: a: b")',
    );
    expect(refusal('provider: script\nprovider: openai\n')).toBe('/cfg/agent.yaml: not valid YAML: Map keys must be unique at line 2, column 1 ("provider: openai")');
    expect(refusal('provider: script\nmodel: "open\n')).toBe('/cfg/agent.yaml: not valid YAML: Missing closing "quote at line 3, column 1 (the end of the file)');
    expect(refusal(`provider: script\nsystem: "${'x'.repeat(80)}" y\n`)).toMatch(/at line 2, column 92 \("system: \\"x{51}…"\)$/);
    for (const bad of ['model: a: b\n', 'provider: [\n', 'a:\n\t- b\n']) expect(refusal(bad)).not.toMatch(/[:\n]$|\n/);
  });

  it('refuses wrong types, bad values and missing keys with one line each', () => {
    expect(refusal('provider: claude\n')).toMatch(/provider must be one of "anthropic", "openai", "script"/);
    expect(refusal('provider: anthropic\n')).toMatch(/missing key "model"/);
    expect(refusal('provider: script\n')).toMatch(/missing key "script"/);
    expect(refusal('provider: script\nscript: s\nmax_tokens: many\n')).toMatch(/max_tokens must be integer/);
    expect(refusal('provider: script\nscript: s\nthinking: deep\n')).toMatch(/thinking must be one of "off", "summarized"/);
    expect(refusal('provider: script\nscript: s\ntools: [{name: a, command: [ls]}, {name: a, command: [ls]}]\n')).toMatch(/second tool named "a"/);
    expect(refusal('provider: [\n')).toMatch(/not valid YAML/);
    expect(refusal('- a\n- b\n')).toMatch(/expected a mapping/);
  });

  it('bounds every number by what logbook can honour, naming the key and the bound', () => {
    const base = 'provider: script\nscript: s\n';
    const exact = '(the largest integer a journal records exactly)';
    expect(refusal(`${base}max_tokens: 99999999999999999999999\n`)).toBe(`/cfg/agent.yaml: max_tokens must be at most 9007199254740991 ${exact}`);
    expect(refusal(`${base}max_iterations: 9007199254740992\n`)).toBe(`/cfg/agent.yaml: max_iterations must be at most 9007199254740991 ${exact}`);
    expect(refusal(`${base}budget: 1e300\n`)).toBe(`/cfg/agent.yaml: budget must be at most 9007199254740991 ${exact}`);
    expect(refusal(`${base}tools: [{name: a, command: [ls], timeout: 2147483.5}]\n`)).toBe(
      '/cfg/agent.yaml: tools[0].timeout must be at most 2147483 (seconds: the longest timer Node.js can set, about 24.8 days)',
    );
    expect(refusal(`${base}tools: [{name: a, command: [ls], max_output: 67108865}]\n`)).toBe(
      "/cfg/agent.yaml: tools[0].max_output must be at most 67108864 (bytes (64 MiB): a tool's output must fit in one journal record)",
    );
    expect(refusal(`${base}tools: [{name: a, command: [ls], timeout: .inf}]\n`)).toMatch(/tools\[0\]\.timeout must be number/);
    expect(refusal(`${base}tools: [{name: a, command: [ls], timeout: 0}]\n`)).toBe('/cfg/agent.yaml: tools[0].timeout must be above 0');
    expect(refusal(`${base}max_tokens: 0\n`)).toBe('/cfg/agent.yaml: max_tokens must be at least 1');
    expect(refusal(`${base}idle_timeout: 0\n`)).toBe('/cfg/agent.yaml: idle_timeout must be above 0');
    expect(refusal(`${base}idle_timeout: 2147484\n`)).toBe(
      '/cfg/agent.yaml: idle_timeout must be at most 2147483 (seconds: the longest timer Node.js can set, about 24.8 days)',
    );
    expect(parseConfig(`${base}idle_timeout: 0.5\n`, '/cfg/agent.yaml').idle_timeout).toBe(0.5);
    expect(parseConfig(base, '/cfg/agent.yaml').idle_timeout).toBeUndefined(); // the provider's default
    const largest = parseConfig(
      `${base}max_tokens: 9007199254740991\ntools: [{name: a, command: [ls], timeout: 2147483, max_output: 67108864}]\n`,
      '/cfg/agent.yaml',
    );
    expect(largest.tools[0]).toMatchObject({ timeout: 2_147_483, max_output: 64 * 1024 * 1024 });
  });

  it('takes allow_leading_dash per tool, off by default', () => {
    const c = parseConfig('provider: script\nscript: s\ntools: [{name: a, command: [ls]}, {name: b, command: [ls], allow_leading_dash: true}]\n', '/cfg/agent.yaml');
    expect(c.tools.map((t) => t.allow_leading_dash)).toEqual([false, true]);
    expect(refusal('provider: script\nscript: s\ntools: [{name: a, command: [ls], allow_leading_dash: yes}]\n')).toMatch(/allow_leading_dash must be boolean/);
  });

  it('refuses a tool whose input_schema holds what JSON cannot carry, naming where', () => {
    expect(refusal('provider: script\nscript: s\ntools: [{name: a, command: [ls], input_schema: {properties: {n: {maximum: .inf}}}}]\n')).toBe(
      '/cfg/agent.yaml: tool "a": input_schema.properties.n.maximum is Infinity, which is not a JSON value',
    );
  });

  it("refuses a tool's input_schema with the config, where its meta-schema refuses it or Ajv cannot compile it, so a config taken as checked is not checked again", () => {
    expect(refusal('provider: script\nscript: s\ntools: [{name: a, command: [ls], input_schema: {type: object, properties: {n: {type: 12}}}}]\n')).toMatch(
      /^\/cfg\/agent\.yaml: tool "a" has an invalid input_schema: schema is invalid: data\/properties\/n\/type must be/,
    );
    expect(refusal('provider: script\nscript: s\ntools: [{name: a, command: [ls], input_schema: {type: object, properties: {n: {$ref: "#/nowhere"}}}}]\n')).toMatch(
      /^\/cfg\/agent\.yaml: tool "a" has an invalid input_schema: can't resolve reference #\/nowhere/,
    );
  });

  it('reads the otel: block: an http(s) endpoint, a protocol logbook sends, headers that may name variables, content off unless asked', () => {
    const c = parseConfig('provider: script\nscript: s\notel: { endpoint: "http://c:4318", protocol: http/json, headers: { k: "${KEY}" } }\n', '/cfg/agent.yaml');
    expect(c.otel).toEqual({ endpoint: 'http://c:4318', protocol: 'http/json', headers: { k: '${KEY}' }, capture_content: false });
    expect(parseConfig('provider: script\nscript: s\notel: { capture_content: true }\n', '/cfg/agent.yaml').otel).toEqual({ headers: {}, capture_content: true });
    expect(refusal('provider: script\nscript: s\notel: { protocol: grpc }\n')).toBe('/cfg/agent.yaml: otel.protocol must be one of "http/protobuf", "http/json"');
    expect(refusal('provider: script\nscript: s\notel: { endpiont: x }\n')).toBe('/cfg/agent.yaml: unknown key "endpiont" in otel (did you mean "endpoint"?)');
    expect(refusal('provider: script\nscript: s\notel: { endpoint: "localhost:4318" }\n')).toMatch(/otel\.endpoint "localhost:4318" is not an http\(s\) URL/);
    expect(refusal('provider: script\nscript: s\notel: { headers: { k: "${nope" } }\n')).toMatch(/otel\.headers\.k: /);
  });

  it('resolves relative paths against the config file, and fills defaults', () => {
    const c = parseConfig('provider: script\nscript: turns.yaml\nnats: {url: nats://x, creds: my.creds}\ntools: [{name: a, command: [ls], cwd: work}]\n', '/cfg/agent.yaml');
    expect(c.script).toBe('/cfg/turns.yaml');
    expect(c.nats).toEqual({ url: 'nats://x', creds: '/cfg/my.creds' });
    expect(c.tools[0]).toMatchObject({ cwd: '/cfg/work', timeout: 60, max_output: 100_000, description: '' });
    expect(c).toMatchObject({ max_tokens: 4096, max_iterations: 20, thinking: 'off', prompt_cache: false, session: { backend: 'file', options: {} } });
    expect(c).toMatchObject({ compact_at: 0.8, keep_turns: 2, prices: {} });
    expect(c.context_window).toBeUndefined();
  });

  it('reads the long-run keys: the context window, compaction, prices and the spend caps', () => {
    const c = parseConfig(
      'provider: anthropic\nmodel: m\ncontext_window: 8000\ncompact_at: 0.5\nkeep_turns: 0\nbudget_usd: 2.5\nlineage_budget_usd: 10\nprices:\n  m: { input: 3, output: 15, cache_read: 0.3 }\n',
      '/cfg/agent.yaml',
    );
    expect(c).toMatchObject({ context_window: 8000, compact_at: 0.5, keep_turns: 0, budget_usd: 2.5, lineage_budget_usd: 10, prices: { m: { input: 3, output: 15, cache_read: 0.3 } } });
    expect(parseConfig('provider: anthropic\nmodel: m\ncompact_at: false\n', '/cfg/agent.yaml').compact_at).toBe(false);
    expect(() => parseConfig('provider: anthropic\nmodel: m\ncompact_at: 1.5\n', '/cfg/agent.yaml')).toThrow(/compact_at/);
    expect(() => parseConfig('provider: anthropic\nmodel: m\nprices: { m: { input: 3 } }\n', '/cfg/agent.yaml')).toThrow(/missing key "output" in prices\.m/);
    expect(() => parseConfig('provider: anthropic\nmodel: m\nbudget_usd: 0\n', '/cfg/agent.yaml')).toThrow(/budget_usd must be above 0/);
  });
});
