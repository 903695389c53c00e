#!/usr/bin/env node
/**
 * Part of `npm pack` and `npm publish` (prepack): the native parts, built here
 * for this platform and put in prebuilds/<platform>-<arch>/, so that an install
 * on the same platform needs no compiler and runs no install script (npm runs a
 * dependency's only once it is approved). The Node-API addon (flock) is built
 * by prebuildify, which names it for node-gyp-build to pick; the tether
 * executable, which prebuildify does not handle, is linked statically where
 * the C library allows it, so it runs on any Linux of the architecture.
 *
 * Builds against this Node's own headers (npm_config_nodedir, else found under
 * Node's prefix), never downloaded ones; the addon is Node-API 8, so one build
 * serves every Node from 20 on.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(ROOT, 'prebuilds', `${process.platform}-${process.arch}`);

/** The directory D with D/include/node/node_api.h for this Node, as .ci/run finds it. */
function nodeHeaders() {
  if (process.env.npm_config_nodedir) return process.env.npm_config_nodedir;
  const find = (dir, depth) => {
    if (existsSync(join(dir, 'include', 'node', 'node_api.h'))) return dir;
    if (depth === 0 || !existsSync(dir)) return null;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith('.')) continue;
      const found = find(join(dir, entry.name), depth - 1);
      if (found !== null) return found;
    }
    return null;
  };
  const prefix = dirname(dirname(process.execPath));
  const found = find(prefix, 0) ?? find(join(prefix, 'include'), 0) ?? find(prefix, 4);
  if (found === null) throw new Error(`no Node headers (include/node/node_api.h) under ${prefix}: set npm_config_nodedir to the directory holding include/node`);
  return found;
}

const env = { ...process.env, npm_config_nodedir: nodeHeaders() };
const run = (cmd, args) => execFileSync(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });

rmSync(join(ROOT, 'prebuilds'), { recursive: true, force: true });
run(process.execPath, [join(ROOT, 'node_modules', 'prebuildify', 'bin.js'), '--napi', '--strip', '--tag-libc']);
mkdirSync(OUT, { recursive: true });
if (process.platform === 'linux') {
  const tether = join(OUT, 'tether');
  try {
    run('cc', ['-static', '-O2', '-Wall', '-Wextra', '-s', join(ROOT, 'native', 'tether.c'), '-o', tether]);
  } catch {
    copyFileSync(join(ROOT, 'build', 'Release', 'tether'), tether); // no static C library: as node-gyp linked it
  }
}
// prebuildify moved the addon it built out of build/Release: build it again, so this checkout goes on as it was.
// (Not through the install script: node-gyp-build would find the prebuild fits, and build nothing.)
const nodeGyp = process.env.npm_config_node_gyp; // npm's own node-gyp, which npm names to every script it runs
if (nodeGyp) run(process.execPath, [nodeGyp, 'rebuild']);
else run('node-gyp', ['rebuild']);
console.error(`prebuilt for ${process.platform}-${process.arch}: ${readdirSync(OUT).join(', ')}`);
