/**
 * The published JSON Schemas (2020-12) of the five record kinds, and a validator.
 * Not on any read or write path (the encoder and decoder are the authority there); it is the
 * contract for other consumers of journals, and the tests hold every record this
 * project writes, and every fixture, to it.
 */
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv';
import { PAYLOAD_KINDS, PROTOCOL_IDS, type PayloadKind } from '../core/index.js';

/** Ajv (CommonJS) loads at the first validation, not when the package's API is imported. */
const require = createRequire(import.meta.url);

/** The JSON Schemas of the record format, one per payload kind and their common parts (schemas/). */
export type RecordSchemaName = PayloadKind | 'common';

/** A schema document as shipped in the package's `schemas/` directory. */
export function recordSchema(name: RecordSchemaName): Record<string, unknown> {
  return require(`../../schemas/${name}.json`) as Record<string, unknown>;
}

let validators: Map<string, ValidateFunction> | null = null;

function compiled(): Map<string, ValidateFunction> {
  if (validators !== null) return validators;
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js');
  const ajv = new Ajv2020({ allErrors: true, strict: true });
  ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
  ajv.addSchema(recordSchema('common'));
  validators = new Map(PAYLOAD_KINDS.map((kind) => [PROTOCOL_IDS[kind], ajv.compile(recordSchema(kind))]));
  return validators;
}

/** Whether a stored record line is valid by the schemas, and if not, why. */
export type ValidationResult = { valid: true } | { valid: false; errors: string[] };

/** Validates one record, given as a journal line or as parsed JSON. */
export function validateRecord(record: string | unknown): ValidationResult {
  let value: unknown = record;
  if (typeof record === 'string') {
    try {
      value = JSON.parse(record);
    } catch (err) {
      return { valid: false, errors: [`not JSON: ${(err as Error).message}`] };
    }
  }
  const protocol = (value as { protocol?: unknown } | null)?.protocol;
  const validate = typeof protocol === 'string' ? compiled().get(protocol) : undefined;
  if (validate === undefined) return { valid: false, errors: [`unknown protocol ${JSON.stringify(protocol)}`] };
  if (validate(value)) return { valid: true };
  return {
    valid: false,
    errors: (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`),
  };
}
