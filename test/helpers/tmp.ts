import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/** A fresh temporary directory, removed after the test file (see removeTempDirs). */
export function tempDir(prefix = 'logbook-test-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/**
 * Removes every directory tempDir made. Called once per test file from the
 * setup file, so it also covers directories made inside a running test, where an
 * afterAll registered late would never run.
 */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
