/**
 * Credentials written into a URL (a base_url, a NATS url, an MCP server's url,
 * or one a tool server prints) never reach stderr or a journal, through the
 * real binary: each message shows the URL with its secret hidden.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { FakeAnthropic } from '../helpers/fake-anthropic.js';
import { FIXTURE_SERVER } from '../helpers/mcp/specs.js';
import { useNatsServer } from '../helpers/nats-server.js';
import { tempDir } from '../helpers/tmp.js';

const SECRET = 's3cret-8d1f';
const dir = tempDir('logbook-url-credentials-');
const stateDir = join(dir, 'state');
let configs = 0;

function config(text: string): string {
  const path = join(dir, `agent${++configs}.yaml`);
  writeFileSync(path, text);
  return path;
}

/** Everything the command wrote, and every journal in the state directory. */
function everything(r: CliResult): string {
  const runs = join(stateDir, 'runs');
  let journals = '';
  try {
    journals = readdirSync(runs).map((f) => readFileSync(join(runs, f), 'utf8')).join('\n');
  } catch {
    /* no run was journaled */
  }
  return `${r.stdout}\n${r.stderr}\n${journals}`;
}

const run = (cfg: string, env: Record<string, string> = {}, args: string[] = ['go']): Promise<CliResult> =>
  runCli(['run', '--config', cfg, '--state-dir', stateDir, ...args], { cwd: dir, env: { LOGBOOK_PROVIDER_MAX_RETRIES: '0', ...env } });

describe('a base URL with credentials', () => {
  it.each([
    ['anthropic', 'ANTHROPIC_API_KEY', ''],
    ['openai', 'OPENAI_API_KEY', 'v1/'],
  ])('%s: is refused before anything is sent or journaled, the password hidden', async (provider, keyEnv, path) => {
    const cfg = config(`provider: ${provider}\nmodel: m\nbase_url: http://user:${SECRET}@127.0.0.1:9/${path}\n`);
    const r = await run(cfg, { [keyEnv]: 'k' });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `logbook: ${provider}: the base URL http://user:***@127.0.0.1:9/${path} holds credentials, which a request to the API cannot carry; ` +
        `remove them from base_url (or the variable that sets it): the key is read from ${keyEnv}\n`,
    );
    expect(everything(r)).not.toContain(SECRET);
  });

  it('is refused from ANTHROPIC_BASE_URL too, a lone user name (often a token) hidden whole', async () => {
    const r = await run(config('provider: anthropic\nmodel: m\n'), { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: `https://${SECRET}@api.example.test/` });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^logbook: anthropic: the base URL https:\/\/\*\*\*@api\.example\.test\/ holds credentials/);
    expect(everything(r)).not.toContain(SECRET);
  });
});

describe('an MCP server', () => {
  it('at a url with credentials is refused when the config is read, the password hidden', async () => {
    const cfg = config(`provider: anthropic\nmodel: m\nmcp:\n  - { name: web, url: "http://bot:${SECRET}@127.0.0.1:9/mcp" }\n`);
    const r = await run(cfg, { ANTHROPIC_API_KEY: 'k' });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^logbook: .*: mcp\[0\] \(web\): url http:\/\/bot:\*\*\*@127\.0\.0\.1:9\/mcp holds credentials, which a request cannot carry; send them in headers:/);
    expect(everything(r)).not.toContain(SECRET);
  });

  describe('that dies printing a URL with a password', () => {
    let api: FakeAnthropic;
    beforeAll(async () => {
      api = await FakeAnthropic.start();
    });
    afterAll(async () => api.close());

    it('suspends the run: neither its terminal record nor stderr holds the password', async () => {
      api.reply({ message: { content: [{ type: 'tool_use', id: 'c1', name: 'mcp__fx__crash', input: {} }] } });
      const note = `fixture: lost postgres://app:${SECRET}@db.internal:5432/notes`;
      const cfg = config(
        `provider: anthropic\nmodel: m\nmcp:\n  - { name: fx, command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(FIXTURE_SERVER)}, --crash-note, ${JSON.stringify(note)}] }\n`,
      );
      const r = await run(cfg, { ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: api.origin }, ['--name', 'leaky', 'go']);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('postgres://app:***@db.internal:5432/notes');
      const journal = readFileSync(join(stateDir, 'runs', 'leaky.jsonl'), 'utf8');
      expect(journal).toMatch(/"terminal":\{"reason":"suspended","message":"MCP server \\"fx\\" .*postgres:\/\/app:\*\*\*@db\.internal:5432\/notes/);
      const shown = await runCli(['session', 'show', 'leaky', '--json', '--state-dir', stateDir]);
      expect(JSON.parse(shown.stdout).terminal.message).toContain('postgres://app:***@db.internal');
      expect(`${everything(r)}${shown.stdout}${shown.stderr}`).not.toContain(SECRET);
    });
  });
});

const nats = useNatsServer();

describe.skipIf(!nats.enabled)('a NATS url with a password', () => {
  const jetstream = (url: string) =>
    config(`provider: script\nscript: s.yaml\nsession:\n  backend: jetstream\n  options: { stream: NOT_THERE }\nnats:\n  url: ${url}\n`);

  it('is hidden in "cannot connect"', async () => {
    const r = await runCli(['session', 'ls', '--config', jetstream(`nats://logbook:${SECRET}@127.0.0.1:9`)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^logbook: cannot connect to NATS at nats:\/\/logbook:\*\*\*@127\.0\.0\.1:9: .*; is nats-server running there\?\n$/);
    expect(r.stderr).not.toContain(SECRET);
  });

  it('is hidden in what a reachable server makes the command say', async () => {
    const url = nats.server().url.replace('nats://', `nats://logbook:${SECRET}@`);
    const r = await runCli(['session', 'ls', '--config', jetstream(url)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^logbook: stream NOT_THERE does not exist on nats:\/\/logbook:\*\*\*@127\.0\.0\.1:\d+; /);
    expect(r.stderr).not.toContain(SECRET);
  });
});
