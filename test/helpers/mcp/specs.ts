/** Server specs for the MCP tests: the reference filesystem server and the fixture server. */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  startMcpServers,
  type HttpServerSpec,
  type McpServers,
  type McpServerSpec,
  type StartOptions,
  type StdioServerSpec,
} from '../../../src/agent/tools/mcp/index.js';
import { RawJson } from '../../../src/core/index.js';

const here = dirname(fileURLToPath(import.meta.url));

/** The SDK-built fixture server (see fixture-server.mjs for its tools and flags). */
export const FIXTURE_SERVER = resolve(here, 'fixture-server.mjs');

/** The reference server's entry point, from the dev dependency. */
export const FILESYSTEM_SERVER = join(
  dirname(createRequire(import.meta.url).resolve('@modelcontextprotocol/server-filesystem/package.json')),
  'dist/index.js',
);
if (!existsSync(FILESYSTEM_SERVER)) throw new Error(`no ${FILESYSTEM_SERVER}: run npm ci`);

export function stdioSpec(name: string, command: string[], extra: Partial<StdioServerSpec> = {}): StdioServerSpec {
  return { name, transport: 'stdio', command, env: {}, timeout: 20, startup_timeout: 30, max_output: 100_000, overrides: {}, ...extra };
}

export function fixtureSpec(name: string, flags: string[] = [], extra: Partial<StdioServerSpec> = {}): StdioServerSpec {
  return stdioSpec(name, [process.execPath, FIXTURE_SERVER, ...flags], extra);
}

/** The reference filesystem server, allowed into `dir` alone. */
export function filesystemSpec(name: string, dir: string, extra: Partial<StdioServerSpec> = {}): StdioServerSpec {
  return stdioSpec(name, [process.execPath, FILESYSTEM_SERVER, dir], extra);
}

export function httpSpec(name: string, url: string, extra: Partial<HttpServerSpec> = {}): HttpServerSpec {
  return { name, transport: 'http', url, headers: {}, timeout: 20, startup_timeout: 30, max_output: 100_000, overrides: {}, ...extra };
}

/** startMcpServers with this process's environment unless the options give one. */
export function startServers(specs: McpServerSpec[], options: Partial<StartOptions> = {}): Promise<McpServers> {
  return startMcpServers(specs, { env: process.env, ...options });
}

export const input = (value: unknown): RawJson => RawJson.fromValue(value);

/** The fields of /proc/PID/stat after the command name (state, ppid, pgrp, ...), or null when there is no such process. */
function procStat(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * True while a process with this pid runs. A zombie counts as gone: it has died,
 * and whoever adopted it (pid 1 here) may never reap it.
 */
export function alive(pid: number): boolean {
  const fields = procStat(pid);
  return fields !== null && fields[0] !== 'Z';
}

/**
 * Waits (up to `ms`) for a process to be gone; resolves whether it is. A signal
 * is delivered after kill(2) returns, so a process killed a moment ago may still
 * be on its way out.
 */
export async function gone(pid: number, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  return !alive(pid);
}

/** The process group of a running process. */
export function processGroup(pid: number): number {
  const fields = procStat(pid);
  if (fields === null) throw new Error(`no process ${pid}`);
  return Number(fields[2]);
}
