import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, parseConfig } from '../../src/config/config.js';
import { toolsFromConfig } from '../../src/config/agent.js';

const examples = resolve(__dirname, '../../examples');

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
  const files = [
    ...readdirSync(examples).filter((f) => f.endsWith('.yaml')),
    ...readdirSync(join(examples, 'demo')).filter((f) => f === 'agent.yaml').map((f) => join('demo', f)),
  ];
  it.each(files)('examples/%s loads, and its tools are valid', (file) => {
    const config = loadConfig(join(examples, file));
    expect(() => toolsFromConfig(config)).not.toThrow();
  });

  it('refuses an unknown key, naming it and the file', () => {
    expect(refusal('provider: script\nscript: s.yaml\nmodle: x\n')).toBe('/cfg/agent.yaml: unknown key "modle" at the top level');
    expect(refusal('provider: script\nscript: s.yaml\ntools: [{name: a, command: [ls], tiemout: 3}]\n')).toBe(
      '/cfg/agent.yaml: unknown key "tiemout" in tools[0]',
    );
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

  it('resolves relative paths against the config file, and fills defaults', () => {
    const c = parseConfig('provider: script\nscript: turns.yaml\nnats: {url: nats://x, creds: my.creds}\ntools: [{name: a, command: [ls], cwd: work}]\n', '/cfg/agent.yaml');
    expect(c.script).toBe('/cfg/turns.yaml');
    expect(c.nats).toEqual({ url: 'nats://x', creds: '/cfg/my.creds' });
    expect(c.tools[0]).toMatchObject({ cwd: '/cfg/work', timeout: 60, max_output: 100_000, description: '' });
    expect(c).toMatchObject({ max_tokens: 4096, max_iterations: 20, thinking: 'off', prompt_cache: false, session: { backend: 'file', options: {} } });
  });
});
