/**
 * The API reference cannot drift from the API: docs/reference/api/ is what
 * TypeDoc renders from src/index.ts and its TSDoc comments (npm run docs:api),
 * with every export documented and every link resolved (typedoc.json makes a
 * warning an error); a page for each export, under an index, rather than one
 * page of the whole API.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

const ROOT = resolve(import.meta.dirname, '../..');
const COMMITTED = join(ROOT, 'docs/reference/api');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
}

it('is what TypeDoc renders from the TSDoc comments, every export documented (npm run docs:api)', async () => {
  const out = tempDir('logbook-api-docs-');
  const typedoc = join(ROOT, 'node_modules/typedoc/bin/typedoc');
  const r = await promisify(execFile)(process.execPath, [typedoc, '--out', out], { cwd: ROOT, timeout: 240_000 }).catch((e: { stdout: string; stderr: string; code: number }) => e);
  expect(`${r.stdout}${r.stderr}`, 'typedoc warned').toBe('');
  const rendered = files(out).map((f) => relative(out, f)).sort();
  expect(rendered, 'the files of docs/reference/api').toEqual(files(COMMITTED).map((f) => relative(COMMITTED, f)).sort());
  for (const file of rendered) {
    expect(readFileSync(join(COMMITTED, file), 'utf8'), `docs/reference/api/${file} is stale: run npm run docs:api`).toBe(readFileSync(join(out, file), 'utf8'));
  }
  // A page a person reads: the index links each export's own page (the whole API on one page was 289 KB).
  expect(rendered).toContain(join('functions', 'defineAgent.md'));
  expect(readFileSync(join(out, 'README.md'), 'utf8')).toContain('(functions/defineAgent.md)');
  for (const file of rendered) expect(statSync(join(out, file)).size, file).toBeLessThan(32 * 1024);
}, 300_000);
