/**
 * Durations and points in time as options take them (`--since`, `--older-than`).
 * Durations are read by the `ms` library (90m, 2h, 3d, 1w, "2 days"); a number
 * without a unit is refused, since its unit would be a guess. Dates are local
 * time, like the times `session ls` shows, unless they carry an offset.
 */
import { InvalidArgumentError } from 'commander';
import ms from 'ms';

const DURATION_HELP = 'a duration with a unit, such as 30m, 2h, 3d or 1w';
const BARE_NUMBER = /^\s*[\d.]+\s*$/;
const DATE_ONLY = /^\d{4}-\d\d-\d\d$/;
const DATE_FIRST = /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d/;

/** Milliseconds of a positive duration, or null when `text` is not one. */
function duration(text: string): number | null {
  if (BARE_NUMBER.test(text) || text.trim() === '') return null;
  const value = ms(text.trim() as ms.StringValue) as number | undefined;
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : null;
}

/** A duration option's value, in milliseconds; a usage error when it is not one. */
export function parseDuration(text: string): number {
  const value = duration(text);
  if (value === null) throw new InvalidArgumentError(`"${text}" is not ${DURATION_HELP}`);
  return value;
}

/** Whether the date a text starts with exists (Date.parse rolls 2026-02-30 over into March). */
function onTheCalendar(text: string): boolean {
  const [y, m, d] = text.slice(0, 10).split('-').map(Number) as [number, number, number];
  const day = new Date(y, m - 1, d);
  return day.getFullYear() === y && day.getMonth() === m - 1 && day.getDate() === d;
}

/**
 * A point in time: a duration back from `now` (2h), a local date (2026-11-30,
 * its midnight), a local time (2026-11-30 09:15), or an RFC 3339 time.
 */
export function parsePointInTime(text: string, now: number = Date.now()): Date {
  const back = duration(text);
  if (back !== null) return new Date(now - back);
  const trimmed = text.trim();
  const at = DATE_ONLY.test(trimmed) ? Date.parse(`${trimmed}T00:00`) : DATE_FIRST.test(trimmed) ? Date.parse(trimmed) : NaN;
  if (Number.isNaN(at) || !onTheCalendar(trimmed)) {
    throw new InvalidArgumentError(`"${text}" is neither ${DURATION_HELP}, nor a date such as 2026-11-30 or 2026-11-30T09:15:00Z`);
  }
  return new Date(at);
}
