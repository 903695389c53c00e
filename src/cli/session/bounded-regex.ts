/**
 * A person's --regex, matched in a worker thread. A pattern can take time
 * exponential in the text it scans (`(A+)+B` over a line of ten million A's
 * backtracks for longer than anyone waits), and a match in the command's own
 * thread would block it: no stop signal would be handled until it ended. Here
 * the command's thread only waits, so a stop signal ends the worker at once
 * (`interrupted`), and so does a record the pattern has spent longer than the
 * deadline on (`regex_limit`, naming the record).
 *
 * Records go to the worker in batches, answered in order, so the thread hop is
 * paid once per batch; the worker counts the records it has finished in shared
 * memory, which is how the deadline applies to each record, not to a batch.
 */
import { Worker } from 'node:worker_threads';
import { LogbookError, PATTERN_FLAGS, checkPattern, type TextMatch } from '../../core/index.js';

/** The worker: the pattern and flags of core's patternMatcher; per batch, the first match in each text of each record. */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const re = new RegExp(workerData.pattern, workerData.flags);
const finished = new Int32Array(workerData.finished);
parentPort.on('message', (records) => {
  parentPort.postMessage(records.map((texts) => {
    const found = texts.map((text) => {
      const m = re.exec(text);
      return m === null ? null : [m.index, m[0].length];
    });
    Atomics.add(finished, 0, 1);
    return found;
  }));
});
`;

/** One record to match: its texts, and what names it in a message ("seq 5 of run X"). */
export interface RecordTexts {
  texts: string[];
  label: string;
}

interface Batch {
  records: RecordTexts[];
  resolve(found: (TextMatch | null)[][]): void;
  reject(err: Error): void;
}

export interface BoundedRegexOptions {
  /** How long the pattern may spend on one record. */
  deadlineMs: number;
  /** The option that sets the deadline, for the message that says it passed. */
  deadlineOption: string;
  /** Stops the matching: what is waited for rejects with `interrupted`. */
  signal: AbortSignal;
}

export class BoundedRegex {
  private readonly worker: Worker;
  /** Records the worker has finished, counted by the worker itself. */
  private readonly finished = new Int32Array(new SharedArrayBuffer(4));
  private readonly batches: Batch[] = [];
  /** Records sent so far. */
  private sent = 0;
  private watch: NodeJS.Timeout | undefined;
  /** The record the worker is on, and since when. */
  private current = { record: 0, since: 0 };
  private failure: Error | null = null;
  private readonly onAbort = (): void => this.fail(new LogbookError('interrupted', 'the search was stopped'));

  /** `pattern` is checked first (checkPattern: `usage` for one that is too long or not a pattern). */
  constructor(
    readonly pattern: string,
    private readonly options: BoundedRegexOptions,
  ) {
    checkPattern(pattern);
    this.worker = new Worker(WORKER, { eval: true, workerData: { pattern, flags: PATTERN_FLAGS, finished: this.finished.buffer } });
    this.worker.unref(); // an idle worker never keeps the command alive
    this.worker.on('message', (found: ([number, number] | null)[][]) => this.answered(found));
    this.worker.on('error', (err) => {
      this.fail(new LogbookError('regex_limit', `--regex could not be matched over ${this.recordAt(this.done())}: ${err.message}`, { cause: err }));
    });
    options.signal.addEventListener('abort', this.onAbort, { once: true });
    if (options.signal.aborted) this.onAbort();
  }

  /** The first match of the pattern in each text of each record, in order. */
  find(records: RecordTexts[]): Promise<(TextMatch | null)[][]> {
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      if (this.batches.length === 0) this.current = { record: this.done(), since: Date.now() };
      this.batches.push({ records, resolve, reject });
      this.sent += records.length;
      this.worker.postMessage(records.map((r) => r.texts));
      this.worker.ref(); // waited for: the command lives until it is answered
      this.watch ??= setInterval(() => this.check(), Math.max(10, Math.min(250, this.options.deadlineMs / 4)));
    });
  }

  /** Ends the worker; anything still waited for rejects. */
  async close(): Promise<void> {
    this.options.signal.removeEventListener('abort', this.onAbort);
    this.stopWatching();
    await this.worker.terminate();
  }

  private done(): number {
    return Atomics.load(this.finished, 0);
  }

  /** The label of the record with index `n` among those sent, while its batch is waited for. */
  private recordAt(n: number): string {
    let first = this.sent - this.batches.reduce((sum, b) => sum + b.records.length, 0);
    for (const batch of this.batches) {
      if (n < first + batch.records.length) return batch.records[n - first]!.label;
      first += batch.records.length;
    }
    return 'a record';
  }

  private answered(found: ([number, number] | null)[][]): void {
    const batch = this.batches.shift();
    if (this.batches.length === 0) {
      this.stopWatching();
      this.worker.unref();
    }
    batch?.resolve(found.map((texts) => texts.map((m) => (m === null ? null : { index: m[0], length: m[1] }))));
  }

  /** The deadline: the record the worker is on has not changed for longer than it allows. */
  private check(): void {
    const record = this.done();
    const now = Date.now();
    if (record !== this.current.record) this.current = { record, since: now };
    else if (now - this.current.since > this.options.deadlineMs) this.timedOut(this.recordAt(record));
  }

  private timedOut(label: string): void {
    const seconds = this.options.deadlineMs / 1000;
    this.fail(
      new LogbookError(
        'regex_limit',
        `--regex took longer than ${seconds}s over ${label}, and the search was stopped: a pattern with nested repeats such as (a+)+ ` +
          `can take time exponential in the text it scans; simplify it, or allow it longer with ${this.options.deadlineOption}`,
      ),
    );
  }

  private stopWatching(): void {
    clearInterval(this.watch);
    this.watch = undefined;
  }

  private fail(err: Error): void {
    if (this.failure !== null) return;
    this.failure = err;
    this.stopWatching();
    void this.worker.terminate();
    for (const batch of this.batches.splice(0)) batch.reject(err);
  }
}
