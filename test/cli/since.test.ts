import { describe, expect, it } from 'vitest';
import { parseSince } from '../../src/cli/session/since.js';

const now = new Date('2026-11-30T12:00:00Z');

describe('--since', () => {
  it('takes a duration back from now', () => {
    expect(parseSince('90s', now).toISOString()).toBe('2026-11-30T11:58:30.000Z');
    expect(parseSince('30m', now).toISOString()).toBe('2026-11-30T11:30:00.000Z');
    expect(parseSince('2h', now).toISOString()).toBe('2026-11-30T10:00:00.000Z');
    expect(parseSince('3d', now).toISOString()).toBe('2026-11-27T12:00:00.000Z');
    expect(parseSince('1w', now).toISOString()).toBe('2026-11-23T12:00:00.000Z');
  });

  it('takes a date (local midnight) or a time (local, or with a zone)', () => {
    expect(parseSince('2026-11-02', now).getTime()).toBe(new Date(2026, 10, 2).getTime());
    expect(parseSince('2026-11-02T14:30', now).getTime()).toBe(new Date(2026, 10, 2, 14, 30).getTime());
    expect(parseSince('2026-11-02T14:30:00Z', now).toISOString()).toBe('2026-11-02T14:30:00.000Z');
    expect(parseSince('2026-11-02T14:30:00.5+02:00', now).toISOString()).toBe('2026-11-02T12:30:00.500Z');
  });

  it('refuses anything else as a usage error naming what it takes', () => {
    for (const bad of ['yesterday', '2h30m', '-1d', '2026-02-30', '2026-13-01', '', '3 days']) {
      expect(() => parseSince(bad, now), bad).toThrow(/is neither a duration \(90s, 30m, 2h, 3d, 1w\) nor a date or time/);
    }
  });
});
