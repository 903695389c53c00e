/**
 * The build compiles the schemas every start checks into standalone validators
 * (scripts/compile-validators.mjs), which the built command loads instead of
 * compiling the schemas (src/schema/precompiled.ts). Each must judge every
 * value as the schema compiled at run time does: the same verdict and errors.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { SCRIPT_AJV_OPTIONS, SCRIPT_SCHEMA } from '../../src/agent/providers/script.js';
import { ToolRegistry } from '../../src/agent/tools/registry.js';
import { CONFIG_AJV_OPTIONS, CONFIG_SCHEMA } from '../../src/config/schema.js';
import { defineTool } from '../../src/index.js';
import { A2A_AJV_OPTIONS, compileA2ASchemas, kindOf, validatorName } from '../../src/a2a/index.js';
import { fixtureBodies } from '../helpers/a2a.js';
import { tempDir } from '../helpers/tmp.js';

const compiledPath = (name: string): string => resolve(import.meta.dirname, `../../dist/validators/${name}.cjs`);
const compiled = (name: string): ValidateFunction => (createRequire(import.meta.url)(compiledPath(name)) as { default: ValidateFunction }).default;

const CONFIGS = [
  'provider: script\nscript: s.json\n',
  'provider: anthropic\nmodel: claude\nmax_tokens: 100\nthinking: summarized\n',
  'provider: openai\nmodel: gpt\nbase_url: http://x\napi_key_env: K\nprompt_cache: true\nbudget: 1000\n',
  'provider: script\nscript: s\ntools: [{name: a, command: [ls], timeout: 5, max_output: 10, confirm: true, side_effects: true}]\n',
  'provider: script\nscript: s\nsession: {backend: jetstream, options: {stream: RUNS}}\nnats: {url: nats://x, creds: c}\n',
  'provider: script\nscript: s\nmcp: [{name: fs, command: [npx, server], env: {A: b}}]\n',
  'provider: nope\n',
  'provider: script\nbogus: 1\n',
  'model: x\n',
  'provider: anthropic\nmodel: ""\n',
  'provider: script\nmax_tokens: 0\n',
  'provider: script\nmax_tokens: 1.5\n',
  'provider: script\nmax_iterations: 99999999999\n',
  'provider: script\nthinking: loud\n',
  'provider: script\ntools: [{command: [ls]}]\n',
  'provider: script\ntools: [{name: a, command: []}]\n',
  'provider: script\ntools: [{name: a, command: [ls], extra: 1}]\n',
  'provider: script\ntools: {name: a}\n',
  'provider: script\nsession: {backend: file, options: []}\n',
  'provider: script\nnats: {creds: c}\n',
  'provider: script\nmcp: [{name: x}]\n',
  'provider: script\nprompt_cache: yes please\n',
];

const SCRIPTS = [
  { turns: [{ text: 'hi' }] },
  { turns: [{ tool_calls: [{ name: 'a', input: { x: 1 }, id: 'i' }], usage: { input: 1, output: 2 }, delay_ms: 5 }] },
  { turns: [] },
  { turns: [{ bogus: 1 }] },
  { turns: [{ tool_calls: [{ input: {} }] }] },
  { turns: [{ usage: { input: -1 } }] },
  { steps: [] },
  [],
];

const TOOL_SCHEMAS: unknown[] = [
  { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  { type: 'object', properties: { n: { type: 'integer', minimum: 0, maximum: 10 } }, additionalProperties: false },
  { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'number' } }], definitions: { x: { enum: [1, 2] } } },
  { type: 'objekt' },
  { type: 'object', properties: { n: { minimum: 'zero' } } },
  { type: 'object', required: 'path' },
  { properties: { a: { type: ['string', 'strin'] } }, minProperties: -1 },
  { items: [{ type: 'string' }, 3] },
  // Accepted by the meta-schema, refused by Ajv's compile: still refused at registration, not at the tool's first call.
  { type: 'object', properties: { p: { $ref: '#/definitions/missing' } } },
  { type: 'string', pattern: '(' },
];

/** A validator's errors without the schema objects, which the standalone code does not carry. */
const errorsOf = (v: ValidateFunction) => v.errors?.map((e) => ({ ...e, schema: undefined, parentSchema: undefined }));

describe("the build's standalone validators", () => {
  it.skipIf(!existsSync(compiledPath('script')))('judge every script as SCRIPT_SCHEMA compiled at run time does', () => {
    const runtime = new Ajv(SCRIPT_AJV_OPTIONS).compile(SCRIPT_SCHEMA);
    const built = compiled('script');
    for (const doc of SCRIPTS) {
      expect(built(doc), JSON.stringify(doc)).toBe(runtime(doc));
      expect(errorsOf(built)).toEqual(errorsOf(runtime));
    }
  });

  it.skipIf(!existsSync(compiledPath('json-schema-draft-07')))('judge every tool schema as the draft-07 meta-schema compiled at run time does', () => {
    const runtime = new Ajv(ToolRegistry.AJV_OPTIONS).getSchema('http://json-schema.org/draft-07/schema')!;
    const built = compiled('json-schema-draft-07');
    let refused = 0;
    for (const schema of TOOL_SCHEMAS) {
      const verdict = built(schema);
      expect(verdict, JSON.stringify(schema)).toBe(runtime(schema));
      expect(errorsOf(built)).toEqual(errorsOf(runtime));
      if (!verdict) refused++;
    }
    expect(refused).toBe(5);
  });
});

describe('a tool input schema', () => {
  it('is refused at registration with the message Ajv gives when it checks the schema itself', () => {
    for (const schema of TOOL_SCHEMAS) {
      let ajvMessage: string | null = null;
      try {
        new Ajv(ToolRegistry.AJV_OPTIONS).compile(schema as object);
      } catch (err) {
        ajvMessage = (err as Error).message;
      }
      const tool = defineTool({ name: 't', description: 'd', input_schema: schema as Record<string, unknown>, run: () => 'ok' });
      const register = () => new ToolRegistry([tool]);
      if (ajvMessage === null) expect(register, JSON.stringify(schema)).not.toThrow();
      else expect(register, JSON.stringify(schema)).toThrow(`tool "t" has an invalid input_schema: ${ajvMessage}`);
    }
  });
});

describe('the build\'s standalone config validator', () => {
  it.skipIf(!existsSync(compiledPath('config')))('judges every config as the schema compiled at run time does, every error included', () => {
    const built = compiled('config');
    const runtime = new Ajv(CONFIG_AJV_OPTIONS).compile(CONFIG_SCHEMA);
    let refused = 0;
    for (const text of CONFIGS) {
      const value: unknown = parse(text);
      const verdict = built(value);
      expect(verdict, text).toBe(runtime(value));
      if (!verdict) {
        refused++;
        const strip = (e: NonNullable<ValidateFunction['errors']>[number]) => ({ ...e, schema: undefined, parentSchema: undefined });
        expect(built.errors!.map(strip), text).toEqual(runtime.errors!.map(strip));
      }
    }
    expect(refused).toBeGreaterThan(10); // the cases above refuse in many ways
  });
});

describe("the build's standalone A2A validators", () => {
  it.skipIf(!existsSync(compiledPath('a2a-tool.request')))('judge every body as the schemas compiled at run time do', () => {
    const runtime = compileA2ASchemas(new Ajv2020(A2A_AJV_OPTIONS));
    const bodies = fixtureBodies().map((b) => JSON.parse(b.body) as Record<string, unknown>);
    const variants = bodies.flatMap((b) => [b, { ...b, extra: 1 }, { ...b, sequence: -1 }, { ...b, sender: { name: 'a b' } }, { ...b, time: 'now' }]);
    let refused = 0;
    for (const body of variants) {
      const kind = kindOf(body.protocol as string)!;
      const built = compiled(validatorName(kind));
      const verdict = built(body);
      expect(verdict, JSON.stringify(body)).toBe(runtime.get(kind)!(body));
      expect(errorsOf(built)).toEqual(errorsOf(runtime.get(kind)!));
      if (!verdict) refused++;
    }
    expect(refused).toBe(bodies.length * 4);
  });
});

describe('the packages the build bundles into one file each (dist/vendor/)', () => {
  const main = resolve(import.meta.dirname, '../../dist/cli/main.js');
  it.skipIf(!existsSync(resolve(import.meta.dirname, '../../dist/vendor/yaml.cjs')))(
    "are what a run loads for its config, its script and its tools' schemas, not the packages' own files; a YAML error is still told as one",
    () => {
      const dir = tempDir('logbook-vendored-');
      // The tool is called, so its schema is compiled (when first called): Ajv is loaded.
      writeFileSync(join(dir, 'script.yaml'), 'turns:\n  - text: looking\n    tool_calls: [{ name: look, input: { path: . } }]\n  - text: done\n');
      writeFileSync(
        join(dir, 'agent.yaml'),
        'provider: script\nscript: script.yaml\ntools:\n  - name: look\n    command: [ls]\n    input_schema: { type: object, properties: { path: { type: string } } }\n',
      );
      writeFileSync(join(dir, 'bad.yaml'), 'provider: [\n');
      const program = `
        import { createRequire } from 'node:module';
        const { main } = await import(${JSON.stringify(main)});
        await main(['run', '--config', 'agent.yaml', '--state-dir', 'state', '--no-tui', 'hello']);
        console.error(JSON.stringify(Object.keys(createRequire(import.meta.url).cache)));
      `;
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', program], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir } });
      expect(r.stdout).toBe('looking\ndone\n');
      const loaded = JSON.parse(r.stderr.trim().split('\n').at(-1)!) as string[];
      const vendor = loaded.filter((f) => f.includes('/dist/vendor/')).map((f) => f.slice(f.indexOf('/dist/vendor/')));
      expect(vendor.sort()).toEqual(['/dist/vendor/ajv.cjs', '/dist/vendor/yaml.cjs']);
      // Of the packages themselves, only Ajv's small runtime helpers, which the build's standalone validators require.
      expect(loaded.filter((f) => /node_modules\/(yaml|ajv)\//.test(f) && !/node_modules\/ajv\/dist\/runtime\//.test(f))).toEqual([]);

      const bad = spawnSync(process.execPath, [resolve(import.meta.dirname, '../../bin/logbook'), 'run', '--config', 'bad.yaml', '--state-dir', 'state', 'hello'], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir } });
      expect(bad.status).not.toBe(0);
      expect(bad.stderr).toMatch(/bad\.yaml: not valid YAML: .+ at line \d+, column \d+/);
    },
  );

  it.skipIf(!existsSync(resolve(import.meta.dirname, '../../dist/vendor/yaml.cjs')))(
    "hold of YAML what logbook uses of it (YamlParser), which parses and warns as the package's own Node build does",
    () => {
      // A warning (an unsupported version, an unknown tag) is a process warning, as the package gives it to Node, not console output.
      const program = (module: string): string => `
        const yaml = require(${JSON.stringify(module)});
        const warned = [];
        process.on('warning', (w) => warned.push([w.name, w.code]));
        const values = [yaml.parse('%YAML 1.3\\n---\\na: 1\\n'), yaml.parse('a: !foo 1\\nb: [x, {c: 2}]\\n', { strict: true, uniqueKeys: true })];
        // A binary value is a Buffer (its JSON names it so), and base64 is read as Buffer reads it, never refused.
        for (const text of ['x: !!binary aGVsbG8=\\n', '%YAML 1.1\\n---\\nx: !!binary "*a*GVsbG8"\\n']) {
          const x = yaml.parse(text, { strict: true, uniqueKeys: true }).x;
          values.push([Buffer.isBuffer(x), x]);
        }
        let refused;
        try { yaml.parse('a: 1\\na: 2\\n', { strict: true, uniqueKeys: true }); } catch (err) { refused = [err instanceof yaml.YAMLParseError, err.code, err.linePos]; }
        setImmediate(() => process.stdout.write(JSON.stringify({ values, refused, warned })));
      `;
      const run = (module: string): { stdout: string; stderr: string } => {
        const r = spawnSync(process.execPath, ['-e', program(module)], { encoding: 'utf8' });
        return { stdout: r.stdout, stderr: r.stderr.replace(/^\(node:\d+\)/gm, '(node)') };
      };
      const bundled = run(resolve(import.meta.dirname, '../../dist/vendor/yaml.cjs'));
      const own = run(createRequire(import.meta.url).resolve('yaml'));
      expect(bundled.stderr).toBe(own.stderr);
      expect(bundled.stdout).toBe(own.stdout);
      expect(JSON.parse(bundled.stdout).warned).toHaveLength(2);
      const exported = Object.keys(createRequire(import.meta.url)(resolve(import.meta.dirname, '../../dist/vendor/yaml.cjs')) as object).sort();
      expect(exported).toEqual(['YAMLParseError', 'parse']);
    },
  );
});
