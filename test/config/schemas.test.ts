/**
 * The config and script schemas are compiled without checking them against the
 * JSON Schema meta-schema at start-up (that check costs tens of milliseconds on
 * every command); this is where they are checked instead.
 */
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { SCRIPT_SCHEMA } from '../../src/agent/providers/script.js';
import { CONFIG_SCHEMA } from '../../src/config/schema.js';

describe('constant schemas', () => {
  it.each([
    ['agent.yaml', CONFIG_SCHEMA],
    ['script', SCRIPT_SCHEMA],
  ])('the %s schema is a valid JSON Schema and compiles in strict mode', (_name, schema) => {
    const ajv = new Ajv({ strict: true });
    expect(ajv.validateSchema(schema as object), JSON.stringify(ajv.errors)).toBe(true);
    expect(() => ajv.compile(schema as object)).not.toThrow();
  });

  it('the check would catch a broken schema', () => {
    const ajv = new Ajv({ strict: true });
    expect(ajv.validateSchema({ type: 'object', properties: { a: { type: 'no-such-type' } } })).toBe(false);
  });
});
