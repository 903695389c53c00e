#!/usr/bin/env node
/**
 * `npm run build`: tsc (plain modules to .build/tsc/, declarations), the
 * validators (compile-validators.mjs) and the bundle (bundle.mjs), all written
 * to dist.next/, then put in dist/'s place (replace-dir.mjs): the checkout's
 * `logbook` goes on running the previous build while the next one is made,
 * where removing dist/ first left it unusable for the build's minute.
 * dist.next/ sits beside dist/, at the same depth, so the relative paths the
 * bundle writes (source maps to src/, each module's import.meta.url) hold
 * once it is moved.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { replaceDir } from './replace-dir.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NEXT = 'dist.next';
const TSC = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));

const step = (script, ...args) => execFileSync(process.execPath, [script, ...args], { cwd: ROOT, stdio: 'inherit' });

for (const dir of ['.build', NEXT]) rmSync(join(ROOT, dir), { recursive: true, force: true });
step(TSC, '-p', 'tsconfig.build.json', '--declarationDir', NEXT);
step('scripts/compile-validators.mjs', NEXT);
step('scripts/bundle.mjs', NEXT);
replaceDir(join(ROOT, NEXT), join(ROOT, 'dist'));
