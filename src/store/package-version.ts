/** logbook's version, from its package.json (read once: a fold checkpoint names the build that wrote it). */
import { readFileSync } from 'node:fs';

let read: string | undefined;

export function packageVersion(): string {
  read ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  return read;
}
