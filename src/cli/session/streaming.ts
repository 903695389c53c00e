/** What the commands that print as they read (watch, search, show --json) share. */
import { outputGone } from '../stdio.js';

/**
 * Writes to stdout, waiting for a slow reader to catch up rather than piling
 * output up in memory. Once stdout is gone (its reader left) nothing is written
 * and nothing waits: the command sees outputGone('stdout') and stops reading.
 */
export async function writeOut(text: string | Uint8Array): Promise<void> {
  if (text.length === 0 || outputGone('stdout').aborted || process.stdout.write(text)) return;
  await untilDrained();
}

/** Resolves once stdout has written what it queued (its 'drain'), or at once when its reader has left. */
function untilDrained(): Promise<void> {
  const gone = outputGone('stdout');
  if (gone.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = (): void => {
      process.stdout.off('drain', done);
      gone.removeEventListener('abort', done);
      resolve();
    };
    process.stdout.on('drain', done);
    gone.addEventListener('abort', done, { once: true });
  });
}

/** How many bytes of output a batch holds before it is written. */
const BATCH = 1024 * 1024;
/** How many bytes stdout may queue before what makes them waits (BatchedOutput.pace). */
const QUEUED_MAX = 8 * BATCH;

/**
 * Output written to stdout a batch at a time as it is made, so a long run's
 * text is never held whole. Each part is encoded into the batch as it is
 * added, never joined with others first (a join copies every part once more);
 * a batch stdout has written out is filled again (its fresh pages, touched
 * once, are what a new one would cost), one it still queues is left to it. A
 * command that fails part way has printed a prefix and exits non-zero with
 * its error; it never ends what it printed (`session show
 * --json`'s object is never closed), so no JSON reader takes it for whole.
 */
export class BatchedOutput {
  private batch: Buffer = Buffer.allocUnsafe(BATCH);
  private used = 0;
  /** Batches stdout has written out, to be filled again: at most what it may queue, and one more. */
  private readonly spare: Buffer[] = [];

  add(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit; counted exactly only where that bound does not fit.
    if (this.used + text.length * 3 > this.batch.length) {
      const size = Buffer.byteLength(text, 'utf8');
      if (this.used + size > this.batch.length) {
        this.flush();
        if (size > this.batch.length) {
          this.write(Buffer.from(text, 'utf8'));
          return;
        }
      }
    }
    this.used += this.batch.write(text, this.used, 'utf8');
  }

  /**
   * Between batches of what is read (LoadFoldedOptions.pace): while stdout
   * queues bytes, a turn of the event loop lets it write what its reader
   * takes; past QUEUED_MAX, the read waits for the queue to drain, so a slow
   * reader holds the command up rather than its output piling up.
   */
  pace(): Promise<void> | undefined {
    const queued = process.stdout.writableLength;
    if (queued === 0 || outputGone('stdout').aborted) return undefined;
    if (queued > QUEUED_MAX && process.stdout.writableNeedDrain) return untilDrained();
    return new Promise((resolve) => setImmediate(resolve));
  }

  /** Writes what is left and waits until stdout has taken all of it (or its reader has left). */
  async end(): Promise<void> {
    this.flush();
    if (process.stdout.writableNeedDrain) await untilDrained();
  }

  private flush(): void {
    if (this.used === 0) return;
    const full = this.batch;
    this.batch = this.spare.pop() ?? Buffer.allocUnsafe(BATCH);
    this.write(full.subarray(0, this.used), () => {
      if (this.spare.length <= QUEUED_MAX / BATCH) this.spare.push(full);
    });
    this.used = 0;
  }

  /** Writes `bytes` to stdout; `written` once it has written them out (at once where its reader has left). */
  private write(bytes: Buffer, written?: () => void): void {
    if (outputGone('stdout').aborted) written?.();
    else process.stdout.write(bytes, written);
  }
}
