/**
 * Other processes holding runs of a file store (lock-holder.mjs, running the
 * built package): each has taken a run's lock and appended one `suspended`
 * record (none with `appendNothing`), and waits to be killed. And one holding
 * runs while other locks come and go (lock-churner.mjs).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = resolve(dirname(fileURLToPath(import.meta.url)), 'lock-holder.mjs');
const CHURNER = resolve(dirname(fileURLToPath(import.meta.url)), 'lock-churner.mjs');
const running = new Set<ChildProcess>();

/** A process holding run `id` of the file store in `runsDir`, once it says it holds it. */
export function startLockHolder(runsDir: string, id: string, options: { appendNothing?: boolean } = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, [SCRIPT, runsDir, id, ...(options.appendNothing ? ['--append-nothing'] : [])], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return new Promise((ok, fail) => {
    child.stdout!.once('data', (d: Buffer) => (d.toString().includes('holding') ? ok(child) : fail(new Error(d.toString()))));
    child.once('exit', (c) => fail(new Error(`lock holder exited with ${c}`)));
  });
}

/**
 * A process holding runs `ids` of the file store in `runsDir` (their writer's
 * locks) and taking and releasing `churning` other locks on files in
 * `churnDir`, all at once, over and over, once it says it does; it stops when
 * its stdin is ended.
 */
export function startLockChurner(runsDir: string, churnDir: string, churning: number, ids: readonly string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CHURNER, runsDir, churnDir, String(churning), ...ids], { stdio: ['pipe', 'pipe', 'inherit'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  return new Promise((ok, fail) => {
    child.stdout!.once('data', (d: Buffer) => (d.toString().includes('churning') ? ok(child) : fail(new Error(d.toString()))));
    child.once('exit', (c) => fail(new Error(`lock churner exited with ${c}`)));
  });
}

/** Kills every holder still running (for afterAll). */
export function killLockHolders(): void {
  for (const child of running) child.kill('SIGKILL');
}
