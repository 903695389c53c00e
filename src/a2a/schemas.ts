/**
 * logbook's own JSON Schemas (2020-12) of the ten message kinds, shipped in
 * schemas/a2a/: each holds exactly the reference's fields and closes every
 * object, so a body with one unknown field is refused, as the reference
 * refuses it. Every body sent and received is checked against them. The build
 * compiles them ahead (scripts/compile-validators.mjs); from source they are
 * compiled here with the same options.
 */
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import { precompiled } from '../schema/precompiled.js';
import { MESSAGE_KINDS, type MessageKind } from './protocol.js';

const requireCjs = createRequire(import.meta.url);

/** How the schemas are compiled, here and by the build. */
export const A2A_AJV_OPTIONS = { allErrors: true, strict: true, validateSchema: false } as const;

export type A2ASchemaName = MessageKind | 'common';

/** A schema document as shipped in the package's `schemas/a2a/` directory. */
export function a2aSchema(name: A2ASchemaName): Record<string, unknown> {
  return requireCjs(`../../schemas/a2a/${name}.json`) as Record<string, unknown>;
}

/** The precompiled validator's name for a kind (dist/validators/NAME.cjs). */
export const validatorName = (kind: MessageKind): string => `a2a-${kind}`;

/** Compiles every kind's schema with one Ajv; the build uses this too, with the documents read from the checkout. */
export function compileA2ASchemas(ajv: import('ajv').Ajv, load: (name: A2ASchemaName) => Record<string, unknown> = a2aSchema): Map<MessageKind, ValidateFunction> {
  ajv.addSchema(load('common'));
  return new Map(MESSAGE_KINDS.map((kind) => [kind, ajv.compile(load(kind))]));
}

let compiledHere: Map<MessageKind, ValidateFunction> | undefined;

function compileAll(): Map<MessageKind, ValidateFunction> {
  if (compiledHere === undefined) {
    const { Ajv2020 } = requireCjs('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
    compiledHere = compileA2ASchemas(new Ajv2020(A2A_AJV_OPTIONS));
  }
  return compiledHere;
}

/** The validator of one kind's bodies (given as parsed JSON). */
export function validatorOf(kind: MessageKind): ValidateFunction {
  return precompiled(validatorName(kind), () => compileAll().get(kind)!);
}

/** What is wrong with `value` as a body of `kind`, in one line; null when nothing is. */
export function schemaProblem(kind: MessageKind, value: unknown): string | null {
  const validate = validatorOf(kind);
  if (validate(value)) return null;
  const errors = validate.errors ?? [];
  // An unknown field is the most telling refusal: name it first.
  const unknown = errors.find((e) => e.keyword === 'unevaluatedProperties' || e.keyword === 'additionalProperties');
  const e = unknown ?? errors[0];
  if (e === undefined) return 'is not valid';
  const at = e.instancePath === '' ? '' : ` at ${e.instancePath}`;
  if (unknown !== undefined) {
    const field = (e.params as { unevaluatedProperty?: string; additionalProperty?: string }).unevaluatedProperty ?? (e.params as { additionalProperty?: string }).additionalProperty;
    return `has a field the protocol does not define${at}: ${JSON.stringify(field)}`;
  }
  return `${e.message ?? 'is invalid'}${at}`;
}
