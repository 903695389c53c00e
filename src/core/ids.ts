import { LogbookError } from './errors.js';

const ID_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_-]*$/;
export const MAX_ID_LENGTH = 128;

/**
 * A run id is one safe path component and one valid NATS subject token, at most
 * 128 characters, so the same id works in every backend. This is also the
 * path-traversal defence: every backend calls it before an id becomes a key or a
 * path, and listings skip names that fail it.
 */
export function isValidId(id: string): boolean {
  return typeof id === 'string' && id.length <= MAX_ID_LENGTH && ID_PATTERN.test(id);
}

export function validateId(id: string): void {
  if (isValidId(id)) return;
  const shown = typeof id === 'string' ? JSON.stringify(id.length > 40 ? `${id.slice(0, 40)}...` : id) : String(id);
  throw new LogbookError(
    'invalid_id',
    `invalid run id ${shown}: use letters, digits, '_' and '-', starting with a letter or digit, at most ${MAX_ID_LENGTH} characters`,
  );
}
