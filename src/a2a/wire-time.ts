/**
 * A header's `time`: RFC 3339 as Go's time.Time writes it (RFC3339Nano): UTC
 * written `Z`, nanoseconds with their trailing zeros trimmed, no fraction at all
 * when it is zero. Advisory only (ordering is by `sequence`). The clock here is
 * the wall clock carried on by the monotonic one, for nanosecond digits a Date
 * cannot give, taken up again from the wall clock whenever the two part by more
 * than two milliseconds (the system clock was set, or drifted).
 */

/** RFC 3339 as Go's strict parser takes it. */
export const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/;

const NS_PER_MS = 1_000_000n;
let wallAtAnchor = BigInt(Date.now()) * NS_PER_MS;
let monotonicAtAnchor = process.hrtime.bigint();

/** Nanoseconds since the Unix epoch, now. */
export function nowNs(): bigint {
  const monotonic = process.hrtime.bigint();
  const wall = BigInt(Date.now()) * NS_PER_MS;
  const carried = wallAtAnchor + (monotonic - monotonicAtAnchor);
  const apart = carried > wall ? carried - wall : wall - carried;
  if (apart <= 2n * NS_PER_MS) return carried; // Date.now() is whole milliseconds behind
  wallAtAnchor = wall;
  monotonicAtAnchor = monotonic;
  return wall;
}

function trimmedFraction(digits: string): string {
  const kept = digits.slice(0, 9).replace(/0+$/, '');
  return kept === '' ? '' : `.${kept}`;
}

/** `ns` since the epoch as a header's time. */
export function formatWireTime(ns: bigint = nowNs()): string {
  const ms = ns / NS_PER_MS;
  const iso = new Date(Number(ms)).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  const fraction = (ns % 1_000_000_000n).toString().padStart(9, '0');
  return `${iso.slice(0, 19)}${trimmedFraction(fraction)}Z`;
}

/**
 * A received time as Go writes it back after reading it: the fraction cut to
 * nanoseconds and trimmed, a zero offset written `Z`, another offset kept.
 * Null when it is not an RFC 3339 time (Go refuses to read it).
 */
export function normalizeWireTime(text: string): string | null {
  const m = RFC3339.exec(text);
  if (m === null) return null;
  const [, year, month, day, hour, minute, second, fraction, zone] = m;
  const mo = Number(month);
  const d = Number(day);
  const y = Number(year);
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  const daysInMonth = mo === 2 ? (leap ? 29 : 28) : [4, 6, 9, 11].includes(mo) ? 30 : 31;
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth || Number(hour) > 23 || Number(minute) > 59 || Number(second) > 59) return null;
  const offset = zone === 'Z' || zone === '+00:00' || zone === '-00:00' ? 'Z' : zone!;
  if (offset !== 'Z' && (Number(offset.slice(1, 3)) > 23 || Number(offset.slice(4)) > 59)) return null;
  return `${year}-${month}-${day}T${hour}:${minute}:${second}${trimmedFraction(fraction ?? '')}${offset}`;
}
