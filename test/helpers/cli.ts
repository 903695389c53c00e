/**
 * Runs the real `logbook` binary (the built dist/, so `npm run build` first) as a
 * child process, the way a person or a script would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tempDir } from './tmp.js';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BIN = resolve(dirname(fileURLToPath(import.meta.url)), '../../bin/logbook');

/** The identity of the built dist/ the binary runs, as the build wrote it (scripts/bundle.mjs): what its fold checkpoints name. */
export function builtIdentity(): string {
  return (JSON.parse(readFileSync(resolve(dirname(BIN), '../dist/build.json'), 'utf8')) as { build: string }).build;
}

/**
 * The command with the `crash-file` and `crash-jetstream` backends linked
 * (crash-bin.mjs): a config naming one of them crashes where LOGBOOK_TEST_CRASH says.
 */
export const CRASH_BIN = resolve(dirname(fileURLToPath(import.meta.url)), 'crash-bin.mjs');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  /** Added to a minimal environment (PATH, HOME, NO_COLOR=1, temporary XDG state, config and cache homes); undefined removes a variable. */
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed. */
  input?: string;
  /** Writes `input` only after this long, as a slow writer of a pipe does (`(sleep 1; echo hi) | logbook ...`). */
  inputAfterMs?: number;
  /** The child is killed after this long (a test bound, not an assertion). */
  timeoutMs?: number;
  /** The entry point to run; BIN unless given. */
  bin?: string;
}

/** The state, config and cache homes a spawned command gets unless a test names its own: never the real ones. */
let homes: { state: string; config: string; cache: string } | undefined;

export function spawnCli(args: string[], options: CliOptions = {}): ChildProcess {
  homes ??= { state: tempDir('logbook-state-home-'), config: tempDir('logbook-config-home-'), cache: tempDir('logbook-cache-home-') };
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NO_COLOR: '1',
    XDG_STATE_HOME: homes.state,
    XDG_CONFIG_HOME: homes.config,
    XDG_CACHE_HOME: homes.cache,
  };
  for (const [k, v] of Object.entries(options.env ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  const child = spawn(process.execPath, [options.bin ?? BIN, ...args], { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'] });
  // A command that exits before reading its stdin (a refusal) closes the pipe first: that is no failure of the test.
  child.stdin!.on('error', () => {});
  if (options.inputAfterMs === undefined) child.stdin!.end(options.input ?? '');
  else setTimeout(() => child.stdin!.end(options.input ?? ''), options.inputAfterMs).unref();
  return child;
}

/** Collects a spawned child's output until it exits. */
export function finished(child: ChildProcess, timeoutMs = 30_000): Promise<CliResult> {
  // Decoded whole at the end: a chunk of a pipe may end inside a multi-byte character.
  const stdout: Buffer[] = [];
  const stderr: Buffer[] = [];
  child.stdout!.on('data', (d: Buffer) => stdout.push(d));
  child.stderr!.on('data', (d: Buffer) => stderr.push(d));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(stdout).toString('utf8'), stderr: Buffer.concat(stderr).toString('utf8') });
    });
  });
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return finished(spawnCli(args, options), options.timeoutMs);
}

/**
 * A copy of the config at `path` (beside it) whose session backend is the crashing
 * twin of its own: crash-jetstream for jetstream, else crash-file. Run it with
 * CRASH_BIN; nothing else in it changes, so its runs resume under the original.
 */
export function crashingConfig(path: string): string {
  const text = readFileSync(path, 'utf8');
  const crashing = /backend:\s*jetstream\b/.test(text)
    ? text.replace(/backend:\s*jetstream\b/, 'backend: crash-jetstream')
    : `${text}\nsession: { backend: crash-file }\n`;
  const out = path.replace(/(\.ya?ml)?$/, '.crash.yaml');
  writeFileSync(out, crashing);
  return out;
}

/** Runs `args` (which name `--config FILE`) with FILE's crashing twin, crashing where `crash` says. */
export function runCrashing(args: string[], crash: string, options: CliOptions = {}): Promise<CliResult> {
  const i = args.indexOf('--config');
  if (i < 0) throw new Error('runCrashing needs --config FILE among the arguments');
  const crashArgs = [...args];
  crashArgs[i + 1] = crashingConfig(args[i + 1]!);
  return runCli(crashArgs, { ...options, bin: CRASH_BIN, env: { ...options.env, LOGBOOK_TEST_CRASH: crash } });
}
