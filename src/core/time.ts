/**
 * The `created` timestamp: RFC 3339 in UTC with fractional seconds, trailing
 * zeros trimmed (and no fraction at all when it is zero).
 */
export function formatTimestamp(date: Date): string {
  return date.toISOString().replace(/\.(\d*?)0*Z$/, (_m, digits: string) => (digits ? `.${digits}Z` : 'Z'));
}

/**
 * The longest wait a timer can hold: Node's timers take at most 2^31 - 1 ms
 * (about 24.8 days), and a longer delay fires at once. Every duration that
 * reaches a timer is checked against it where it is given (refused above it),
 * and clamped to it where it is used, so no wait ever ends early.
 */
export const LONGEST_TIMER_MS = 2 ** 31 - 1;

/** The longest timer wait in words, for a refusal. */
export const LONGEST_TIMER_TEXT = 'about 24.8 days, the longest wait a timer holds';

/** `ms` as a timer can wait it: never more than LONGEST_TIMER_MS. */
export function timerDelay(ms: number): number {
  return Math.min(ms, LONGEST_TIMER_MS);
}
