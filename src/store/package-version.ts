/** logbook's version, from its package.json, and the build's identity (read once each, when first asked). */
import { readFileSync } from 'node:fs';

let read: string | undefined;

export function packageVersion(): string {
  read ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return read;
}

let identity: string | undefined;

/**
 * The build a fold checkpoint names: the version and a digest of the built
 * code, which the build wrote to dist/build.json (scripts/bundle.mjs), so
 * two builds of one version (every development build) are told apart, and a
 * released package takes its own checkpoints in any of its processes. Code
 * run from source (tests) has no such file: its identity is its version and
 * a tag of its process, whose checkpoints no other process takes.
 */
export function buildIdentity(): string {
  identity ??= builtIdentity() ?? `${packageVersion()}+source-${process.pid}-${process.hrtime.bigint()}`;
  return identity;
}

function builtIdentity(): string | undefined {
  try {
    const { build } = JSON.parse(readFileSync(new URL('../build.json', import.meta.url), 'utf8')) as { build?: unknown };
    return typeof build === 'string' ? build : undefined;
  } catch {
    return undefined;
  }
}
