/**
 * Fold checkpoints (core fold-checkpoint.ts), over any backend that keeps one
 * beside a run: where one is read and checked against the journal, and what a
 * writer keeps to write the next. A checkpoint is used only when the lines it
 * names are the journal's first lines as stored now (their digest, read from
 * the backend), and then only the lines after them are decoded, checked and
 * folded; a journal shorter or other there, a checkpoint damaged or of another
 * layout, or one of another run, is ignored and the run folded whole. It is
 * derived data: losing it costs a load its work, never a record.
 */
import {
  LinesDigest,
  modelCallOf,
  parseCheckpointBody,
  parseCheckpointHeader,
  stateSnapshot,
  type FoldCheckpoint,
  type JournalRecord,
  type ModelCall,
  type RunState,
} from '../core/index.js';
import type { Backend, Streamed } from './backend.js';
import { buildIdentity } from './package-version.js';

/**
 * A writer checkpoints again once the lines since the last checkpoint (or
 * since the start) are at least this many bytes, and at least a quarter of
 * what it covers: a short run is never checkpointed (its fold is quick), and a
 * long one is written again a bounded number of times as it doubles.
 */
export const CHECKPOINT_MIN_BYTES = 256 * 1024;
const CHECKPOINT_GROWTH = 4;

/** A load from a checkpoint: the checkpoint, the lines after it, and the digest of the lines so far (to be fed the rest). */
export interface CheckpointStart {
  checkpoint: FoldCheckpoint;
  rest: AsyncIterable<Streamed>;
  digest: LinesDigest;
}

/** Whether `backend` keeps checkpoints. */
export function keepsCheckpoints(backend: Backend): boolean {
  return backend.readCheckpoint !== undefined && backend.writeCheckpoint !== undefined && backend.streamAfter !== undefined;
}

/**
 * Run `id`'s checkpoint and the lines after it, when there is one and the
 * journal's first lines are the ones it names; null otherwise (the caller
 * folds the run whole, whose read then says what is wrong with it, if anything).
 */
export async function fromCheckpoint(backend: Backend, id: string): Promise<CheckpointStart | null> {
  if (!keepsCheckpoints(backend)) return null;
  // The lines it names are checked first: the body of a checkpoint of other lines is never parsed.
  const text = await backend.readCheckpoint!(id).catch(() => null);
  if (text === null) return null; // a run without one never reads what names the build
  const header = parseCheckpointHeader(text, buildIdentity());
  if (header === null) return null;
  const digest = new LinesDigest();
  const rest = await backend.streamAfter!(id, header, digest).catch(() => null);
  if (rest === null) return null;
  // Used only when the journal's first lines, as stored now, are the ones it names.
  const checkpoint = digest.lines === header.lines && digest.length === header.length && digest.hex() === header.digest ? parseCheckpointBody(header) : null;
  if (checkpoint !== null && checkpoint.state.run_id === id) return { checkpoint, rest, digest };
  for await (const _ of rest) break; // let go of what the read holds
  return null;
}

/**
 * What a writer of a run keeps to checkpoint it: the digest and the model
 * calls of its lines so far (as a load read them, then as it appends), and
 * how many bytes the last checkpoint covers.
 */
export class CheckpointTrail {
  constructor(
    private readonly digest: LinesDigest,
    private readonly calls: ModelCall[],
    private readonly metaLine: string,
    /** The seq of the last line taken. */
    public seq: number,
    /** The bytes the run's checkpoint covers (0 when it has none). */
    private covered: number,
  ) {}

  /** A trail from a run's first line, its meta record (a run being created). */
  static fromMeta(metaLine: string): CheckpointTrail {
    const digest = new LinesDigest();
    digest.addLine(metaLine);
    return new CheckpointTrail(digest, [], metaLine, 1, 0);
  }

  /** Takes in the line of `record`, made durable after those taken so far. */
  add(line: string, record: JournalRecord): void {
    this.digest.addLine(line);
    const call = modelCallOf(record);
    if (call !== null) this.calls.push(call);
    this.seq = record.seq;
  }

  /**
   * The checkpoint of the lines taken, whose fold `state` is (its last_seq is
   * the last of them), when they grew enough since the last one; else null.
   * Taken as they are now, to be encoded later (encodeFoldCheckpoint); what it
   * returns counts as covered.
   */
  due(state: RunState): FoldCheckpoint | null {
    const since = this.digest.length - this.covered;
    if (state.last_seq !== this.seq || since < CHECKPOINT_MIN_BYTES || since * CHECKPOINT_GROWTH < this.covered) return null;
    const { lines, length } = this.digest;
    this.covered = length;
    return { lines, length, digest: this.digest.hex(), metaLine: this.metaLine, state: stateSnapshot(state), calls: this.calls.slice() };
  }
}
