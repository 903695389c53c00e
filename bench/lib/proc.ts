/**
 * Timing whole processes: from spawn to exit, or to the first line in a file;
 * with each, the CPU time the process spent (its threads and the processes it
 * waited for), which other work on the machine changes far less than its wall
 * time.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { cpuBetween, sampleCpu } from './cpu.js';
import { now } from './stats.js';

/**
 * What a timed process cost: its CPU time in ms, that of the children this
 * process reaped between its spawn and its close (the kernel counts it in 10
 * ms ticks: exact summed over rounds, ±10 ms for one; the timers here run one
 * process at a time). Null off Linux.
 */
export interface ProcessCost {
  cpuMs: number | null;
}

/** Starts counting a process's cost at its spawn; the returned function ends it at its close. */
function costOf(): () => ProcessCost {
  const before = sampleCpu();
  return () => ({ cpuMs: cpuBetween(before, sampleCpu())?.childrenMs ?? null });
}

export interface ProcessRun extends ProcessCost {
  /** Milliseconds from spawn to exit. */
  ms: number;
  code: number | null;
  /** What it printed; with `discardStdout`, only its first 64 KiB. */
  stdout: string;
  /** How many bytes it printed on stdout. */
  stdoutBytes: number;
  stderr: string;
}

export interface ProcessOptions {
  env?: NodeJS.ProcessEnv;
  /** Keep only the first 64 KiB of stdout (and count the rest): for commands that print a whole run. */
  discardStdout?: boolean;
}

const KEPT_WHEN_DISCARDING = 64 * 1024;

/**
 * The process's peak resident set in KiB, printed on stderr at exit by a module
 * given to \`node --import\`; both sides of a comparison load it, so it costs
 * them alike. It is VmHWM from /proc/self/status: Linux carries ru_maxrss
 * (\`process.resourceUsage().maxRSS\`) across exec from the forked copy of the
 * parent, so a child of a large benchmark process would report at least the
 * parent's size. Elsewhere it falls back to maxRSS.
 */
export const PEAK_RSS_IMPORT =
  "data:text/javascript,import{readFileSync}from'node:fs';process.on('exit',()=>{let k=process.resourceUsage().maxRSS;try{k=Number(/VmHWM:\\s*(\\d+)/.exec(readFileSync('/proc/self/status','utf8'))[1])}catch{}process.stderr.write('peak-rss '+k+'\\n')})";

/** The peak RSS (KiB) a process started with PEAK_RSS_IMPORT reported, or null. */
export function peakRssKiB(run: ProcessRun): number | null {
  const m = /peak-rss (\d+)/.exec(run.stderr);
  return m === null ? null : Number(m[1]);
}

/**
 * Spawns `args[0]` with the rest as arguments, collects its output and times it
 * to exit. It runs in `cwd` (a bench temp dir), so no ./agent.yaml where the
 * suite was started from changes what a command does.
 */
export function timeProcess(args: readonly string[], cwd: string, options: ProcessOptions = {}): Promise<ProcessRun> {
  const { env = process.env, discardStdout = false } = options;
  return new Promise((resolve, reject) => {
    const cost = costOf();
    const start = now();
    const child = spawn(args[0]!, args.slice(1), { stdio: ['ignore', 'pipe', 'pipe'], env, cwd });
    let stdout = '';
    let stdoutBytes = 0;
    let stderr = '';
    const text = new StringDecoder('utf8');
    child.stdout.on('data', (d: Buffer) => {
      stdoutBytes += d.length;
      if (!discardStdout || stdout.length < KEPT_WHEN_DISCARDING) stdout += text.write(d);
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => {
      const ms = now() - start;
      resolve({ ms, code, stdout, stdoutBytes, stderr, ...cost() });
    });
  });
}

/**
 * Spawns the command and times it until `file` holds a first line (watched with
 * inotify, not polled, so the watcher takes no CPU from the child); then waits
 * for the process to exit. Fails when it exits without writing the line.
 */
export function timeToFirstLine(args: readonly string[], file: string, cwd: string, env: NodeJS.ProcessEnv): Promise<{ ms: number; exit: ProcessRun }> {
  return new Promise((resolve, reject) => {
    let seen: number | null = null;
    const check = (): void => {
      if (seen === null && existsSync(file) && readFileSync(file, 'utf8').includes('\n')) seen = now() - start;
    };
    const watcher = watch(dirname(file), (_event, name) => {
      if (name === basename(file)) check();
    });
    const start = now();
    timeProcess(args, cwd, { env }).then(
      (exit) => {
        watcher.close();
        check();
        if (seen === null) reject(new Error(`${args.join(' ')} exited (${exit.code}) before writing ${file}:\n${exit.stderr}`));
        else resolve({ ms: seen, exit });
      },
      (err: unknown) => {
        watcher.close();
        reject(err);
      },
    );
  });
}

/** A process timed to its exit on the benchmark's clock, so other events (a request it made) are timed on the same one. */
export interface Spawned extends ProcessCost {
  /** When it was spawned and when it exited, on the benchmark's clock. */
  start: number;
  exit: number;
  code: number | null;
  stderr: string;
}

/** Runs a process to its exit (the `exit` event: the process is gone, whatever its output pipes still hold). */
export function spawnTimed(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<Spawned> {
  return new Promise((resolve, reject) => {
    const cost = costOf();
    const start = now();
    const child = spawn(args[0]!, args.slice(1), { stdio: ['ignore', 'ignore', 'pipe'], cwd, env });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    let exit = 0;
    child.on('exit', () => (exit = now()));
    child.on('close', (code) => {
      resolve({ start, exit, code, stderr, ...cost() });
    });
  });
}
