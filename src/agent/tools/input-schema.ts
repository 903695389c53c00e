/**
 * The one rule of what a tool's input_schema may be: a JSON value, that its
 * meta-schema accepts and, where its compile can still fail, that Ajv compiles.
 * The registry applies it to each tool it is given; a config applies it to its
 * command tools when it is checked (config.ts), so a config taken as checked
 * from the config cache is not checked again at each start.
 */
import type { Ajv, ValidateFunction } from 'ajv';
import { ajvClass, precompiled } from '../../schema/precompiled.js';
import { LogbookError, nonJsonPart } from '../../core/index.js';

/** Tool schemas are compiled with these; checked against their meta-schema first (checkInputSchema). */
export const INPUT_SCHEMA_AJV_OPTIONS = { allErrors: true, strict: false } as const;

/** The meta-schema Ajv checks a schema without `$schema` against. */
const DRAFT_07 = 'http://json-schema.org/draft-07/schema';

/**
 * Keys with which a schema its meta-schema accepts can still fail Ajv's compile
 * (a reference that does not resolve, a pattern that is no regular expression,
 * an unknown format, an id taken twice), or asks an option it lacks. A schema
 * naming any of them (anywhere, property names included) is compiled when it
 * is checked, so its fault is the config's at start; any other is compiled
 * when the tool is first called, so a run that does not call it never loads Ajv.
 */
const COMPILE_MAY_FAIL = /"(?:\$ref|\$dynamicRef|\$recursiveRef|\$id|id|\$schema|\$data|\$async|pattern|patternProperties|format|discriminator)"/;

/** An Ajv that compiles input schemas without checking them again (checkInputSchema did). */
export function inputSchemaCompiler(): Ajv {
  return new (ajvClass())({ ...INPUT_SCHEMA_AJV_OPTIONS, validateSchema: false });
}

/** The validator of tool `name`'s input_schema; refused (`config`) where Ajv cannot compile it. */
export function compileInputSchema(ajv: Ajv, name: string, schema: unknown): ValidateFunction {
  try {
    return ajv.compile(schema as object);
  } catch (err) {
    throw new LogbookError('config', `tool "${name}" has an invalid input_schema: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * Refuses a schema its meta-schema refuses, with Ajv's own message. The
 * default meta-schema (draft-07) is checked by the build's compiled validator
 * (precompiled.ts), which spares each start compiling it; a schema naming
 * another is checked by Ajv.
 */
function checkMetaSchema(ajv: () => Ajv, schema: unknown): void {
  if (typeof schema !== 'object' || schema === null || '$schema' in schema) {
    ajv().validateSchema(schema as object, true);
    return;
  }
  const meta = precompiled('json-schema-draft-07', () => new (ajvClass())(INPUT_SCHEMA_AJV_OPTIONS).getSchema(DRAFT_07)!);
  if (!meta(schema)) throw new Error(`schema is invalid: ${ajv().errorsText(meta.errors)}`);
}

/**
 * Checks tool `name`'s input_schema (`config` error where it is refused): sent
 * to the model as JSON and hashed into the fingerprint as JSON, so a JSON
 * value; one its meta-schema accepts; and compiled here when its compile may
 * still fail, its validator then returned. `ajv` gives the compiler (one per
 * registry: an `$id` is taken once in each).
 */
export function checkInputSchema(name: string, schema: unknown, ajv: () => Ajv): ValidateFunction | undefined {
  const notJson = nonJsonPart(schema);
  if (notJson !== null) {
    throw new LogbookError('config', `tool "${name}": input_schema${notJson.path} is ${notJson.what}, which is not a JSON value`);
  }
  try {
    checkMetaSchema(ajv, schema);
  } catch (err) {
    throw new LogbookError('config', `tool "${name}" has an invalid input_schema: ${(err as Error).message}`, { cause: err });
  }
  return COMPILE_MAY_FAIL.test(JSON.stringify(schema)) ? compileInputSchema(ajv(), name, schema) : undefined;
}
