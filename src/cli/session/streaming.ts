/** What the commands that print as they read (watch, search, show --json) share. */
import { outputGone } from '../stdio.js';

/**
 * Writes to stdout, waiting for a slow reader to catch up rather than piling
 * output up in memory. Once stdout is gone (its reader left) nothing is written
 * and nothing waits: the command sees outputGone('stdout') and stops reading.
 */
export async function writeOut(text: string | Uint8Array): Promise<void> {
  const gone = outputGone('stdout');
  if (text.length === 0 || gone.aborted || process.stdout.write(text)) return;
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

/** How much held text is turned into bytes at a time. */
const HELD_BATCH = 1024 * 1024;

/**
 * Output held until a command knows it is whole (one that prints nothing when
 * it fails part way), as UTF-8 a batch at a time: bytes lie outside the JS
 * heap, where a long run's text would be copied and marked by collections.
 */
export class HeldOutput {
  private parts: string[] = [];
  private size = 0;
  private readonly batches: Buffer[] = [];

  add(text: string): void {
    this.parts.push(text);
    this.size += text.length;
    if (this.size >= HELD_BATCH) this.join();
  }

  private join(): void {
    if (this.parts.length === 0) return;
    this.batches.push(Buffer.from(this.parts.join(''), 'utf8'));
    this.parts = [];
    this.size = 0;
  }

  /** Writes all of it to stdout, a batch at a time, each let go once written (writeOut). */
  async writeOut(): Promise<void> {
    this.join();
    const { batches } = this;
    for (let i = 0; i < batches.length; i++) {
      const batch = batches[i]!;
      batches[i] = EMPTY;
      await writeOut(batch);
    }
    batches.length = 0;
  }
}

const EMPTY = Buffer.alloc(0);
