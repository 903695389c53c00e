/** `logbook mcp ls` through the binary (uses dist/: `npm run build` first). */
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finished, runCli, spawnCli } from '../helpers/cli.js';
import { startHttpMcpServer, type HttpMcpServer } from '../helpers/mcp/http-server.js';
import { alive, FILESYSTEM_SERVER, FIXTURE_SERVER, gone } from '../helpers/mcp/specs.js';
import { tempDir } from '../helpers/tmp.js';

const HEAD = 'provider: script\nscript: turns.yaml\n';
const node = JSON.stringify(process.execPath);

/** Live processes whose working directory is `dir`. */
function processesIn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readlinkSync(`/proc/${p}/cwd`) === dir && alive(Number(p));
      } catch {
        return false;
      }
    })
    .map(Number);
}

function config(dir: string, mcp: string): string {
  const file = join(dir, 'agent.yaml');
  writeFileSync(file, `${HEAD}${mcp}`);
  return file;
}

describe('logbook mcp ls', () => {
  let web: HttpMcpServer;
  beforeAll(async () => {
    web = await startHttpMcpServer({ header: { name: 'X-Api-Key', value: 'k-123' } });
  });
  afterAll(async () => web?.close());

  it('lists each server with the tools it exposes, their annotations and policy, and stops the servers', async () => {
    const dir = tempDir();
    const sandbox = join(dir, 'sandbox');
    const file = config(
      dir,
      [
        'mcp:',
        '  - name: fs',
        `    command: [${node}, ${JSON.stringify(FILESYSTEM_SERVER)}, ./sandbox]`,
        '    cwd: .',
        '    tools: [read_text_file, write_file, edit_file]',
        '    overrides: { write_file: { confirm: true } }',
        '  - name: fx',
        `    command: [${node}, ${JSON.stringify(FIXTURE_SERVER)}]`,
        '    tools: [echo, delete_thing]',
        '    overrides: { delete_thing: { side_effects: false } }',
        '  - name: web',
        `    url: ${web.url}`,
        '    headers: { X-Api-Key: "${MCP_LS_KEY}" }',
      ].join('\n'),
    );
    mkdirSync(sandbox);
    const r = await runCli(['mcp', 'ls', '--config', file], { env: { MCP_LS_KEY: 'k-123' }, timeoutMs: 60_000 });
    expect(r.stderr).toBe(''); // the servers' own stderr stays out of it
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe(`fs  stdio  ${process.execPath} ${FILESYSTEM_SERVER} ./sandbox  (3 of 14 tools exposed)`);
    expect(r.stdout).toMatch(/^ {2}TOOL +ANNOTATIONS +SIDE EFFECTS +CONFIRM$/m);
    expect(r.stdout).toMatch(/^ {2}mcp__fs__read_text_file +read-only, closed world +no \(read-only\) +no$/m);
    expect(r.stdout).toMatch(/^ {2}mcp__fs__write_file +writes, destructive, idempotent, closed world +no \(idempotent\) +yes \(agent\.yaml\)$/m);
    expect(r.stdout).toMatch(/^ {2}mcp__fs__edit_file +writes, destructive, not idempotent, closed world +yes \(neither read-only nor idempotent\) +no$/m);
    expect(r.stdout).toMatch(/^ {2}not exposed \(its tools: list in agent\.yaml leaves them out\): read_file, read_media_file, .*list_allowed_directories$/m);
    expect(r.stdout).toMatch(/^fx {2}stdio {2}.*fixture-server\.mjs {2}\(2 of 12 tools exposed\)$/m);
    expect(r.stdout).toMatch(/^ {2}mcp__fx__echo +none +yes \(no hints: the protocol default\) +no$/m);
    expect(r.stdout).toMatch(/^ {2}mcp__fx__delete_thing +destructive, not idempotent +no \(agent\.yaml\) +no$/m);
    expect(r.stdout).toMatch(new RegExp(`^web {2}http {2}${web.url.replace(/\./g, '\\.')} {2}\\(2 tools\\)$`, 'm'));
    expect(r.stdout).toMatch(/^ {2}mcp__web__add +read-only +no \(read-only\) +no$/m);
    expect(r.stdout).not.toContain('k-123');
    expect(web.seen.at(-1)).toBe('k-123');
    expect(web.ended.length).toBeGreaterThanOrEqual(1);
    // The filesystem server, the only process that ran in this directory, is gone.
    for (const pid of processesIn(dir)) expect(await gone(pid)).toBe(true);
  });

  it('fails with one line naming a server that cannot start and the tail of its stderr', async () => {
    const dir = tempDir();
    const file = config(
      dir,
      `mcp:\n  - name: ok\n    command: [${node}, ${JSON.stringify(FIXTURE_SERVER)}]\n  - name: db\n    command: [${node}, ${JSON.stringify(FIXTURE_SERVER)}, --exit-at-once]\n`,
    );
    const r = await runCli(['mcp', 'ls', '--config', file], { timeoutMs: 60_000 });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(
      'logbook: MCP server "db" did not start: exited with code 3; its stderr ended with: fixture: starting / fixture: cannot open /nonexistent/state.db\n',
    );
  });

  it('fails with one line when a header names an unset variable, and for a config mistake', async () => {
    const dir = tempDir();
    const file = config(dir, `mcp:\n  - { name: web, url: "${web.url}", headers: { X-Api-Key: "\${MCP_LS_KEY}" } }\n`);
    const r = await runCli(['mcp', 'ls', '--config', file]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'logbook: MCP server "web": headers.X-Api-Key names the environment variable MCP_LS_KEY, which is not set; set it, or change agent.yaml\n',
    );
    const bad = config(dir, 'mcp:\n  - { name: web }\n');
    const r2 = await runCli(['mcp', 'ls', '--config', bad]);
    expect(r2.code).toBe(1);
    expect(r2.stderr).toBe(`logbook: ${bad}: mcp[0] (web): give either command (a server run over stdio) or url (a Streamable HTTP server)\n`);
  });

  it('finds the config as the other commands do, and says so when there is none', async () => {
    const dir = tempDir();
    const none = await runCli(['mcp', 'ls'], { cwd: dir, env: { XDG_CONFIG_HOME: join(dir, 'xdg') } });
    expect(none).toMatchObject({
      code: 1,
      stdout: '',
      stderr: 'logbook: no config: pass --config FILE, set LOGBOOK_CONFIG, or create ./agent.yaml or $XDG_CONFIG_HOME/logbook/agent.yaml (examples/ has one per provider)\n',
    });
    const file = config(dir, '');
    const found = await runCli(['mcp', 'ls'], { cwd: tempDir(), env: { LOGBOOK_CONFIG: file, XDG_CONFIG_HOME: join(dir, 'xdg') } });
    expect(found).toMatchObject({ code: 0, stdout: `no MCP servers in ${file}; an mcp: list adds them (see docs/guide/mcp.md)\n` });
  });

  it('says so when the config has no MCP servers', async () => {
    const dir = tempDir();
    const file = config(dir, '');
    const r = await runCli(['mcp', 'ls', '--config', file]);
    expect(r).toMatchObject({ code: 0, stderr: '', stdout: `no MCP servers in ${file}; an mcp: list adds them (see docs/guide/mcp.md)\n` });
  });

  /** Starts `mcp ls` on a server that never answers and ignores the end of its input; resolves once it runs. */
  async function hanging() {
    const dir = tempDir();
    const pidFile = join(dir, 'pid');
    const script = `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`;
    const file = config(dir, `mcp:\n  - name: slow\n    command: [${node}, -e, ${JSON.stringify(script)}]\n    startup_timeout: 600\n`);
    const child = spawnCli(['mcp', 'ls', '--config', file]);
    const done = finished(child, 60_000);
    for (let i = 0; i < 300 && !existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 100));
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(pid)).toBe(true);
    return { child, done, pid };
  }

  it('leaves no server behind when it is killed with SIGKILL', async () => {
    const { child, done, pid } = await hanging();
    child.kill('SIGKILL');
    expect((await done).signal).toBe('SIGKILL');
    expect(await gone(pid)).toBe(true);
  });

  it('stops the servers it started when interrupted while they start, and exits 130', async () => {
    const { child, done, pid } = await hanging();
    child.kill('SIGINT');
    const r = await done;
    expect(r.code).toBe(130);
    expect(r.stderr).toBe('logbook: interrupted; every MCP server it had started is stopped\n');
    expect(await gone(pid)).toBe(true);
  });
});
