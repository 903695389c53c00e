import { describe, expect, it } from 'vitest';
import { LogbookError, isValidId, validateId } from '../../src/index.js';
import { checkAppend } from '../../src/core/index.js';

describe('validateId', () => {
  it.each(['a', 'A1', '0', 'run_1-x', 'x'.repeat(128)])('accepts %s', (id) => {
    expect(isValidId(id)).toBe(true);
    expect(() => validateId(id)).not.toThrow();
  });

  it.each(['', '_a', '-a', '../etc', 'a/b', 'a.b', 'a b', 'a*', 'a>', 'é', 'x'.repeat(129), '.', 'a\n'])('refuses %j with invalid_id', (id) => {
    expect(isValidId(id)).toBe(false);
    expect(() => validateId(id)).toThrowError(expect.objectContaining({ code: 'invalid_id' }));
  });
});

describe('checkAppend', () => {
  it('appends the next seq, skips duplicates and refuses gaps', () => {
    expect(checkAppend(0, 1)).toBe('append');
    expect(checkAppend(4, 5)).toBe('append');
    expect(checkAppend(4, 4)).toBe('duplicate');
    expect(checkAppend(4, 1)).toBe('duplicate');
    for (const [last, seq] of [
      [4, 6],
      [0, 2],
      [3, 0],
      [3, 1.5],
    ] as const) {
      let code = '';
      try {
        checkAppend(last, seq);
      } catch (err) {
        code = (err as LogbookError).code;
      }
      expect(code, `${last} then ${seq}`).toBe('seq_gap');
    }
  });
});
