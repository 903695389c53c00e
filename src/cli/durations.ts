/**
 * Durations and points in time as options take them (`--since`, `--older-than`).
 * A duration is a number and a unit, and the units are few and lowercase
 * (UNITS_HELP): `M` could mean months as well as minutes, and an option that
 * removes runs must not guess, so anything else is refused, saying what is
 * taken. Dates are local time, like the times `session ls` shows, unless they
 * carry an offset.
 */
import { InvalidArgumentError } from 'commander';

const SECOND = 1000;
/** Each unit taken: its letter, its word (singular; the plural is taken too) and its length. */
const UNITS: readonly (readonly [letter: string, word: string, ms: number])[] = [
  ['s', 'second', SECOND],
  ['m', 'minute', 60 * SECOND],
  ['h', 'hour', 3600 * SECOND],
  ['d', 'day', 86_400 * SECOND],
  ['w', 'week', 7 * 86_400 * SECOND],
];

/** The units, as --help, the docs and every refusal state them. */
export const UNITS_HELP = 's, m, h, d or w (or seconds, minutes, hours, days, weeks)';
const DURATION_HELP = `a number and a unit, ${UNITS_HELP}, such as 90s, 30m, 2h, 3d or 1w`;

/** Something written as a duration: a sign, a number, a unit (any letters, checked apart). */
const DURATION_SHAPE = /^\s*(-?)(\d+(?:\.\d+)?|\.\d+)\s*([A-Za-z]*)\s*$/;
const DATE_ONLY = /^\d{4}-\d\d-\d\d$/;
const DATE_FIRST = /^\d{4}-\d\d-\d\d[T ]\d\d:\d\d/;
/** Units people write that are not taken, each with what to write instead. */
const NOT_TAKEN: readonly (readonly [RegExp, string])[] = [
  [/^(mo|mos|mon|mons|month|months)$/i, 'months are not a unit; for a month write 30d'],
  [/^(y|yr|yrs|year|years)$/i, 'years are not a unit; for a year write 365d'],
];

function unitOf(text: string): (typeof UNITS)[number] | undefined {
  return UNITS.find(([letter, word]) => text === letter || text === word || text === `${word}s`);
}

/** Why `unit` is not one that is taken, naming what is. */
function unitProblem(unit: string): string {
  const lower = unitOf(unit.toLowerCase());
  if (lower) {
    const [letter, word] = lower;
    const said = unit.length === 1 ? `${letter} is ${word}s` : `write ${unit.toLowerCase()}`;
    return `units are lowercase (${said})${letter === 'm' && unit === 'M' ? '; for months write 30d' : ''}`;
  }
  const known = NOT_TAKEN.find(([pattern]) => pattern.test(unit));
  if (known) return known[1];
  return `"${unit}" is not a unit; the units are ${UNITS_HELP}`;
}

/**
 * Milliseconds of a positive duration, a refusal saying why `text` is not one,
 * or null when it is not written as a duration at all.
 */
function readDuration(text: string): { ms: number } | { problem: string } | null {
  const shape = DURATION_SHAPE.exec(text);
  if (!shape) return null;
  const [, sign, number, unit] = shape as unknown as [string, string, string, string];
  if (unit === '') return { problem: `"${text}" has no unit: write ${DURATION_HELP}` };
  const known = unitOf(unit);
  if (!known) return { problem: `"${text}": ${unitProblem(unit)}` };
  const value = Number(number) * known[2];
  if (sign === '-' || value === 0) return { problem: `"${text}": a duration must be more than zero` };
  return { ms: Math.round(value) };
}

/** A duration option's value, in milliseconds; a usage error when it is not one. */
export function parseDuration(text: string): number {
  const read = readDuration(text) ?? { problem: `"${text}" is not a duration: write ${DURATION_HELP}` };
  if ('problem' in read) throw new InvalidArgumentError(read.problem);
  return read.ms;
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
  const back = readDuration(text);
  if (back !== null) {
    if ('problem' in back) throw new InvalidArgumentError(back.problem);
    return new Date(now - back.ms);
  }
  const trimmed = text.trim();
  const at = DATE_ONLY.test(trimmed) ? Date.parse(`${trimmed}T00:00`) : DATE_FIRST.test(trimmed) ? Date.parse(trimmed) : NaN;
  if (Number.isNaN(at) || !onTheCalendar(trimmed)) {
    throw new InvalidArgumentError(`"${text}" is neither a duration (${DURATION_HELP}), nor a date such as 2026-11-30 or 2026-11-30T09:15:00Z`);
  }
  return new Date(at);
}
