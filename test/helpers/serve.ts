/**
 * `logbook serve` in a process of its own, as an operator runs it: started
 * with a config, ready once it says it serves, its stderr (a line per call)
 * kept, stopped with a signal.
 */
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnCli, type CliOptions } from './cli.js';

export interface ServeProcess {
  child: ChildProcess;
  stderr(): string;
  /** Waits until stderr matches (bounded). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Waits for the process to exit by itself: its code and signal. */
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` and waits for the exit: its code and signal. */
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function startServe(config: string, options: CliOptions & { args?: string[]; ready?: RegExp } = {}): Promise<ServeProcess> {
  const child = spawnCli(['serve', '--config', config, ...(options.args ?? [])], options);
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  child.stdout!.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const waitFor = async (pattern: RegExp, timeoutMs = 20_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(err)) {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`logbook serve exited (${child.exitCode ?? child.signalCode}) before ${pattern}:\n${err}`);
      if (Date.now() > deadline) throw new Error(`logbook serve did not print ${pattern} in ${timeoutMs} ms:\n${err}`);
      await sleep(20);
    }
  };
  await waitFor(options.ready ?? /^serving .* as agent /m);
  return {
    child,
    stderr: () => err,
    waitFor,
    exited: () => exited,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}
