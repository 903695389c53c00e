/**
 * The layering, checked from the source: dependencies point down only, there
 * are no import cycles, nothing below the CLI reads the environment or can end
 * the process, and the core does no IO.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = resolve(import.meta.dirname, '../src');

/** What each top-level folder may import, besides itself. */
const ALLOWED: Record<string, string[]> = {
  core: [],
  store: ['core'],
  schema: ['core'],
  a2a: ['core', 'schema'],
  agent: ['core', 'store', 'schema', 'a2a'],
  render: ['core'],
  otel: ['core', 'store'],
  config: ['core', 'agent', 'store', 'schema', 'a2a'],
  // What a program embedding logbook calls that spans layers (a search, an export or a trace of a stored run).
  api: ['core', 'store', 'schema', 'a2a', 'agent', 'render', 'config', 'otel'],
  cli: ['core', 'store', 'schema', 'a2a', 'agent', 'render', 'config', 'otel', 'api'],
};

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

interface Import {
  target: string;
  /** `import type` only: erased at run time. */
  typeOnly: boolean;
  dynamic: boolean;
}

/** The project files a source file imports, resolved to paths. */
function importsOf(file: string): Import[] {
  const text = readFileSync(file, 'utf8');
  const out: Import[] = [];
  const add = (spec: string, typeOnly: boolean, dynamic: boolean): void => {
    if (!spec.startsWith('.')) return;
    const target = resolve(dirname(file), spec).replace(/\.js$/, '');
    const path = [`${target}.ts`, `${target}.tsx`].find((p) => allFiles.includes(p));
    if (path !== undefined) out.push({ target: path, typeOnly, dynamic });
  };
  for (const m of text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms)) add(m[3]!, m[2] !== undefined, false);
  for (const m of text.matchAll(/import\('([^']+)'\)/g)) add(m[1]!, false, true);
  return out;
}

const allFiles = files(SRC);
const layerOf = (file: string): string => relative(SRC, file).split('/')[0]!.replace(/\.tsx?$/, '');
const graph = new Map(allFiles.map((f) => [f, importsOf(f)]));
const name = (f: string): string => relative(SRC, f);

describe('the layering', () => {
  it('points down only: each layer imports only the layers below it', () => {
    const wrong: string[] = [];
    for (const [file, imports] of graph) {
      const from = layerOf(file);
      if (!(from in ALLOWED)) continue; // src/index.ts: the public API re-exports every layer
      for (const { target } of imports) {
        const to = layerOf(target);
        if (to !== from && !ALLOWED[from]!.includes(to)) wrong.push(`${name(file)} -> ${name(target)}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('has no import cycles (type-only imports aside)', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]): void => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].map(name).join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const i of graph.get(file) ?? []) if (!i.typeOnly) visit(i.target, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of allFiles) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('reads the environment and ends the process only in the CLI', () => {
    const found: string[] = [];
    for (const file of allFiles) {
      if (layerOf(file) === 'cli') continue;
      const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      for (const what of ['process.env', 'process.exit', 'process.kill(process.pid']) if (code.includes(what)) found.push(`${name(file)}: ${what}`);
    }
    expect(found).toEqual([]);
  });

  it('keeps IO out of the core', () => {
    const io = allFiles
      .filter((f) => layerOf(f) === 'core')
      .filter((f) => /from 'node:(fs|os|child_process|net|http|https|path)'/.test(readFileSync(f, 'utf8')))
      .map(name);
    expect(io).toEqual([]);
  });
});
