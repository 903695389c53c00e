/**
 * Where the package's native parts are found: built here (build/Release, by
 * the install script or `npm rebuild`), else prebuilt for this platform in the
 * package (prebuilds/<platform>-<arch>/, made by `npm pack`). Neither: a
 * one-line error naming what is missing and the commands that build it.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { LogbookError } from '../core/index.js';

/** The package's root: this module keeps its place under dist/ (or src/) when bundled. */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The refusal when a native part is neither built nor prebuilt for this platform. */
export function nativeMissing(what: string, cause?: unknown): LogbookError {
  return new LogbookError(
    'addon_missing',
    `${what} is not built, and no prebuilt one fits ${process.platform}-${process.arch}: ` +
      'build it with `npm install-scripts approve logbook && npm rebuild logbook` in the project that installed logbook ' +
      '(npm runs no install script of a dependency unapproved), which needs python3, make and a C compiler',
    cause === undefined ? undefined : { cause },
  );
}

/** The Node-API addon, through node-gyp-build (which picks a build, else a prebuild whose tags fit). */
export function loadAddon<T>(what: string): T {
  const load = createRequire(import.meta.url)('node-gyp-build') as (dir: string) => unknown;
  try {
    return load(PACKAGE_ROOT) as T;
  } catch (err) {
    throw nativeMissing(what, err);
  }
}

/** The path of a native executable, built or prebuilt; null when there is neither. */
export function nativeExecutable(name: string): string | null {
  const candidates = [join(PACKAGE_ROOT, 'build', 'Release', name), join(PACKAGE_ROOT, 'prebuilds', `${process.platform}-${process.arch}`, name)];
  return candidates.find((p) => existsSync(p)) ?? null;
}
