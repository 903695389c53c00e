/**
 * A model's words as they stream, shown where they belong: on a terminal as
 * rendered Markdown (or, plain, as written), redrawn in place while the block
 * they are in is open and printed for good once it is finished; through a pipe
 * as the text itself, each piece as it arrives. What is shown is sanitized by
 * a StreamSanitizer, so it is exactly the sanitized text however the stream
 * was cut. When the call ends, what was shown is checked against the text its
 * journaled message holds, and the rest of that text is shown: the record is
 * the answer, the stream only its early part.
 *
 * A call made again (a retry after a dropped or stalled stream) streams another
 * answer, and what reached a stream without a screen cannot be taken back. So
 * without a screen the text is delivered as StreamTarget.delivery says: to a
 * file, each call's text once the call is complete (the file receives the
 * journaled text alone); elsewhere as it arrives, a retried call's text only
 * from where it passes what was written (a retry that repeats the start adds
 * just the rest), and when it says something else, the start already written
 * is ended with a line break and the whole answer follows it (`rewritten`).
 */
import { StreamSanitizer } from '../render/index.js';
import { wrapText } from '../render/text-width.js';
import type { MarkdownStream, MarkdownTheme } from '../render/markdown.js';
import { rowsOf, type Screen, type ScreenStream } from './screen.js';

export interface StreamTarget {
  /** Where the text goes (stdout for an answer, stderr for thinking). */
  out: ScreenStream;
  /** The screen of the terminal `out` is on; without one the text is written as it comes. */
  screen?: Screen | undefined;
  /**
   * On a screen: Markdown is rendered with this theme and stream (the renderer,
   * loaded only for a terminal that shows it); without it the text is shown as written.
   */
  markdown?: { theme: MarkdownTheme; Stream: typeof MarkdownStream } | undefined;
  /** Applied to each line shown (thinking is faint). */
  paint?: ((line: string) => string) | undefined;
  /** On a screen, text shown as written is wrapped at words to its width (thinking; an answer is shown as the model wrote it). */
  wrap?: boolean;
  /** How often, at most, the open block is redrawn, in ms (REDRAW_MS). */
  redrawMs?: number;
  /**
   * Without a screen: `stream` (the default: a pipe, a terminal), the text as it
   * arrives; `whole` (a file), each call's text once the call is complete.
   */
  delivery?: 'stream' | 'whole';
}

/**
 * The open block is redrawn at most once a frame of a 60 Hz screen: words that
 * come after a pause are drawn at once (the deltas of one read together), and
 * those that follow within the frame are drawn when it has passed, so a word is
 * never held longer than a frame and a fast stream is not redrawn per delta.
 */
const REDRAW_MS = 16;

/** Text of the kinds an answer holds (wide characters, an emoji, emphasis, a list, code), rendered once to make ready the code that shows them. */
const WARM_UP = 'A **first** _answer_ with `code`, 漢字 and 🙂.\n\n- one\n- two\n\n```\nx\n```\n';

/** A one-line note said in the flow of the text (a stopped answer, a retry), on the same stream. */
export type Note = (text: string) => void;

/** The streamed text of one model call after another. */
export class StreamedText {
  private raw = '';
  /**
   * Streamed without a screen, while a retried call has not yet passed it: the
   * text its earlier attempts wrote (what the sanitizer has taken in), which
   * this attempt's text is matched against before any of it is written.
   */
  private prior: string | null = null;
  private wasRewritten = false;
  private sanitizer = new StreamSanitizer();
  private markdown: MarkdownStream | undefined;
  /** Sanitized text not yet shown: the open line of plain text on a screen. */
  private open = '';
  /** Cancels the redraw to come, when one is due. */
  private pendingRedraw: (() => void) | null = null;
  /** When the open block was last drawn (performance.now()). */
  private drawnAt = -Infinity;
  private shown = false;
  private prepared = false;

  constructor(
    private readonly target: StreamTarget,
    /** Told when a retried call's text disagreed with what a stream without a screen had already been given. */
    private readonly onRewrite?: () => void,
  ) {}

  /**
   * Makes ready what the first words will need (the Markdown parser, which is
   * built on first use, and the code that measures and wraps a line), while
   * the model is being waited for: so the first words of an answer are not
   * held behind that set-up. Nothing is shown. Once per StreamedText.
   */
  prepare(): void {
    if (this.prepared) return;
    this.prepared = true;
    const { screen, markdown } = this.target;
    if (screen === undefined) return;
    let lines: string[];
    if (markdown !== undefined) {
      const sample = new markdown.Stream({ width: screen.columns - 1, theme: markdown.theme });
      sample.append(WARM_UP);
      lines = [...sample.update().current, ...sample.end().split('\n')];
    } else {
      lines = this.fit(WARM_UP).split('\n');
    }
    for (const line of lines) rowsOf(this.paint(line), screen.columns);
  }

  /** Whether this call has streamed anything yet. */
  get started(): boolean {
    return this.raw !== '';
  }

  /** Whether, once, a retried call's text disagreed with what a stream without a screen had been given (see the module's comment). */
  get rewritten(): boolean {
    return this.wasRewritten;
  }

  private get whole(): boolean {
    return this.target.screen === undefined && this.target.delivery === 'whole';
  }

  add(delta: string): void {
    if (delta === '') return;
    this.raw += delta;
    if (this.whole) return;
    if (this.prior === null) {
      this.show(this.sanitizer.push(delta));
      return;
    }
    if (this.prior.startsWith(this.raw)) return; // what was written already says it
    if (this.raw.startsWith(this.prior)) {
      const rest = this.raw.slice(this.prior.length);
      this.prior = null;
      this.show(this.sanitizer.push(rest));
      return;
    }
    this.rewrite();
  }

  /**
   * The attempt in flight failed and the call is made again: what it streamed is
   * void. On a screen it stays shown (true when there was any: the caller says
   * the stream broke off); a file was given none of it; a stream's next attempt
   * is matched against what it was given.
   */
  restart(): boolean {
    if (this.target.screen !== undefined) {
      const shown = this.shown;
      this.finish();
      return shown;
    }
    if (!this.whole && this.prior === null) this.prior = this.raw;
    this.raw = '';
    if (this.whole) this.sanitizer = new StreamSanitizer();
    return false;
  }

  /** A retried call's text says something other than what was written: that is ended, and the text follows whole. */
  private rewrite(): void {
    this.prior = null;
    this.wasRewritten = true;
    this.onRewrite?.();
    if (this.shown) this.target.out.write('\n');
    this.sanitizer = new StreamSanitizer();
    this.show(this.sanitizer.push(this.raw));
  }

  /**
   * The call ended, and its message holds `text`: shows what the stream had not,
   * and ends the text with a line break. False when the stream had shown
   * something else (it is left as shown: the caller says so and shows `text`).
   */
  end(text: string): boolean {
    if (this.whole) {
      this.raw = '';
      this.show(this.sanitizer.push(text)); // nothing was written before: the text is the record's, whatever streamed
      this.finish();
      return true;
    }
    const agrees = text.startsWith(this.raw);
    if (agrees) this.add(text.slice(this.raw.length));
    if (this.prior !== null && this.prior !== this.raw) {
      this.rewrite(); // the answer is shorter than what an earlier attempt wrote
    }
    this.finish();
    return agrees;
  }

  /** Ends the text where the stream left it (a stopped or failed call): what was shown stays; a file is given none of it. */
  cut(): void {
    if (this.whole) this.raw = '';
    this.finish();
  }

  /**
   * Draws at once what waits for its frame: nothing more is coming to draw it
   * with (the stream ended; what follows, the journal's write, is no reason to hold it).
   */
  flush(): void {
    if (this.pendingRedraw !== null) this.redraw();
  }

  /** Whether anything was shown since the last reset. */
  get showedAny(): boolean {
    return this.shown;
  }

  private show(safe: string): void {
    if (safe === '') return;
    this.shown = true;
    const { screen, out } = this.target;
    if (screen === undefined) {
      out.write(this.paintLines(safe));
      return;
    }
    if (this.target.markdown !== undefined) {
      this.markdown ??= new this.target.markdown.Stream({ width: screen.columns - 1, theme: this.target.markdown.theme });
      this.markdown.append(safe);
    } else {
      this.open += safe;
    }
    if (this.pendingRedraw === null) this.scheduleRedraw();
  }

  /** A redraw at the end of this turn of the event loop, or once a frame has passed since the last. */
  private scheduleRedraw(): void {
    const wait = this.drawnAt + (this.target.redrawMs ?? REDRAW_MS) - performance.now();
    if (wait <= 0) {
      const immediate = setImmediate(() => this.redraw());
      this.pendingRedraw = () => clearImmediate(immediate);
    } else {
      const timeout = setTimeout(() => this.redraw(), wait);
      this.pendingRedraw = () => clearTimeout(timeout);
    }
  }

  private redraw(): void {
    this.cancelRedraw();
    this.drawnAt = performance.now();
    const { screen, out } = this.target;
    if (screen === undefined) return;
    if (this.markdown !== undefined) {
      const { finished, current } = this.markdown.update();
      if (finished !== '') screen.settle(this.paintLines(finished), out);
      screen.set('live', current.map((l) => this.paint(l)));
      return;
    }
    const cut = this.open.lastIndexOf('\n');
    if (cut >= 0) {
      screen.settle(this.paintLines(this.fit(this.open.slice(0, cut + 1))), out);
      this.open = this.open.slice(cut + 1);
    }
    screen.set('live', this.open === '' ? [] : this.fit(this.open).split('\n').map((l) => this.paint(l)));
  }

  /** The text as it is shown: wrapped at words to the screen when asked to be. */
  private fit(text: string): string {
    const { screen } = this.target;
    if (this.target.wrap !== true || screen === undefined) return text;
    return wrapText(text, screen.columns - 1, { hard: true, trim: false });
  }

  private finish(): void {
    this.show(this.sanitizer.end());
    this.cancelRedraw();
    const { screen, out } = this.target;
    if (this.shown) {
      if (screen === undefined) {
        out.write('\n');
      } else if (this.markdown !== undefined) {
        this.redraw();
        screen.settle(this.paintLines(this.markdown.end()), out);
      } else {
        screen.settle(this.paintLines(`${this.fit(this.open)}\n`), out);
      }
    }
    this.raw = '';
    this.prior = null;
    this.open = '';
    this.markdown = undefined;
    this.sanitizer = new StreamSanitizer();
    this.shown = false;
  }

  private paint(line: string): string {
    return this.target.paint === undefined || line === '' ? line : this.target.paint(line);
  }

  private paintLines(text: string): string {
    return this.target.paint === undefined ? text : text.split('\n').map((l) => this.paint(l)).join('\n');
  }

  private cancelRedraw(): void {
    this.pendingRedraw?.();
    this.pendingRedraw = null;
  }
}
