#!/usr/bin/env node
/**
 * Part of the build (last): bundles the modules tsc wrote to .build/tsc/ into
 * dist/, so that a start reads three files instead of some seventy: Node 20
 * has no compile cache, and its ES module loader resolves, reads, compiles and
 * links each file on its own, which was most of what `session ls` spent.
 *
 * - dist/cli/main.js (what bin/logbook imports) and dist/index.js (the
 *   package's API, whose declarations tsc wrote beside it) are the entries.
 * - Everything a start of the command loads is in two chunks behind the entry:
 *   `common`, which it shares with the API (the core, the store, the file
 *   backend), and `command` (commander, converted from CommonJS to an ES
 *   module by esbuild, the command's registrations, the rest of AT_START).
 * - What a run loads beyond those (RUN_PATH: the run command, the agent, its
 *   renderings and the providers' shared parts) is two chunks: `agent`, what
 *   of it the API imports too (the agent, the runner, the providers' shared
 *   parts), and `run`, the rest (the run command and its terminal parts), so
 *   that importing the API loads no module of the command line. Any other
 *   command that imports one of their modules loads that chunk whole.
 * - Every other dynamic import stays one: the providers, Ink,
 *   the renderers, the JetStream backend and the rarer commands load as their
 *   own chunks when a command needs them. Packages other than commander stay
 *   in node_modules and load as they did, but for YAML and Ajv, each bundled
 *   into one file of its own (dist/vendor/, loaded by require), and the two
 *   provider SDKs and the OpenTelemetry SDK: what a provider uses of its SDK
 *   (and a traced run of OpenTelemetry's) is named by one module
 *   (src/agent/providers/anthropic-sdk.ts, openai-sdk.ts, src/otel/sdk.ts),
 *   bundled with the packages it imports into one ES module
 *   (dist/vendor/NAME.mjs), the rest of the SDK left out; the Anthropic SDK
 *   alone is some 270 files, whose one-by-one loading was a third of a run's
 *   start.
 * - Node's builtins are modules of the bundle (builtinModule): each export a
 *   module imports is taken from process.getBuiltinModule, where an `import`
 *   of a builtin made Node build its ES module facade at every start; the
 *   vendored ES modules take them from there too (builtinsOfTheBundle).
 * - Every ES module written is ASCII (other characters as escapes, proved to
 *   print the same code): Node decodes each to a one-byte string.
 * - Each module keeps the import.meta.url it had unbundled (its place under
 *   dist/), so what it finds by a relative URL (package.json, the native
 *   addons in build/Release, dist/validators) it still finds.
 * - Source maps lead back to src/ (Node uses them with LOGBOOK_DEBUG=1 or
 *   --verbose; see bin/logbook).
 * - Last, dist/build.json names the build: the package's version and a
 *   SHA-256 of the code written (every module of dist/, validators and
 *   vendored ones included), which a fold checkpoint names, so that one
 *   written by another build, of the same version or not, is not taken up
 *   (src/store/package-version.ts). Computed here once, never at a start.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, transformSync } from 'esbuild';
import { rollup } from 'rollup';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAGE = fileURLToPath(new URL('../.build/tsc/', import.meta.url));
/** Where the build writes (scripts/build.mjs gives its staging directory, beside dist/), in place of dist/. */
const DIST = fileURLToPath(new URL(`../${process.argv[2] ?? 'dist'}/`, import.meta.url));
const ENTRIES = { 'cli/main': 'cli/main.js', index: 'index.js' };
/**
 * Modules the command imports lazily that `session ls` and the other store
 * commands need as soon as they run: cheaper in the start files than as
 * chunks of their own.
 */
const AT_START = [
  'cli/session/ls.js',
  'cli/terminal.js',
  'store/file/file-backend.js',
  // What `session show` shares with a run: small pure modules, here so that a show loads neither of the run's chunks.
  'agent/instructions.js',
  'agent/run-rests.js',
  'cli/fields.js',
  'render/durations.js',
  'render/remote-count.js',
  'render/text-head.js',
  'config/side-effects.js',
];
/**
 * The modules a run loads beyond the start files, each imported lazily by some
 * command: with what they import statically (less the start's), two chunks,
 * `agent` (those the API imports too) and `run` (the command line's), where
 * each was a chunk of its own (some twenty-five files a run resolved and
 * linked one by one). Another command that imports one of them loads its
 * chunk whole. The providers stay chunks of their own: each imports its SDK.
 */
const RUN_PATH = [
  'cli/run.js',
  'agent/run.js',
  'agent/runner.js',
  'agent/approvals.js',
  'agent/workspace.js',
  'agent/providers/index.js',
  'agent/providers/retry.js',
  'agent/providers/credentials.js',
  'agent/providers/settings.js',
  'agent/providers/streaming.js',
  'agent/providers/sdk-errors.js',
  'agent/providers/tool-input.js',
  'cli/approvals.js',
  'cli/output.js',
  'cli/progress.js',
  'cli/questions.js',
  'cli/signals.js',
  'cli/tracing.js',
  'cli/mcp/start-label.js',
  'otel/export.js',
  'render/calls.js',
  'render/lines.js',
  'render/narration.js',
  'render/results.js',
  'render/text-width.js',
  'store/fork.js',
  'store/workspace/shelf.js',
];
const COMMANDER = fileURLToPath(import.meta.resolve('commander'));
/** CommonJS packages of many files that a run loads, each bundled into one (dist/vendor/NAME.cjs). */
const VENDORED = ['yaml', 'ajv'];
/**
 * Of YAML, what logbook uses (src/schema/precompiled.ts, YamlParser): bundled
 * from the package's ES module build, which esbuild prunes to what these
 * need (its CommonJS build keeps all it exports, and loaded in twice the time).
 */
const YAML_EXPORTS = ['parse', 'YAMLParseError'];
/**
 * The modules that name what logbook uses of an ES module package of many files
 * that a run loads (a provider's SDK), each bundled with the packages it
 * imports into one file (dist/vendor/NAME.mjs), what it does not name left out.
 */
const VENDORED_ESM = { 'agent/providers/anthropic-sdk.js': 'anthropic-sdk', 'agent/providers/openai-sdk.js': 'openai-sdk', 'otel/sdk.js': 'otel-sdk' };
/**
 * Vendored modules whose packages are bundled from their ES module builds
 * (package.json's "module"), which esbuild prunes to what is used: the
 * OpenTelemetry packages' CommonJS builds keep all they export (their metrics
 * and logs SDKs too), seven times the code.
 */
const FROM_ES_MODULES = new Set(['otel/sdk.js']);
const vendoredEsm = (module) => join(DIST, 'vendor', `${VENDORED_ESM[module]}.mjs`);
/** How the bundle names an import of a vendored module until output.paths makes it a path. */
const VENDOR_ID = 'vendored:';
/** The vendored module a staged module's import names, or undefined. */
function vendoredModule(source, importer) {
  if (importer === undefined || !source.startsWith('.')) return undefined;
  const module = relative(STAGE, resolve(dirname(importer), source)).split(sep).join('/');
  return Object.hasOwn(VENDORED_ESM, module) ? module : undefined;
}

const staged = (path) => STAGE + path.split('/').join(sep);
const isStaged = (id) => id.startsWith(STAGE);

/** commander is CommonJS: esbuild makes one ES module of it (its require()s of Node's builtins go through createRequire). */
async function commanderModule() {
  const out = await build({
    entryPoints: [COMMANDER],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    sourcemap: 'external',
    outfile: 'commander.js',
    absWorkingDir: ROOT,
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  const file = (ext) => out.outputFiles.find((f) => f.path.endsWith(ext)).text;
  const map = JSON.parse(file('.js.map'));
  // esbuild names the sources from where it ran; the bundle's maps name them from dist/.
  map.sources = map.sources.map((source) => resolve(ROOT, source));
  return { code: file('.js').replace(/\n\/\/# sourceMappingURL=.*\n?$/, '\n'), map };
}

/** How the bundle names a Node builtin that its modules import (builtinModule). */
const BUILTIN_ID = '\0builtin:';
/**
 * A Node builtin as a module of the bundle: each export it is asked for taken
 * from process.getBuiltinModule, where an `import` of it made Node build the
 * builtin's ES module facade, which reads every export (node:fs's stream
 * classes load Node's streams for it) and copies them at each start. An export
 * no module imports is left out, so never read.
 */
function builtinModule(name) {
  const names = Object.keys(createRequire(import.meta.url)(name)).filter((key) => /^[A-Za-z_$][\w$]*$/.test(key) && key !== 'default');
  return [
    `const builtin = /*#__PURE__*/ process.getBuiltinModule(${JSON.stringify(name)});`,
    'const take = (name) => builtin[name];',
    'export default builtin;',
    ...names.map((key) => `export const ${key} = /*#__PURE__*/ take(${JSON.stringify(key)});`),
  ].join('\n');
}

/** The modules `from` imports statically, transitively, `from` included. */
function staticClosure(from, getModuleInfo) {
  const seen = new Set();
  const visit = (id) => {
    if (seen.has(id)) return;
    seen.add(id);
    for (const next of getModuleInfo(id)?.importedIds ?? []) visit(next);
  };
  for (const id of from) visit(id);
  return seen;
}

let start = null;
const bundle = await rollup({
  input: Object.fromEntries(Object.entries(ENTRIES).map(([name, path]) => [name, staged(path)])),
  external: (id) => !(id.startsWith('.') || id.startsWith('/') || id === 'commander' || id.startsWith(BUILTIN_ID) || isBuiltin(id)),
  plugins: [
    {
      name: 'logbook',
      resolveId: (id, importer) => {
        if (id === 'commander') return COMMANDER;
        if (isBuiltin(id)) return { id: `${BUILTIN_ID}${id.startsWith('node:') ? id : `node:${id}`}`, moduleSideEffects: false };
        const vendored = vendoredModule(id, importer);
        return vendored === undefined ? null : { id: `${VENDOR_ID}${vendored}`, external: true };
      },
      async load(id) {
        if (id === COMMANDER) return commanderModule();
        if (id.startsWith(BUILTIN_ID)) return builtinModule(id.slice(BUILTIN_ID.length));
        if (!isStaged(id)) return null;
        // tsc's own source map, so that the bundle's maps lead to src/.
        const map = `${id}.map`;
        return { code: readFileSync(id, 'utf8'), map: existsSync(map) ? readFileSync(map, 'utf8') : null };
      },
      resolveImportMeta(property, { moduleId, chunkId }) {
        if (property !== 'url' || !isStaged(moduleId)) return null;
        const unbundled = relative(STAGE, moduleId).split(sep).join('/');
        const fromChunk = relative(dirname(chunkId), unbundled).split(sep).join('/');
        return `new URL(${JSON.stringify(fromChunk)}, import.meta.url).href`;
      },
    },
  ],
});

const { output } = await bundle.write({
  dir: DIST,
  format: 'es',
  sourcemap: true,
  // Stack traces need the mappings, not the sources (which are not shipped).
  sourcemapExcludeSources: true,
  entryFileNames: '[name].js',
  chunkFileNames: '[name]-[hash].js',
  // Chunks are written to dist/ itself (the entries, below it, never import a provider).
  paths: (id) => (id.startsWith(VENDOR_ID) ? `./vendor/${VENDORED_ESM[id.slice(VENDOR_ID.length)]}.mjs` : id),
  manualChunks(id, { getModuleInfo }) {
    if (start === null) {
      const command = staticClosure([staged(ENTRIES['cli/main']), ...AT_START.map(staged)], getModuleInfo);
      const run = new Set([...staticClosure(RUN_PATH.map(staged), getModuleInfo)].filter((id) => !command.has(id)));
      start = { command, api: staticClosure([staged(ENTRIES.index)], getModuleInfo), run };
    }
    if (start.run.has(id)) return start.api.has(id) ? 'agent' : 'run';
    // A builtin that only lazily loaded modules import: in the run's chunk if a run imports it, else where rollup puts it.
    if (id.startsWith(BUILTIN_ID) && !start.command.has(id)) return null;
    if (!start.command.has(id)) return null;
    return start.api.has(id) ? 'common' : 'command';
  },
});
const written = Object.fromEntries(output.filter((o) => o.type === 'chunk').map((o) => [o.fileName, o.code]));
await bundle.close();
for (const [file, code] of Object.entries(written)) {
  if (file.includes('/') && code.includes('./vendor/')) throw new Error(`${file}, below dist/, imports a vendored module by a path that is only right from dist/`);
}

/**
 * YAML and Ajv, which a run with a config loads (src/schema/precompiled.ts's
 * vendored): each bundled into one CommonJS file, dist/vendor/NAME.cjs, as it
 * is (not minified), with its license named. They stay dependencies, so
 * running from source, and their types, use the package itself.
 */
for (const name of VENDORED) {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8'));
  await build({
    ...(name === 'yaml' ? yamlEntry() : { entryPoints: [fileURLToPath(import.meta.resolve(name))] }),
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node20',
    outfile: join(DIST, 'vendor', `${name}.cjs`),
    absWorkingDir: ROOT,
    banner: { js: `/* ${name} ${pkg.version} (${pkg.license}), bundled from node_modules/${name} by logbook's build; its license is node_modules/${name}/LICENSE. */` },
    legalComments: 'inline',
    logLevel: 'warning',
  });
}

/**
 * YAML_EXPORTS of the YAML package's ES module build (the one it gives
 * browsers): the same code as its Node build but for how it warns and how it
 * reads !!binary, so its log.js is the Node build's (a warning is a process
 * warning, as the package gives it to Node; the ES module build would print it
 * with console.warn) and its binary tag reads base64 with Buffer (nodeBinary).
 */
function yamlEntry() {
  const pkg = join(ROOT, 'node_modules', 'yaml');
  const esm = join(pkg, 'browser', 'index.js');
  const nodeLog = join(pkg, 'dist', 'log.js');
  if (!existsSync(esm) || !existsSync(nodeLog)) throw new Error(`the YAML package has no ${relative(ROOT, esm)} or ${relative(ROOT, nodeLog)}: see YAML_EXPORTS in scripts/bundle.mjs`);
  return {
    stdin: { contents: `export { ${YAML_EXPORTS.join(', ')} } from ${JSON.stringify(esm)};`, resolveDir: ROOT, sourcefile: 'yaml-exports.js' },
    plugins: [
      {
        name: 'yaml-node-log',
        setup(b) {
          b.onResolve({ filter: /(^|\/)log\.js$/ }, (args) => (args.importer.startsWith(join(pkg, 'browser') + sep) ? { path: nodeLog } : undefined));
          b.onLoad({ filter: /[\\/]yaml-1\.1[\\/]binary\.js$/ }, (args) => (args.path.startsWith(join(pkg, 'browser') + sep) ? { contents: nodeBinary(args.path), loader: 'js' } : undefined));
        },
      },
    ],
  };
}

/**
 * The ES module build's !!binary tag, reading base64 as the Node build does:
 * with Buffer (a Buffer, lenient with what is not base64), where the ES module
 * build uses atob (a Uint8Array, and an error for a character outside base64).
 */
function nodeBinary(path) {
  const code = readFileSync(path, 'utf8');
  const atob = "if (typeof atob === 'function') {";
  if (!code.includes(atob)) throw new Error(`${relative(ROOT, path)} no longer reads base64 with atob: see nodeBinary in scripts/bundle.mjs`);
  return `import { Buffer } from 'node:buffer';\n${code.replace(atob, `if (typeof Buffer === 'function') {\n            return Buffer.from(src, 'base64');\n        }\n        else ${atob}`)}`;
}

/**
 * Node's builtins that a vendored ES module imports, taken from
 * process.getBuiltinModule (as the bundle's own modules take them:
 * builtinModule) where an `import` made Node build each one's ES module facade
 * at every start, reading every export. As a CommonJS module of the bundle,
 * each export is read where the code reads it.
 */
const builtinsOfTheBundle = {
  name: 'builtins',
  setup(b) {
    b.onResolve({ filter: /^[\w:/]+$/ }, (args) => (isBuiltin(args.path) && args.kind === 'import-statement' ? { path: args.path.startsWith('node:') ? args.path : `node:${args.path}`, namespace: 'builtin' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({ contents: `module.exports = process.getBuiltinModule(${JSON.stringify(args.path)});`, loader: 'js' }));
  },
};

/**
 * The provider SDKs and OpenTelemetry's (the bundle above points the
 * imports of VENDORED_ESM's modules here): each module an ES module of its
 * own with the packages it imports, as they are (not minified), with their licenses kept. Running from
 * source, and the types, use the packages themselves.
 */
for (const module of Object.keys(VENDORED_ESM)) {
  await build({
    entryPoints: [staged(module)],
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outfile: vendoredEsm(module),
    ...(FROM_ES_MODULES.has(module) ? { mainFields: ['module', 'main'] } : {}),
    absWorkingDir: ROOT,
    // A CommonJS dependency's require() of a Node builtin needs a require in an ES module.
    banner: {
      js: `/* src/${module.replace(/\.js$/, '.ts')} and what it imports from node_modules, bundled by logbook's build; the packages' licenses are in node_modules. */\nimport { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);`,
    },
    legalComments: 'inline',
    logLevel: 'warning',
    plugins: [builtinsOfTheBundle],
  });
}

/**
 * Every ES module written is ASCII: each other character (in a comment, most
 * of them, or a string) is written as its \uXXXX escape. Node decodes a
 * module's UTF-8 into a string that V8 then parses, and one character past
 * Latin-1 makes the whole string two bytes a character: slower to decode and
 * to scan, in a start that reads some megabyte and a half of modules. The
 * escapes are proved to change nothing: esbuild prints each module, with and
 * without them, to the same code (comments left out), or the build fails.
 */
for (const path of readdirSync(DIST, { recursive: true, encoding: 'utf8' }).filter((p) => /\.(?:js|mjs)$/.test(p))) {
  const file = join(DIST, path);
  const code = readFileSync(file, 'utf8');
  const ascii = code.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (ascii === code) continue;
  const printed = (text) => transformSync(text, { format: 'esm', minifyWhitespace: true, charset: 'ascii', legalComments: 'none', logLevel: 'silent' }).code;
  if (printed(ascii) !== printed(code)) {
    throw new Error(`dist/${path}: its non-ASCII characters written as escapes print as other code (in a regular expression, or a tagged template's raw text, esbuild keeps the text as written): write them as escapes in its source`);
  }
  writeFileSync(file, ascii);
}

/**
 * dist/build.json: `build`, the version and a digest of every module written
 * (each one's path under dist/ and its bytes, in the order of their paths;
 * source maps and declarations are not code). The same code of the same
 * version gives the same name, wherever it is built.
 */
{
  const code = readdirSync(DIST, { recursive: true, encoding: 'utf8' })
    .map((path) => path.split(sep).join('/'))
    .filter((path) => /\.(?:js|mjs|cjs)$/.test(path))
    .sort();
  const hash = createHash('sha256');
  for (const path of code) hash.update(`${path}\n`).update(readFileSync(join(DIST, path))).update('\n');
  const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  writeFileSync(join(DIST, 'build.json'), `${JSON.stringify({ build: `${version}+${hash.digest('hex').slice(0, 16)}` })}\n`);
}
