/**
 * `npm run build` writes the next build beside dist/ and then puts it in
 * dist/'s place (scripts/build.mjs, replace-dir.mjs), so the checkout's
 * command goes on working on the previous build while one is made.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

const ROOT = resolve(import.meta.dirname, '../..');

function replaceDir(next: string, target: string): void {
  const script = `import(${JSON.stringify(join(ROOT, 'scripts/replace-dir.mjs'))}).then((m) => m.replaceDir(process.argv[1], process.argv[2]))`;
  execFileSync(process.execPath, ['-e', script, next, target]);
}

it('builds beside dist/ and puts the whole build in its place, nothing of the previous one left', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  expect(pkg.scripts.build).toBe('node scripts/build.mjs');
  expect(readFileSync(join(ROOT, 'scripts/build.mjs'), 'utf8')).toMatch(/replaceDir\(join\(ROOT, NEXT\), join\(ROOT, 'dist'\)\)/);

  const dir = tempDir();
  const [dist, next] = [join(dir, 'dist'), join(dir, 'dist.next')];
  for (const [where, file] of [[dist, 'old.js'], [next, 'new.js']] as const) {
    mkdirSync(join(where, 'cli'), { recursive: true });
    writeFileSync(join(where, 'cli', file), file);
  }
  replaceDir(next, dist);
  expect(readdirSync(join(dist, 'cli'))).toEqual(['new.js']);
  expect(readdirSync(dir).sort()).toEqual(['dist']);
  // A first build, with no dist/ yet.
  mkdirSync(next);
  writeFileSync(join(next, 'first.js'), '');
  const fresh = join(dir, 'fresh');
  replaceDir(next, fresh);
  expect(existsSync(join(fresh, 'first.js'))).toBe(true);
});
