import { LogbookError } from './errors.js';

export type AppendDecision = 'append' | 'duplicate';

/**
 * Decides what a writer whose last durable record is `lastSeq` should do with
 * `seq`: append the next record, skip a duplicate of one already stored, or refuse
 * a gap.
 *
 * This is a decision only. The writer advances its own last seq, and only after
 * the record is durable (fsynced or acknowledged), so a torn or failed write
 * re-appends the same seq instead of losing it. Do not fold that advance in here.
 */
export function checkAppend(lastSeq: number, seq: number): AppendDecision {
  if (!Number.isSafeInteger(seq) || seq < 1) {
    throw new LogbookError('seq_gap', `record seq ${seq} is not a positive integer`);
  }
  if (seq <= lastSeq) return 'duplicate';
  if (seq === lastSeq + 1) return 'append';
  throw new LogbookError('seq_gap', `record seq ${seq} does not follow the journal's last seq ${lastSeq}`);
}
