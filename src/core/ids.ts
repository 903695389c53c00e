import { LogbookError } from './errors.js';

const ID_PATTERN = /^[a-zA-Z0-9][a-zA-Z0-9_-]*$/;
/** The longest run id: the same ids work as a file name and as a NATS subject token. */
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

/** Printable ASCII: what a terminal shows as it is, so an id shown in a message looks like what it holds. */
const PRINTABLE = /^[\x20-\x7e]$/;

/** The code point, as U+XXXX. */
const codePoint = (ch: string): string => `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The id as a message quotes it: JSON, with every character but printable
 * ASCII written as a \u escape, so nothing in it can hide (a bidi control, a
 * zero-width space) or make an invalid id look valid once a terminal, or the
 * sanitizer before it, has had its way with it.
 */
function shownId(id: string): string {
  const start = [...id].slice(0, 40).join('');
  const json = JSON.stringify(start.length < id.length ? `${start}...` : start);
  return json.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Refuses (`invalid_id`) an id that is not one safe path component and NATS subject token of at most MAX_ID_LENGTH characters. */
export function validateId(id: string): void {
  if (isValidId(id)) return;
  if (typeof id !== 'string') throw new LogbookError('invalid_id', `invalid run id ${String(id)}: a run id is a string`);
  const hidden = [...id].find((ch) => !PRINTABLE.test(ch));
  throw new LogbookError(
    'invalid_id',
    `invalid run id ${shownId(id)}: use letters, digits, '_' and '-', starting with a letter or digit, at most ${MAX_ID_LENGTH} characters` +
      (hidden !== undefined ? `; ${codePoint(hidden)} is not one of them` : ''),
  );
}
