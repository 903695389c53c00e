/**
 * Folding a run's records as they were read. Every store path that folds what
 * it read (a load, a load folded as it is read, a state streamed, a fork, a
 * copy) folds here, so a record the fold refuses is named by the line it was
 * read from, as a line that does not decode is (`<source> line <n> is corrupt:
 * <the fold's reason>`: journal-text.ts recordRefused), its code `corrupt` and
 * the fold's refusal its cause. Either refusal carries the run's id
 * (LogbookError.details), for a command to name the run in its advice.
 */
import { LogbookError, checkSeqOrder, decodeLines, initialState, isLogbookError, recordRefused, step, type JournalRecord, type RunState } from '../core/index.js';

/** `state` with `record`, read from line `n` of `source`, folded in (the first record starts it, as fold does); a refusal names the line. */
export function foldIn(state: RunState | undefined, record: JournalRecord, runId: string, source: string, n: number): RunState {
  try {
    return state === undefined ? initialState(record) : step(state, record);
  } catch (err) {
    throw recordRefused(err, source, n, { runId });
  }
}

/** The fold of `records`, read in order from the lines of `source` from line 1; a refusal names the line. */
export function foldRead(records: readonly JournalRecord[], runId: string, source: string): RunState {
  let state: RunState | undefined;
  for (let i = 0; i < records.length; i++) state = foldIn(state, records[i]!, runId, source, i + 1);
  if (state === undefined) throw new LogbookError('empty', `${source} has no records`);
  return state;
}

/** The records of run `runId`'s `lines`, read from `source`, decoded and checked to fold (what a fork or a copy takes); a refusal names the line. */
export function foldingRecords(lines: readonly string[], runId: string, source: string): JournalRecord[] {
  let records: JournalRecord[];
  try {
    records = decodeLines(lines, source);
  } catch (err) {
    throw ofRun(err, runId);
  }
  foldRead(records, runId, source);
  return records;
}

/** `err`, where it is a `corrupt` refusal of a line of run `runId` that names no run, naming it (the same message and code, `err` its cause). */
export function ofRun(err: unknown, runId: string): unknown {
  if (!isLogbookError(err, 'corrupt') || err.details.runId !== undefined) return err;
  return new LogbookError('corrupt', err.message, { cause: err, details: { ...err.details, runId } });
}

/**
 * Checks that `record`, read from line `n` of `source`, can follow what was
 * read before it as the fold takes it (a reader that streams records without
 * folding them): the first is its format's meta record at seq 1, each after it
 * of a greater seq than `previous`. A refusal names the line.
 */
export function checkFollows(previous: number, record: JournalRecord, runId: string, source: string, n: number): void {
  try {
    if (n === 1) initialState(record);
    else checkSeqOrder(previous, record.seq);
  } catch (err) {
    throw recordRefused(err, source, n, { runId });
  }
}
