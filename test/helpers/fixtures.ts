import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** The shared conformance fixtures: journals and the folds they must give. */
export const FIXTURES_DIR = resolve(here, '../fixtures/conformance');

export interface Fixture {
  name: string;
  journal: string;
  expected: Record<string, unknown>;
}

export function fixtures(): Fixture[] {
  const runs = join(FIXTURES_DIR, 'runs');
  return readdirSync(runs)
    .filter((f) => f.endsWith('.jsonl'))
    .sort()
    .map((f) => {
      const name = f.slice(0, -'.jsonl'.length);
      return {
        name,
        journal: readFileSync(join(runs, f), 'utf8'),
        expected: JSON.parse(readFileSync(join(FIXTURES_DIR, 'expected', `${name}.json`), 'utf8')) as Record<string, unknown>,
      };
    });
}
