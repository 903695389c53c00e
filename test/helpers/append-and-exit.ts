/**
 * A file-store writer in a process of its own that exits at once after an
 * append, still holding the run (append-and-exit.mjs, the built package).
 */
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const SCRIPT = resolve(dirname(fileURLToPath(import.meta.url)), 'append-and-exit.mjs');

/** Creates run `id` in `dir`, appends a user record and exits with process.exit; its stderr. */
export function appendAndExit(dir: string, id: string): string {
  return spawnSync(process.execPath, [SCRIPT, dir, id], { encoding: 'utf8' }).stderr;
}
