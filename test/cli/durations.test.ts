import { describe, expect, it } from 'vitest';
import { parseDuration, parsePointInTime } from '../../src/cli/durations.js';

describe('durations and points in time', () => {
  it('reads durations with a unit, and refuses a bare number, a negative or nonsense', () => {
    expect(parseDuration('90m')).toBe(90 * 60_000);
    expect(parseDuration('2h')).toBe(2 * 3_600_000);
    expect(parseDuration('3d')).toBe(3 * 86_400_000);
    expect(parseDuration('1w')).toBe(7 * 86_400_000);
    expect(parseDuration('2 days')).toBe(2 * 86_400_000);
    for (const bad of ['10', '-2h', '0d', 'soon', '', '2024-01-01']) expect(() => parseDuration(bad), bad).toThrow(/is not a duration with a unit/);
  });

  it('takes a duration back from now, a local date or time, or an RFC 3339 time', () => {
    const now = Date.parse('2026-11-30T12:00:00Z');
    expect(parsePointInTime('2h', now).toISOString()).toBe('2026-11-30T10:00:00.000Z');
    expect(parsePointInTime('2026-11-29T08:00:00Z', now).toISOString()).toBe('2026-11-29T08:00:00.000Z');
    expect(parsePointInTime('2026-11-29', now).getTime()).toBe(new Date(2026, 10, 29).getTime()); // local midnight
    expect(parsePointInTime('2026-11-29 09:15', now).getTime()).toBe(new Date(2026, 10, 29, 9, 15).getTime());
    expect(parsePointInTime('2026-11-02T14:30:00.5+02:00', now).toISOString()).toBe('2026-11-02T12:30:00.500Z');
    for (const bad of ['yesterday', '29/11/2026', '10', '2026-02-30', '2026-13-01', '2026-02-30T10:00', '']) {
      expect(() => parsePointInTime(bad, now), bad).toThrow(/is neither a duration/);
    }
  });
});
