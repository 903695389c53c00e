/**
 * Every record a run makes goes through here: it is given the next seq, made
 * durable in the journal (when the run has one), and only then applied to the
 * run's state with the fold's own `step`. So the live state is the fold of what
 * is durable, by construction, and a failed append leaves the state as it was,
 * to be retried with the same seq.
 */
import { step, type JournalRecord, type Payload, type RunState } from '../core/index.js';
import type { Journal } from '../store/store.js';

export class Recorder {
  constructor(
    /** The run's state: the fold of its durable records. */
    readonly state: RunState,
    /** Null for a run that is not journaled: records are still made and folded, and stored nowhere. */
    private readonly journal: Journal | null,
    /** Called with each record once it is durable, and the time the store kept beside it (undefined where none is known). */
    private readonly onRecord?: (record: JournalRecord, time?: number) => void,
  ) {}

  async append(payload: Payload): Promise<JournalRecord> {
    const record = { seq: this.state.last_seq + 1, ...payload } as JournalRecord;
    const time = this.journal !== null ? await this.journal.append(record) : undefined;
    step(this.state, record);
    this.onRecord?.(record, time);
    return record;
  }

  /**
   * Has the journal keep the run's fold checkpoint of the state now, when it
   * grew enough since the last (Journal.keepCheckpoint): for a wait (a model
   * request sent), never on the way out.
   */
  keepCheckpoint(): void {
    void this.journal?.keepCheckpoint(this.state);
  }
}
