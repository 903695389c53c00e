/** Where the suite runs: options, temp dirs on one disk, the machine's description. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, tmpdir, release } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (dist-bench/lib/env.js is two levels below it). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = join(ROOT, 'bin', 'logbook');

export interface BenchOptions {
  /** Smaller sizes and fewer rounds, for developing the suite. */
  quick: boolean;
}

const made: string[] = [];

/** A fresh temp dir; every side of every comparison uses these, so all are on one disk. */
export function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `logbook-bench-${label}-`));
  made.push(dir);
  return dir;
}

export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * Writes back what is waiting in the page cache (sync(1)), so that what one
 * benchmark wrote without fsync is not written back while the next one is timed.
 */
export function settleDisk(): void {
  spawnSync('sync', { stdio: 'ignore' });
}

/** The file system holding the temp dirs, from /proc/mounts ("ext4 on /dev/vda"). */
function tempFileSystem(): string {
  try {
    const dir = tmpdir();
    let best: { point: string; text: string } | null = null;
    for (const row of readFileSync('/proc/mounts', 'utf8').split('\n')) {
      const [device, point, type] = row.split(' ');
      if (device === undefined || point === undefined || type === undefined) continue;
      if ((dir === point || dir.startsWith(point.endsWith('/') ? point : `${point}/`)) && (best === null || point.length > best.point.length)) {
        best = { point, text: `${type} on ${device}` };
      }
    }
    return best?.text ?? 'unknown file system';
  } catch {
    return 'unknown file system';
  }
}

export function machine(): string {
  const cpu = cpus();
  return `${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, Linux ${release()}, Node ${process.version}, temp dirs in ${tmpdir()} (${tempFileSystem()})`;
}
