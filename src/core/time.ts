/**
 * The `created` timestamp: RFC 3339 in UTC with fractional seconds, trailing
 * zeros trimmed (and no fraction at all when it is zero).
 */
export function formatTimestamp(date: Date): string {
  return date.toISOString().replace(/\.(\d*?)0*Z$/, (_m, digits: string) => (digits ? `.${digits}Z` : 'Z'));
}
