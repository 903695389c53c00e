/** What the commands that print as they read (watch, search) share. */
import { outputGone } from '../stdio.js';

/**
 * Writes to stdout, waiting for a slow reader to catch up rather than piling
 * output up in memory. Once stdout is gone (its reader left) nothing is written
 * and nothing waits: the command sees outputGone('stdout') and stops reading.
 */
export async function writeOut(text: string): Promise<void> {
  const gone = outputGone('stdout');
  if (text === '' || gone.aborted || process.stdout.write(text)) return;
  await new Promise<void>((resolve) => {
    const done = (): void => {
      process.stdout.off('drain', done);
      gone.removeEventListener('abort', done);
      resolve();
    };
    process.stdout.on('drain', done);
    gone.addEventListener('abort', done, { once: true });
  });
}
