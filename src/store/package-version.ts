/** logbook's version, from its package.json (read once, when first asked), and the build's identity (read as the module loads). */
import { readFileSync } from 'node:fs';

let read: string | undefined;

export function packageVersion(): string {
  read ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return read;
}

/**
 * The identity the build wrote, read as this module loads, with the code it
 * names: a checkout rebuilt while a process runs (npm run build puts a new
 * dist/ in the old one's place) gives it a build.json of code it is not
 * running, which a read at its first checkpoint, hours on, would take for its
 * own. One read of a small file at each start.
 */
const built = builtIdentity();

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
  identity ??= built ?? `${packageVersion()}+source-${process.pid}-${process.hrtime.bigint()}`;
  return identity;
}

/** The identity the build wrote (buildIdentity), or undefined for code run from source, which has none. */
export function builtCodeIdentity(): string | undefined {
  return built;
}

function builtIdentity(): string | undefined {
  try {
    const { build } = JSON.parse(readFileSync(new URL('../build.json', import.meta.url), 'utf8')) as { build?: unknown };
    return typeof build === 'string' ? build : undefined;
  } catch {
    return undefined;
  }
}
