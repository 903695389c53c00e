/**
 * The library guide's programs work as printed: every ```js block of
 * docs/guide/library.md runs with node, importing 'logbook' as an installed
 * package (a node_modules link to this checkout: its exports map, the built
 * dist/), and prints what its comments say.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

const ROOT = resolve(import.meta.dirname, '../..');
const GUIDE = readFileSync(join(ROOT, 'docs/guide/library.md'), 'utf8');
const programs = [...GUIDE.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);

/** What each program prints: the outcomes its comments name. */
const EXPECTED = [/^7 squared is 49\.\n\d{8}-\d{6}-[a-z0-9]+: completed, 1 tool call\nalready_completed\n$/, /^suspended deploy\ncompleted Deployed\.\n$/];

describe('docs/guide/library.md', () => {
  it('shows the programs this test runs', () => {
    expect(programs).toHaveLength(EXPECTED.length);
  });

  it.each(programs.map((p, i) => [i + 1, p] as const))('program %i runs as printed', async (n, program) => {
    const project = tempDir('logbook-guide-');
    mkdirSync(join(project, 'node_modules'));
    symlinkSync(ROOT, join(project, 'node_modules', 'logbook'));
    writeFileSync(join(project, 'program.mjs'), program);
    const out = await promisify(execFile)(process.execPath, ['program.mjs'], { cwd: project, env: { PATH: process.env.PATH, TMPDIR: project }, timeout: 60_000 });
    expect(out.stderr).toBe('');
    expect(out.stdout).toMatch(EXPECTED[n - 1]!);
  });
});
