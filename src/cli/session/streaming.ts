/** What the commands that print as they read (watch, search) share. */
import { once } from 'node:events';
import { InvalidArgumentError } from 'commander';

/** A positive whole-number option value (--from-seq, --limit). */
export function positiveInteger(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1) throw new InvalidArgumentError('a positive whole number is needed');
  return n;
}

/** Writes to stdout, waiting for a slow reader to catch up rather than piling output up in memory. */
export async function writeOut(text: string): Promise<void> {
  if (text !== '' && !process.stdout.write(text)) await once(process.stdout, 'drain');
}
