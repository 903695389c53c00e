/**
 * Option values several commands take, parsed one way everywhere: counts
 * (--limit, --from-seq) and run statuses (--status). A bad value is a usage
 * error through commander, naming what is taken.
 */
import { InvalidArgumentError } from 'commander';
import { LISTED_STATUSES, type ListedStatus } from '../store/store.js';

/** A whole number, 1 or more. */
export function parseCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('a positive whole number is needed (1 or more)');
  return n;
}

/** What --status takes, for its help line. */
export const STATUS_HELP = `one status or several, comma-separated or repeated: ${LISTED_STATUSES.join(', ')}`;

/** --status: one status or several, comma-separated or repeated; the statuses `session ls` shows. */
export function parseStatuses(value: string, previous: ListedStatus[] = []): ListedStatus[] {
  const given = value.split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const s of given) {
    if (!(LISTED_STATUSES as readonly string[]).includes(s)) {
      throw new InvalidArgumentError(`"${s}" is not a status; one of: ${LISTED_STATUSES.join(', ')}`);
    }
  }
  return [...previous, ...given];
}
