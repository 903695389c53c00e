/**
 * Live text: what a model call of a run streams, shown to watchers (`session
 * watch`, the web view) as it arrives, before its record exists. It is never
 * journaled and never durable: a snapshot of the answer so far, replaced by
 * the assistant record once that is journaled (the record's seq is past
 * `after`), and cleared when the call ends either way. A watcher that joins
 * mid-answer gets the whole snapshot, so it shows the answer from its start.
 */

/** The answer so far of the model call in flight. */
export interface LiveText {
  /** The seq of the run's last durable record when the call began: a record past it replaces this text. */
  after: number;
  /** The call's iteration. */
  iteration: number;
  /** The answer's text so far (its text blocks joined by newlines), and its thinking, when the writer streams it. */
  text: string;
  thinking: string;
}

export function encodeLiveText(live: LiveText): string {
  return JSON.stringify({ after: live.after, iteration: live.iteration, text: live.text, thinking: live.thinking });
}

/** A live-text body read; null for none, or one that cannot be read (it shows nothing). */
export function parseLiveText(body: string | null): LiveText | null {
  if (body === null || body === '') return null;
  try {
    const o = JSON.parse(body) as Record<string, unknown>;
    if (typeof o.after !== 'number' || typeof o.iteration !== 'number' || typeof o.text !== 'string') return null;
    return { after: o.after, iteration: o.iteration, text: o.text, thinking: typeof o.thinking === 'string' ? o.thinking : '' };
  } catch {
    return null;
  }
}

/** How often a writer shows watchers what streamed at most, and again while nothing changes (for a watcher that joins). */
export const LIVE_INTERVAL_MS = 100;
const LIVE_REPEAT_MS = 1000;

/**
 * A writer's side of a run's live text: what one model call streams, shown
 * at most every LIVE_INTERVAL_MS, and shown again every second while nothing
 * changes, for a watcher that joins. Best effort: a failure to show it is
 * dropped, it costs the run nothing.
 */
export class LiveTextWriter {
  private live: LiveText | null = null;
  private timer: NodeJS.Timeout | null = null;
  private repeat: NodeJS.Timeout | null = null;
  private sending: Promise<void> = Promise.resolve();
  /** Some text was shown: the end has it cleared. */
  private shown = false;

  constructor(private readonly put: (body: string | null) => Promise<void>) {}

  /** A model call begins, after the record at seq `after`. */
  begin(after: number, iteration: number): void {
    this.live = { after, iteration, text: '', thinking: '' };
    this.repeat = setInterval(() => this.show(), LIVE_REPEAT_MS);
    this.repeat.unref();
  }

  /** A piece of the answer's text, as it streams. */
  text(delta: string): void {
    if (this.live === null) return;
    this.live.text += delta;
    this.soon();
  }

  /** A piece of its thinking, as it streams. */
  thinking(delta: string): void {
    if (this.live === null) return;
    this.live.thinking += delta;
    this.soon();
  }

  /** The call is made again (a retry): what streamed of it is void. */
  restart(): void {
    if (this.live === null) return;
    this.live.text = '';
    this.live.thinking = '';
    this.soon();
  }

  /**
   * The call ended (its record journaled, or none will be): the live text it
   * showed is cleared. A call that ended before any was shown (an answer that
   * came whole within LIVE_INTERVAL_MS) has nothing to clear, and its run goes
   * on without waiting for the store.
   */
  async end(): Promise<void> {
    if (this.live === null) return;
    this.live = null;
    if (this.timer !== null) clearTimeout(this.timer);
    if (this.repeat !== null) clearInterval(this.repeat);
    this.timer = this.repeat = null;
    if (this.shown) this.send(null);
    await this.sending;
  }

  private soon(): void {
    if (this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.show();
    }, LIVE_INTERVAL_MS);
    this.timer.unref();
  }

  private show(): void {
    if (this.live === null) return;
    this.shown = true;
    this.send(encodeLiveText(this.live));
  }

  /** In order, one at a time: a clear is never overtaken by an older snapshot. */
  private send(body: string | null): void {
    this.sending = this.sending.then(() => this.put(body)).catch(() => {});
  }
}
