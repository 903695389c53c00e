import { describe, expect, it } from 'vitest';
import { LogbookError, decodeRecord, encodeRecord, fold, parseJournal, stateToJson } from '../../src/index.js';
import { validateRecord } from '../../src/index.js';
import { fixtures } from '../helpers/fixtures.js';

/** The folded state as plain JSON values, `answered` sorted, as the fixtures hold it. */
function comparable(json: string): unknown {
  const value = JSON.parse(json) as { pending: { answered: string[] } | null };
  if (value.pending) value.pending.answered.sort();
  return value;
}

describe('conformance fixtures', () => {
  for (const fx of fixtures()) {
    describe(fx.name, () => {
      it('folds to its expected state or error code', () => {
        const expected = fx.expected;
        let outcome: unknown;
        try {
          outcome = comparable(stateToJson(fold(parseJournal(fx.journal))));
        } catch (err) {
          if (!(err instanceof LogbookError)) throw err;
          outcome = { error: err.code };
        }
        if (expected.pending) (expected.pending as { answered: string[] }).answered.sort();
        expect(outcome).toEqual(expected);
      });

      it('round-trips every whole line byte for byte, and each one meets the schema', () => {
        const lines = fx.journal.split('\n');
        let checked = 0;
        for (const [i, line] of lines.entries()) {
          let record;
          try {
            record = decodeRecord(line);
          } catch {
            continue; // torn tails, the corrupt line and foreign versions are covered above
          }
          expect(encodeRecord(record), `line ${i + 1}`).toBe(line);
          expect(validateRecord(line), `line ${i + 1}`).toEqual({ valid: true });
          checked++;
        }
        if (fx.expected.error !== 'version') expect(checked).toBeGreaterThan(0);
      });
    });
  }
});
