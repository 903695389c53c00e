/**
 * The one interface every session backend implements. A store keeps journals
 * (append-only record sequences) under run ids; all format rules live in the core,
 * and every backend calls the same ones (validateId, checkAppend, the codec).
 */
import { LogbookError, type JournalRecord, type MetaPayload, type Payload, type RunState, type TerminalReason } from '../core/index.js';

/** An open run, exclusively held for appending until closed. */
export interface Journal {
  readonly runId: string;
  /** The seq of the last durable record; advanced only once a record is durable. */
  readonly lastSeq: number;
  /**
   * Appends the record with this seq. A seq at or below lastSeq is a duplicate and
   * is skipped; a gap is refused with `seq_gap`.
   */
  append(seq: number, payload: Payload): Promise<void>;
  /** Every record, read back from the store. */
  records(): Promise<JournalRecord[]>;
  /** Releases the run. Safe to call more than once. */
  close(): Promise<void>;
}

export interface LoadedRun {
  state: RunState;
  records: JournalRecord[];
  lastSeq: number;
  /** From meta, as written. */
  created: string;
  /** When the journal last changed, RFC 3339. */
  updated: string;
}

export type RunStatus = 'open' | TerminalReason | 'unreadable';

export interface RunInfo {
  runId: string;
  created: string;
  updated: string;
  model: string;
  prompt: string;
  /** The terminal reason of the last record, `open` when it is not a terminal. */
  status: RunStatus;
  /** Why the run could not be read, when status is `unreadable`. */
  problem?: string;
}

export interface Store {
  /** The backend's registry name. */
  readonly backend: string;
  /** Where this store keeps runs, for people ("file store in /home/a/.local/state/logbook/runs"). */
  readonly location: string;
  /** Creates a run with meta as seq 1 and returns it locked (`exists` if present). */
  create(id: string, meta: MetaPayload): Promise<Journal>;
  /** Locks an existing run for appending (`not_found`, `locked`). */
  open(id: string): Promise<Journal>;
  /** Reads and folds without locking, so inspecting never blocks a running writer. */
  load(id: string): Promise<LoadedRun>;
  /** One entry per run, read without loading whole journals. */
  list(): Promise<RunInfo[]>;
  /** Removes a run; false when there was none. Refuses (`locked`) while a writer holds it. */
  delete(id: string): Promise<boolean>;
  /** Releases the store's own resources (connections). */
  close(): Promise<void>;
}

/** The refusal every backend gives for a run it does not hold. */
export function runNotFound(id: string): LogbookError {
  return new LogbookError('not_found', `no run ${id}; \`logbook session ls\` lists the runs`);
}
