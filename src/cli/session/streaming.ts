/** What the commands that print as they read (watch, search) share. */
import { once } from 'node:events';

/** Writes to stdout, waiting for a slow reader to catch up rather than piling output up in memory. */
export async function writeOut(text: string): Promise<void> {
  if (text !== '' && !process.stdout.write(text)) await once(process.stdout, 'drain');
}
