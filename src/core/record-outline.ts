/**
 * RecordOutline: what a run's step, time and call figures read of its records,
 * without the conversation they carry. A load that folds each record and drops
 * it (Store.loadFolded) keeps this beside the fold instead of the records: a
 * few numbers and references a record, in columns, where the records would be
 * objects of their own. Everything that reads it (timing.ts, `session show`)
 * computes its figure from it alone, so a run's records and their outline give
 * the same figures.
 */
import { neverRun, withheldKind } from './call-facts.js';
import type { JournalRecord, PayloadKind } from './records.js';

export class RecordOutline {
  /** Each record's seq, in journal order. */
  readonly seqs: number[] = [];
  /** Each record's kind, by the same index. */
  readonly kinds: PayloadKind[] = [];
  /** By the same index: the call a tool result answers, '' for every other record. */
  readonly answers: string[] = [];
  /** By the same index: a tool result's content when it is an error, else undefined. */
  readonly errors: (string | undefined)[] = [];
  /** Each tool call of every assistant record, in journal order: its record's seq, then (same index) its id and name. */
  readonly callSeqs: number[] = [];
  readonly callIds: string[] = [];
  readonly callNames: string[] = [];
  /** The seqs of the results of calls that were never run (call-facts neverRun), which the fold counts as tool calls as the reference does. */
  readonly neverRun = new Set<number>();

  /** The outline of records at hand. */
  static of(records: Iterable<JournalRecord>): RecordOutline {
    const outline = new RecordOutline();
    for (const record of records) outline.add(record);
    return outline;
  }

  /** Adds the next record of the run. */
  add(record: JournalRecord): void {
    const seq = record.seq;
    this.seqs.push(seq);
    if ('tool_result' in record) {
      const { tool_use_id, result } = record.tool_result;
      this.kinds.push('tool_result');
      this.answers.push(tool_use_id);
      this.errors.push(result.is_error === true ? result.content : undefined);
      if (neverRun(withheldKind(result))) this.neverRun.add(seq);
      return;
    }
    this.answers.push('');
    this.errors.push(undefined);
    if ('assistant' in record) {
      this.kinds.push('assistant');
      for (const block of record.assistant.message.content) {
        if (!('tool_use' in block)) continue;
        this.callSeqs.push(seq);
        this.callIds.push(block.tool_use.id);
        this.callNames.push(block.tool_use.name);
      }
    } else {
      this.kinds.push('user' in record ? 'user' : 'terminal' in record ? 'terminal' : 'meta');
    }
  }

  /** How many records it holds. */
  get length(): number {
    return this.seqs.length;
  }

  /** How many assistant records (model calls) there are up to and including seq `seq`. */
  modelCallsThrough(seq: number): number {
    let n = 0;
    for (let i = 0; i < this.seqs.length && this.seqs[i]! <= seq; i++) if (this.kinds[i] === 'assistant') n++;
    return n;
  }
}
