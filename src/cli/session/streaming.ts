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

/** How many bytes of held text a batch holds. */
const HELD_BATCH = 1024 * 1024;

/**
 * Output held until a command knows it is whole (one that prints nothing when
 * it fails part way), as UTF-8 in batches: bytes lie outside the JS heap,
 * where a long run's text would be copied and marked by collections. Each
 * part is encoded into the batch as it is added, never joined with others
 * first (a join copies every part once more); a part is whole text (it never
 * ends inside a surrogate pair), so its bytes are those of the parts joined.
 */
export class HeldOutput {
  private batch = Buffer.allocUnsafe(HELD_BATCH);
  private used = 0;
  private readonly batches: Buffer[] = [];

  add(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit; counted exactly only where that bound does not fit.
    if (this.used + text.length * 3 > this.batch.length) {
      const size = Buffer.byteLength(text, 'utf8');
      if (this.used + size > this.batch.length) {
        this.seal();
        this.batch = Buffer.allocUnsafe(Math.max(HELD_BATCH, size));
      }
    }
    this.used += this.batch.write(text, this.used, 'utf8');
  }

  /** The batch's bytes kept: copied out when more than a quarter of its buffer is unused (as before a long part), else in place. */
  private seal(): void {
    const kept = this.batch.subarray(0, this.used);
    if (this.used > 0) this.batches.push(this.batch.length - this.used > this.batch.length / 4 ? Buffer.from(kept) : kept);
    this.batch = EMPTY;
    this.used = 0;
  }

  /** Writes all of it to stdout, a batch at a time, each let go once written (writeOut). */
  async writeOut(): Promise<void> {
    this.seal();
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
