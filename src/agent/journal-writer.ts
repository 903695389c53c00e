/**
 * Every record a run writes goes through here. Without a journal every call is a
 * no-op, so an unchecked run costs nothing.
 */
import type { Payload, TerminalPayload } from '../core/index.js';
import type { Journal } from '../store/store.js';

export class JournalWriter {
  constructor(readonly journal: Journal | null) {}

  get enabled(): boolean {
    return this.journal !== null;
  }

  /**
   * Appends the next record and returns once it is durable. The seq comes from the
   * journal's own last durable seq, so a failed append is retried with the same seq.
   */
  async write(payload: Payload): Promise<void> {
    if (this.journal === null) return;
    await this.journal.append(this.journal.lastSeq + 1, payload);
  }

  /** The terminal record. Failing to write it is reported, not raised: the run's work is already durable. */
  async writeTerminal(terminal: TerminalPayload, warn: (message: string) => void): Promise<void> {
    try {
      await this.write({ terminal });
    } catch (err) {
      warn(`could not journal the run's end (${terminal.reason}): ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}
