import { describe, expect, it } from 'vitest';
import { parseDuration, parsePointInTime } from '../../src/cli/durations.js';

describe('durations and points in time', () => {
  it('reads durations with a lowercase unit, a letter or its word, singular or plural', () => {
    expect(parseDuration('90s')).toBe(90_000);
    expect(parseDuration('90m')).toBe(90 * 60_000);
    expect(parseDuration('2h')).toBe(2 * 3_600_000);
    expect(parseDuration('3d')).toBe(3 * 86_400_000);
    expect(parseDuration('1w')).toBe(7 * 86_400_000);
    expect(parseDuration('1.5h')).toBe(90 * 60_000);
    expect(parseDuration('2 days')).toBe(2 * 86_400_000);
    expect(parseDuration('1 day')).toBe(86_400_000);
    expect(parseDuration('30minutes')).toBe(30 * 60_000);
    expect(parseDuration(' 1 second ')).toBe(1000);
    expect(parseDuration('2 weeks')).toBe(14 * 86_400_000);
    expect(parseDuration('1 hour')).toBe(3_600_000);
  });

  it('refuses any other unit, saying which are taken, and a duration of zero or less', () => {
    const refusals: [string, RegExp][] = [
      ['1M', /^"1M": units are lowercase \(m is minutes\); for months write 30d$/],
      ['1H', /^"1H": units are lowercase \(h is hours\)$/],
      ['1D', /^"1D": units are lowercase \(d is days\)$/],
      ['3 Weeks', /^"3 Weeks": units are lowercase \(write weeks\)$/],
      ['1Y', /^"1Y": years are not a unit; for a year write 365d$/],
      ['2 years', /years are not a unit/],
      ['1mo', /^"1mo": months are not a unit; for a month write 30d$/],
      ['1 month', /months are not a unit/],
      ['1 min', /^"1 min": "min" is not a unit; the units are s, m, h, d or w \(or seconds, minutes, hours, days, weeks\)$/],
      ['5ms', /"ms" is not a unit/],
      ['2hrs', /"hrs" is not a unit/],
      ['10', /^"10" has no unit: write a number and a unit, s, m, h, d or w/],
      ['0s', /^"0s": a duration must be more than zero$/],
      ['0.0h', /must be more than zero/],
      ['-2h', /^"-2h": a duration must be more than zero$/],
      ['soon', /^"soon" is not a duration: write a number and a unit, s, m, h, d or w/],
      ['1h30m', /is not a duration/],
      ['', /is not a duration/],
      ['2024-01-01', /is not a duration/],
    ];
    for (const [bad, said] of refusals) expect(() => parseDuration(bad), bad).toThrow(said);
  });

  it('takes a duration back from now, a local date or time, or an RFC 3339 time', () => {
    const now = Date.parse('2026-11-30T12:00:00Z');
    expect(parsePointInTime('2h', now).toISOString()).toBe('2026-11-30T10:00:00.000Z');
    expect(parsePointInTime('3 days', now).toISOString()).toBe('2026-11-27T12:00:00.000Z');
    expect(parsePointInTime('2026-11-29T08:00:00Z', now).toISOString()).toBe('2026-11-29T08:00:00.000Z');
    expect(parsePointInTime('2026-11-29', now).getTime()).toBe(new Date(2026, 10, 29).getTime()); // local midnight
    expect(parsePointInTime('2026-11-29 09:15', now).getTime()).toBe(new Date(2026, 10, 29, 9, 15).getTime());
    expect(parsePointInTime('2026-11-02T14:30:00.5+02:00', now).toISOString()).toBe('2026-11-02T12:30:00.500Z');
    for (const bad of ['yesterday', '29/11/2026', '2026-02-30', '2026-13-01', '2026-02-30T10:00', '']) {
      expect(() => parsePointInTime(bad, now), bad).toThrow(/is neither a duration \(a number and a unit, s, m, h, d or w .*\), nor a date/);
    }
    // Written as a duration, it is refused as one, with the reason.
    expect(() => parsePointInTime('1M', now)).toThrow(/^"1M": units are lowercase \(m is minutes\); for months write 30d$/);
    expect(() => parsePointInTime('10', now)).toThrow(/^"10" has no unit/);
    expect(() => parsePointInTime('0d', now)).toThrow(/must be more than zero/);
  });
});
