/**
 * How often a command reads a directory, through the binary: a module given to
 * `node --import` wraps node:fs readdirSync (the file store lists its runs
 * directory with it) and, at exit, appends each directory read, once a read,
 * to $READDIR_LOG.
 *
 *   const r = await runCli([...], { env: directoryReadProbe(log) });
 *   expect(directoryReads(log, runsDir)).toBe(1);
 */
import { existsSync, readFileSync } from 'node:fs';

const PROBE = `import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const read = [];
const readdirSync = fs.readdirSync;
fs.readdirSync = function (path, ...rest) {
  read.push(String(path));
  return readdirSync.call(this, path, ...rest);
};
syncBuiltinESMExports();
process.on('exit', () => fs.appendFileSync(process.env.READDIR_LOG, read.map((p) => p + '\\n').join('')));`;

/** The environment that makes a command log the directories it reads to `log`. */
export function directoryReadProbe(log: string): NodeJS.ProcessEnv {
  return { NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(PROBE)}`, READDIR_LOG: log };
}

/** How many times the commands probed into `log` read directory `dir`. */
export function directoryReads(log: string, dir: string): number {
  if (!existsSync(log)) return 0;
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((path) => path === dir).length;
}
