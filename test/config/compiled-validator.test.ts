/**
 * The build compiles the config schema into a standalone validator
 * (scripts/compile-validators.mjs), which the built command uses instead of
 * compiling the schema on each start. It must judge every config as the schema
 * compiled at run time does: the same verdict and the same errors.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { CONFIG_AJV_OPTIONS, CONFIG_SCHEMA } from '../../src/config/schema.js';

const COMPILED = resolve(import.meta.dirname, '../../dist/config/config-validate.cjs');

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

describe('the build\'s standalone config validator', () => {
  it.skipIf(!existsSync(COMPILED))('judges every config as the schema compiled at run time does, every error included', () => {
    const compiled = (createRequire(import.meta.url)(COMPILED) as { default: ValidateFunction }).default;
    const runtime = new Ajv(CONFIG_AJV_OPTIONS).compile(CONFIG_SCHEMA);
    let refused = 0;
    for (const text of CONFIGS) {
      const value: unknown = parse(text);
      const verdict = compiled(value);
      expect(verdict, text).toBe(runtime(value));
      if (!verdict) {
        refused++;
        const strip = (e: NonNullable<ValidateFunction['errors']>[number]) => ({ ...e, schema: undefined, parentSchema: undefined });
        expect(compiled.errors!.map(strip), text).toEqual(runtime.errors!.map(strip));
      }
    }
    expect(refused).toBeGreaterThan(10); // the cases above refuse in many ways
  });
});
