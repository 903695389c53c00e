/**
 * Runs the real `logbook` binary (the built dist/, so `npm run build` first) as a
 * child process, the way a person or a script would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/logbook');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  /** Added to a minimal environment (PATH, HOME, NO_COLOR=1). */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed. */
  input?: string;
  /** The child is killed after this long (a test bound, not an assertion). */
  timeoutMs?: number;
}

export function spawnCli(args: string[], options: CliOptions = {}): ChildProcess {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', NO_COLOR: '1' };
  for (const [k, v] of Object.entries(options.env ?? {})) if (v !== undefined) env[k] = v;
  const child = spawn(process.execPath, [BIN, ...args], { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin!.end(options.input ?? '');
  return child;
}

/** Collects a spawned child's output until it exits. */
export function finished(child: ChildProcess, timeoutMs = 30_000): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return finished(spawnCli(args, options), options.timeoutMs);
}
