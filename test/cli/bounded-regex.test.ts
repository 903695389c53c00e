/**
 * The worker a --regex runs in: answers come back in order, batch after batch;
 * a record the pattern is stuck on is named when the deadline passes, however
 * many records its batch holds; a stop signal ends what is waited for at once;
 * and what cannot be used is refused before any worker starts.
 */
import { describe, expect, it } from 'vitest';
import { BoundedRegex } from '../../src/cli/session/bounded-regex.js';
import { isLogbookError } from '../../src/index.js';

const options = (signal = new AbortController().signal, deadlineMs = 10_000) => ({ deadlineMs, deadlineOption: '--regex-timeout', signal });
const record = (label: string, ...texts: string[]) => ({ label, texts });

describe('BoundedRegex', () => {
  it('answers each batch in order with the first match in each text, case-insensitively', async () => {
    const re = new BoundedRegex('b+', options());
    try {
      const [first, second] = await Promise.all([
        re.find([record('one', 'abbc', 'x'), record('two')]),
        re.find([record('three', 'BB')]),
      ]);
      expect(first).toEqual([[{ index: 1, length: 2 }, null], []]);
      expect(second).toEqual([[{ index: 0, length: 2 }]]);
    } finally {
      await re.close();
    }
  });

  it('names the record it is stuck on when the deadline passes, and fails what is waited for after it', async () => {
    const re = new BoundedRegex('(a+)+b', options(undefined, 300));
    try {
      const stuck = re.find([record('seq 2 of run r', 'quick'), record('seq 3 of run r', 'a'.repeat(40)), record('seq 4 of run r', 'never reached')]);
      const after = re.find([record('seq 5 of run r', 'b')]);
      await expect(stuck).rejects.toThrow(/^--regex took longer than 0.3s over seq 3 of run r, and the search was stopped/);
      await expect(after).rejects.toSatisfy((err: unknown) => isLogbookError(err, 'regex_limit'));
      await expect(re.find([record('later', 'b')])).rejects.toSatisfy((err: unknown) => isLogbookError(err, 'regex_limit'));
    } finally {
      await re.close();
    }
  });

  it('ends the matching at once when its signal aborts', async () => {
    const stop = new AbortController();
    const re = new BoundedRegex('(a+)+b', options(stop.signal));
    try {
      const stuck = re.find([record('seq 2 of run r', 'a'.repeat(60))]);
      setTimeout(() => stop.abort(), 100);
      await expect(stuck).rejects.toSatisfy((err: unknown) => isLogbookError(err, 'interrupted'));
    } finally {
      await re.close();
    }
  });

  it('refuses a pattern too long or not one before starting a worker', () => {
    expect(() => new BoundedRegex('x'.repeat(1001), options())).toThrow(/at most 1,000 characters/);
    expect(() => new BoundedRegex('(', options())).toThrow(/is not a regular expression: Unterminated group/);
  });
});
