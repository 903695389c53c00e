/** The `mcp:` list of agent.yaml: strict like the rest, every mistake one line naming it. */
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.js';

const HEAD = 'provider: script\nscript: s.yaml\n';

function parse(mcp: string) {
  return parseConfig(`${HEAD}mcp:\n${mcp}`, '/cfg/agent.yaml');
}

function refusal(mcp: string): string {
  try {
    parse(mcp);
  } catch (err) {
    expect((err as { code: string }).code).toBe('config');
    return (err as Error).message;
  }
  return 'accepted';
}

describe('mcp: in agent.yaml', () => {
  it('reads a stdio server and an HTTP server, with defaults and paths resolved against the file', () => {
    const c = parse(
      [
        '  - name: fs',
        '    command: [mcp-server-filesystem, ./sandbox]',
        '    cwd: work',
        '    env: { LOG_LEVEL: debug, TOKEN: "${FS_TOKEN}" }',
        '    tools: [read_text_file, write_file]',
        '    overrides: { write_file: { confirm: true, side_effects: true, max_output: 500 } }',
        '  - name: web',
        '    url: https://mcp.example.test/mcp',
        '    headers: { Authorization: "Bearer ${WEB_TOKEN}" }',
        '    timeout: 5',
        '    startup_timeout: 2.5',
        '    max_output: 2000',
      ].join('\n'),
    );
    expect(c.mcp).toEqual([
      {
        name: 'fs',
        transport: 'stdio',
        command: ['mcp-server-filesystem', './sandbox'],
        cwd: '/cfg/work',
        env: { LOG_LEVEL: 'debug', TOKEN: '${FS_TOKEN}' },
        tools: ['read_text_file', 'write_file'],
        overrides: { write_file: { confirm: true, side_effects: true, max_output: 500 } },
        timeout: 60,
        startup_timeout: 60,
        max_output: 100_000,
      },
      {
        name: 'web',
        transport: 'http',
        url: 'https://mcp.example.test/mcp',
        headers: { Authorization: 'Bearer ${WEB_TOKEN}' },
        overrides: {},
        timeout: 5,
        startup_timeout: 2.5,
        max_output: 2000,
      },
    ]);
    expect(parseConfig(HEAD, '/cfg/agent.yaml').mcp).toEqual([]);
  });

  it('refuses unknown keys, a server with both or neither of command and url, and keys of the other kind', () => {
    expect(refusal('  - { name: fs, command: [x], tols: [a] }')).toBe('/cfg/agent.yaml: unknown key "tols" in mcp[0] (did you mean "tools"?)');
    expect(refusal('  - { name: fs, command: [x], overrides: { a: { confirm: true, side_effect: true } } }')).toBe(
      '/cfg/agent.yaml: unknown key "side_effect" in mcp[0].overrides.a (did you mean "side_effects"?)',
    );
    expect(refusal('  - { name: fs }')).toBe('/cfg/agent.yaml: mcp[0] (fs): give either command (a server run over stdio) or url (a Streamable HTTP server)');
    expect(refusal('  - { name: fs, command: [x], url: "http://h/mcp" }')).toMatch(/give either command .* or url/);
    expect(refusal('  - { name: fs, command: [x], headers: { a: b } }')).toBe('/cfg/agent.yaml: mcp[0] (fs): headers only applies to a url server');
    expect(refusal('  - { name: web, url: "http://h/mcp", env: { a: b } }')).toBe('/cfg/agent.yaml: mcp[0] (web): env only applies to a command server');
    expect(refusal('  - { name: web, url: "http://h/mcp", cwd: x }')).toBe('/cfg/agent.yaml: mcp[0] (web): cwd only applies to a command server');
  });

  it('refuses names the exposed tool names could not carry, and a name given twice', () => {
    expect(refusal('  - { name: "my server", command: [x] }')).toMatch(/mcp\[0\]\.name must match pattern/);
    expect(refusal('  - { name: a__b, command: [x] }')).toBe(
      '/cfg/agent.yaml: mcp[0] (a__b): a server name cannot hold "__", which separates it from the tool in mcp__<server>__<tool>',
    );
    expect(refusal('  - { name: fs, command: [x] }\n  - { name: fs, url: "http://h/mcp" }')).toBe('/cfg/agent.yaml: mcp[1] (fs): a second MCP server named "fs"');
  });

  it('bounds timeouts to what a Node timer can honour', () => {
    expect(refusal('  - { name: fs, command: [x], timeout: 2147484 }')).toBe('/cfg/agent.yaml: mcp[0].timeout must be at most 2147483 (seconds: the longest timer Node.js can set, about 24.8 days)');
    expect(refusal('  - { name: fs, command: [x], startup_timeout: 0 }')).toBe('/cfg/agent.yaml: mcp[0].startup_timeout must be above 0');
    expect(parse('  - { name: fs, command: [x], timeout: 2147483 }').mcp[0]!.timeout).toBe(2147483);
  });

  it('bounds max_output, the server’s and a tool’s, to what one journal record holds', () => {
    expect(refusal('  - { name: fs, command: [x], max_output: 67108865 }')).toBe(
      "/cfg/agent.yaml: mcp[0].max_output must be at most 67108864 (bytes (64 MiB): a tool's output must fit in one journal record)",
    );
    expect(refusal('  - { name: fs, command: [x], overrides: { a: { max_output: 0 } } }')).toBe('/cfg/agent.yaml: mcp[0].overrides.a.max_output must be at least 1');
  });

  it('refuses a malformed ${...} reference and a url that is not http(s)', () => {
    expect(refusal('  - { name: web, url: "http://h/mcp", headers: { Authorization: "Bearer ${API-TOKEN}" } }')).toBe(
      '/cfg/agent.yaml: mcp[0] (web): headers.Authorization: "Bearer ${API-TOKEN}" has a "${" that does not open a ${NAME} reference (NAME: letters, digits, _)',
    );
    expect(refusal('  - { name: fs, command: [x], env: { T: "${T" } }')).toMatch(/env\.T: "\$\{T" has a "\$\{"/);
    expect(refusal('  - { name: web, url: "ftp://h/mcp" }')).toBe('/cfg/agent.yaml: mcp[0] (web): url must be http: or https:, not ftp:');
    expect(refusal('  - { name: web, url: "not a url" }')).toBe('/cfg/agent.yaml: mcp[0] (web): url "not a url" is not a URL');
  });

  it('refuses an override for a tool its tools: list leaves out', () => {
    expect(refusal('  - { name: fs, command: [x], tools: [a], overrides: { b: { confirm: true } } }')).toBe(
      '/cfg/agent.yaml: mcp[0] (fs): overrides names "b", which its tools: list leaves out',
    );
  });
});
