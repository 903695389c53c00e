/**
 * The package as a user gets it: `npm pack` of a copy of this checkout (its
 * files, the built dist/, and the prebuilt native parts the pack step makes),
 * installed from the tarball into an empty project outside the checkout, its
 * dependencies from the registry into a cache of its own, with npm's default
 * that runs no dependency's install script. Then, as that user: `npx logbook`,
 * a real run with the script provider and a file store, an ESM import, the
 * TypeScript declarations, an example from the package, and the one-line
 * error when no native part fits.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

const ROOT = resolve(import.meta.dirname, '../..');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const exec = promisify(execFile);

/** npm's own entry point, beside the node running the tests (npm names it to scripts as npm_execpath). */
const NPM = process.env.npm_execpath?.endsWith('npm-cli.js') ? process.env.npm_execpath : join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js');

/**
 * How this machine reaches the registry (its CA bundle, its proxy), as a user's shell has it: npm reads
 * its global npmrc beside the node it runs on, so a Node from the npm registry reads none.
 */
const NETWORK_VARIABLES = ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy', 'npm_config_cafile', 'npm_config_registry'];

/** A minimal environment, as a user's shell: no variable of the test run or of this checkout. */
function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  const network = Object.fromEntries(NETWORK_VARIABLES.flatMap((name) => (process.env[name] ? [[name, process.env[name]!]] : [])));
  return { PATH: process.env.PATH!, HOME: tempDir('logbook-home-'), NO_COLOR: '1', ...network, ...extra };
}

/** npm with these arguments; a failure says what npm said, not only that it failed. */
async function npm(args: string[], cwd: string, env: Record<string, string>) {
  try {
    return await exec(process.execPath, [NPM, ...args], { cwd, env, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const { stderr = '', signal } = error as { stderr?: string; signal?: string };
    throw new Error(`npm ${args[0]} failed${signal ? ` (${signal})` : ''}: ${stderr.trim().split('\n').slice(-12).join('\n')}`, { cause: error });
  }
}

let project: string;
let env: Record<string, string>;
let installed: string;

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'index.js'))) throw new Error('run `npm run build` first');
  // A copy to pack: the pack step builds native parts in its build/, which this checkout's tests are using.
  const copy = tempDir('logbook-pack-');
  const { stdout } = await exec('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 });
  for (const file of stdout.split('\0').filter((f) => f !== '' && existsSync(join(ROOT, f)))) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    cpSync(join(ROOT, file), join(copy, file));
  }
  cpSync(join(ROOT, 'dist'), join(copy, 'dist'), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
  const packEnv = { ...userEnv(), ...(process.env.npm_config_nodedir ? { npm_config_nodedir: process.env.npm_config_nodedir } : {}) };
  await npm(['run', 'prepack'], copy, packEnv); // the prebuilds; dist/ is the one `npm run build` made
  const out = tempDir('logbook-tarball-');
  await npm(['pack', '--ignore-scripts', '--pack-destination', out], copy, packEnv);
  const tarball = join(out, `logbook-${VERSION}.tgz`);
  rmSync(copy, { recursive: true, force: true });

  project = tempDir('logbook-user-');
  env = userEnv({ npm_config_cache: tempDir('logbook-npm-cache-'), npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' });
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'user-project', version: '1.0.0', private: true, type: 'module' }));
  await npm(['install', tarball], project, env);
  installed = join(project, 'node_modules', 'logbook');
}, 600_000);

const run = (file: string, args: string[], cwd = project) => exec(file, args, { cwd, env, timeout: 120_000 });

describe('the packed package, installed from its tarball', () => {
  it('ran no install script, and ships the prebuilt native parts, the build\'s identity, the examples and the docs', () => {
    expect(existsSync(join(installed, 'build'))).toBe(false);
    expect(readdirSync(join(installed, 'prebuilds', `${process.platform}-${process.arch}`)).sort()).toEqual(['logbook.glibc.node', 'tether']);
    for (const path of ['examples/embed/one-shot.mjs', 'examples/script.yaml', 'docs/guide/library.md', 'docs/reference/cli.md', 'README.md']) {
      expect(existsSync(join(installed, path)), path).toBe(true);
    }
    // The build's identity, which its fold checkpoints name: the installed copy is the build that was packed.
    expect(readFileSync(join(installed, 'dist', 'build.json'), 'utf8')).toBe(readFileSync(join(ROOT, 'dist', 'build.json'), 'utf8'));
  });

  it('puts logbook on the PATH of npx', async () => {
    const { stdout } = await run('npx', ['logbook', '--version']);
    expect(stdout.trim()).toBe(VERSION);
  });

  it('runs a real run with the script provider, a command tool and a file store', async () => {
    writeFileSync(join(project, 'turns.yaml'), 'turns:\n  - tool_calls: [{ name: hello }]\n  - text: "It said hello."\n');
    writeFileSync(join(project, 'agent.yaml'), 'provider: script\nscript: turns.yaml\ntools:\n  - name: hello\n    command: [echo, hello]\n');
    const r = await run('npx', ['logbook', 'run', '--state-dir', 'state', '--name', 'first', 'Say hello']);
    expect(r.stdout).toBe('It said hello.\n');
    expect(r.stderr).toMatch(/^run first \(file store in .*state\/runs\)\n/);
    const shown = await run('npx', ['logbook', 'session', 'show', 'first', '--json', '--state-dir', 'state']);
    expect(JSON.parse(shown.stdout)).toMatchObject({ terminal: { reason: 'completed' } });
  });

  it('is imported as an ES module, its internals hidden behind the exports map', async () => {
    writeFileSync(
      join(project, 'embed.mjs'),
      [
        "import { FileStore, defineAgent, defineTool, scriptProvider, startRun } from 'logbook';",
        "const tool = defineTool({ name: 'twice', run: (i) => String(i.n * 2) });",
        "const provider = scriptProvider([{ tool_calls: [{ name: 'twice', input: { n: 21 } }] }, { text: 'It is 42.' }]);",
        "const run = await startRun(new FileStore('embedded'), defineAgent({ provider, tools: [tool] }), { prompt: 'Twice 21?' });",
        'const result = await run.execute();',
        'console.log(result.reason, result.finalText);',
        "await import('logbook/dist/index.js').catch((e) => console.log(e.code));",
      ].join('\n'),
    );
    const { stdout } = await run(process.execPath, ['embed.mjs']);
    expect(stdout).toBe('completed It is 42.\nERR_PACKAGE_PATH_NOT_EXPORTED\n');
  });

  it('gives TypeScript its declarations through the exports map', async () => {
    writeFileSync(
      join(project, 'typed.ts'),
      "import { defineAgent, scriptProvider, type RunResult } from 'logbook';\n" +
        "const agent = defineAgent({ provider: scriptProvider([{ text: 'hi' }]) });\n" +
        "export const reason: RunResult['reason'] | number = agent.maxTokens;\n",
    );
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'); // the compiler only; the types come from the project
    const args = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck', 'typed.ts'];
    const r = await run(process.execPath, [tsc, ...args]).catch((e: { stdout: string }) => ({ stdout: e.stdout }));
    expect(r.stdout).toBe('');
  });

  it('runs the examples it ships, from their directory', async () => {
    const { stdout } = await run(process.execPath, ['resume.mjs'], join(installed, 'examples', 'embed'));
    expect(stdout).toMatch(/resumer: run job completed: Both steps are done\.\n$/);
  });

  it('says in one line what to run when no native part fits this platform', async () => {
    const prebuilds = join(installed, 'prebuilds');
    const aside = join(project, 'prebuilds-aside');
    cpSync(prebuilds, aside, { recursive: true });
    rmSync(prebuilds, { recursive: true });
    try {
      const r = await run('npx', ['logbook', 'run', '--state-dir', 'state', 'Say hello']).catch((e: { code: number; stdout: string; stderr: string }) => e);
      expect(r).toMatchObject({ code: 1, stdout: '' });
      expect(r.stderr).toBe(
        `logbook: tether, which keeps a tool from outliving logbook, is not built, and no prebuilt one fits ${process.platform}-${process.arch}: ` +
          'build it with `npm install-scripts approve logbook && npm rebuild logbook` in the project that installed logbook ' +
          '(npm runs no install script of a dependency unapproved), which needs python3, make and a C compiler\n',
      );
      const ls = await run('npx', ['logbook', 'session', 'rm', 'first', '--state-dir', 'state']).catch((e: { code: number; stderr: string }) => e);
      expect(ls.stderr).toMatch(/^logbook: cannot remove first: the file store's lock addon \(flock\) is not built, and no prebuilt one fits .*C compiler\n$/);
    } finally {
      cpSync(aside, prebuilds, { recursive: true });
    }
  });
});
