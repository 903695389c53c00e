import { describe, expect, it } from 'vitest';
import { LogbookError, decodeRecord, encodeRecord, fold, parseJournal } from '../../src/index.js';
import { stateToJson } from '../../src/core/index.js';
import { validateRecord } from '../../src/index.js';
import { fixtures } from '../helpers/fixtures.js';

/** The folded state as plain JSON values, `answered` sorted, as the fixtures hold it (they leave out the derived `status`). */
function comparable(json: string): { status?: string } {
  const value = JSON.parse(json) as { pending: { answered: string[] } | null; status?: string };
  if (value.pending) value.pending.answered.sort();
  return value;
}

/** The spec's status, read off the journal text: the last whole line's terminal reason, else open. */
function statusOfText(journal: string): string {
  const whole = journal.slice(0, journal.lastIndexOf('\n') + 1).split('\n').filter(Boolean);
  const last = JSON.parse(whole[whole.length - 1]!) as { terminal?: { reason: string } };
  return last.terminal?.reason ?? 'open';
}

describe('conformance fixtures', () => {
  for (const fx of fixtures()) {
    describe(fx.name, () => {
      it('folds to its expected state or error code', () => {
        const expected = fx.expected;
        let outcome: unknown;
        try {
          const state = comparable(stateToJson(fold(parseJournal(fx.journal))));
          expect(state.status).toBe(statusOfText(fx.journal));
          delete state.status;
          outcome = state;
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
