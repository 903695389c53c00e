import { LogbookError } from '../core/index.js';

export type OptionKind = 'string' | 'number' | 'boolean';

/**
 * Decodes a backend's options strictly at construction: an unknown key or a value
 * of the wrong type fails here, naming the backend and the key, rather than at
 * first use.
 */
export function decodeOptions<K extends string>(
  backend: string,
  options: Record<string, unknown> | undefined,
  spec: { [key in K]: { kind: OptionKind; required?: boolean } },
): { [key in K]?: string | number | boolean } {
  const given = options ?? {};
  if (typeof given !== 'object' || Array.isArray(given)) {
    throw new LogbookError('backend_options', `${backend} backend options must be a mapping`);
  }
  const known = Object.keys(spec);
  const out: { [key in K]?: string | number | boolean } = {};
  for (const [key, value] of Object.entries(given)) {
    if (!known.includes(key)) {
      throw new LogbookError(
        'backend_options',
        `unknown ${backend} backend option "${key}"` + (known.length ? ` (known: ${known.join(', ')})` : ' (it takes none)'),
      );
    }
    const want = spec[key as K].kind;
    if (typeof value !== want) {
      throw new LogbookError('backend_options', `${backend} backend option "${key}" must be a ${want}`);
    }
    out[key as K] = value as string | number | boolean;
  }
  for (const key of known) {
    if (spec[key as K].required && out[key as K] === undefined) {
      throw new LogbookError('backend_options', `${backend} backend needs option "${key}"`);
    }
  }
  return out;
}
