/**
 * A summary's `label  value` lines and its times: a module of its own, apart
 * from the table layout (output.ts), so that `session show` loads no text
 * measuring to print them.
 */

/** `label  value` lines with the values aligned. */
export function fields(pairs: [string, string][]): string {
  const width = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${k.padEnd(width)}  ${v}\n`).join('');
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/** The time format on screen: an RFC 3339 time as local `YYYY-MM-DD HH:MM`; the text as given when it is not a time. */
export function shortTime(rfc3339: string): string {
  const d = new Date(rfc3339);
  if (rfc3339 === '' || Number.isNaN(d.getTime())) return rfc3339;
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
}
