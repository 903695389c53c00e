import { LogbookError } from '../../src/index.js';

/** The error a promise rejects with, or `no error` as its code when it resolves. */
export async function caught(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (err) {
    return err as { code: string; message: string };
  }
  return { code: 'no error', message: '' };
}

/** The code of the LogbookError a call throws, or `no error` when it returns; any other error is rethrown. */
export function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof LogbookError) return err.code;
    throw err;
  }
  return 'no error';
}
