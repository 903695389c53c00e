/**
 * A count as people read it in English: 1234567 -> "1,234,567", what
 * `toLocaleString('en-US')` gives. A safe integer is grouped by hand: the first
 * toLocaleString of a process sets up ICU's number formatting, tens of
 * milliseconds for a command that prints a few counts.
 */
export const groupedDigits = (n: number): string => (Number.isSafeInteger(n) ? String(n).replace(/\B(?=(\d{3})+$)/g, ',') : n.toLocaleString('en-US'));
