import { expect, it } from 'vitest';
import { groupedDigits } from '../../src/core/index.js';

it("groups a count's digits exactly as toLocaleString('en-US') does, for every kind of number", () => {
  const values = [0, 7, 12, 999, 1000, 1234, 99_999, 100_000, 1_234_567, -1, -999, -1000, -123_456_789, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 0.5, 1234.5678, 2 ** 60, NaN, Infinity];
  for (let i = 1; i < 1e15; i *= 7) values.push(i, i - 1, -i);
  for (const n of values) expect(groupedDigits(n), String(n)).toBe(n.toLocaleString('en-US'));
});
