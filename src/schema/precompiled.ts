/**
 * JSON Schema validators the build compiles ahead of time (Ajv's standalone
 * code, scripts/compile-validators.mjs, into dist/validators/NAME.cjs), so a
 * start neither loads Ajv nor compiles their schemas: tens of milliseconds on
 * every run. Running from source, where the build has not put them, each is
 * compiled here by `compile`, which the build compiles with the same options.
 */
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';

const requireCjs = createRequire(import.meta.url);
const loaded = new Map<string, ValidateFunction>();

/** Where the build puts validator `name`, from this module's place in dist/. */
const pathOf = (name: string): string => `../validators/${name}.cjs`;

/** What logbook uses of the YAML package: all the build bundles of it (scripts/bundle.mjs, YAML_EXPORTS). */
export type YamlParser = Pick<typeof import('yaml'), 'parse' | 'YAMLParseError'>;

/**
 * A CommonJS package the build bundles into one file (dist/vendor/NAME.cjs,
 * scripts/bundle.mjs), which loads several times faster than the dozens of
 * files it has in node_modules, each resolved and read on its own; running
 * from source, where the build has not put it, the package itself. Every
 * caller shares the one instance (its error classes are the same).
 */
export function vendored<T>(name: 'yaml' | 'ajv'): T {
  try {
    return requireCjs(`../vendor/${name}.cjs`) as T;
  } catch (err) {
    const absent = (err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && (err as Error).message.includes(`vendor/${name}.cjs`);
    if (!absent) throw err;
    return requireCjs(name) as T;
  }
}

/** Ajv's class, loaded (it is CommonJS) only when something is compiled at run time. */
export function ajvClass(): typeof import('ajv').Ajv {
  return vendored<typeof import('ajv')>('ajv').Ajv;
}

export function precompiled(name: string, compile: () => ValidateFunction): ValidateFunction {
  let validate = loaded.get(name);
  if (validate !== undefined) return validate;
  try {
    validate = (requireCjs(pathOf(name)) as { default: ValidateFunction }).default;
  } catch (err) {
    const absent = (err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && (err as Error).message.includes(`validators/${name}.cjs`);
    if (!absent) throw err;
    validate = compile();
  }
  loaded.set(name, validate);
  return validate;
}
