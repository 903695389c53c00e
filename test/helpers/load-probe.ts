/**
 * Which modules a command loads, through the binary: a module given to
 * `node --import` registers hooks that append every resolved module URL to
 * $LOADED_LOG (a Node builtin imported as an ES module as `node:NAME`), and at
 * exit the CommonJS modules required (their cache) and the builtins loaded
 * however they were (`builtin:NAME`, Node's internal ones `builtin:internal/NAME`).
 *
 *   const r = await runCli([...], { env: loadProbe(log) });
 *   expect(loadedSources(log)).not.toMatch(/node_modules\/ink\//);
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HOOKS = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const r = await next(specifier, context);
  appendFileSync(process.env.LOADED_LOG, r.url + '\\n');
  return r;
}
`;
const PROBE = `import { register, createRequire } from 'node:module';
import { appendFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(HOOKS)}`)});
const cache = createRequire(pathToFileURL(process.execPath).href).cache;
const builtins = () => process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => 'builtin:' + m.slice('NativeModule '.length) + '\\n');
process.on('exit', () => appendFileSync(process.env.LOADED_LOG, [...Object.keys(cache).map((f) => pathToFileURL(f).href + '\\n'), ...builtins()].join('')));`;

/** The environment that makes a command log what it loads to `log`. */
export function loadProbe(log: string): NodeJS.ProcessEnv {
  return { NODE_OPTIONS: `--import=data:text/javascript,${encodeURIComponent(PROBE)}`, LOADED_LOG: log };
}

/**
 * The module URLs a probe logged, each file of the built dist/ followed by the
 * files its code was bundled from (the sources its source map names, relative
 * to the repository): a bundled file holds many modules, and what these tests
 * ask is which modules of logbook and which packages a command loaded. A
 * vendored file (dist/vendor/) has no map: its URL stands for it.
 */
export function loadedSources(log: string): string {
  const root = resolve(import.meta.dirname, '../..');
  if (!existsSync(log)) return '';
  return readFileSync(log, 'utf8')
    .split('\n')
    .flatMap((url) => {
      if (!url.startsWith(pathToFileURL(join(root, 'dist')).href)) return [url];
      const file = fileURLToPath(url);
      if (!existsSync(`${file}.map`)) return [url];
      const { sources } = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
      return [url, ...sources.map((source) => relative(root, resolve(dirname(file), source)))];
    })
    .join('\n');
}
