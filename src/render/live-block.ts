/**
 * A watcher's view of the live text (store/live-text.ts) on a terminal: the
 * answer so far, drawn faint under a line that says it is not yet journaled,
 * below what the records showed. It is erased and drawn again at each change,
 * and erased for good when the record that replaces it arrives (a record past
 * the seq it followed) or its writer clears it: what stays on the screen is
 * the records' rendering alone.
 */
import stringWidth from 'string-width';
import { sanitize } from './sanitize.js';
import type { Style } from './style.js';

/** What the block shows of a live text (store/live-text.ts LiveText): the seq it followed, the answer so far and its thinking. */
export interface LiveText {
  after: number;
  text: string;
  thinking: string;
}

/** What the first line of the block says. */
export const LIVE_MARK = '\u2026 streaming, not yet journaled';

export interface LiveBlockOptions {
  style: Style;
  /** The terminal's width and height, in cells. */
  columns: number;
  rows: number;
  /** Show the thinking streamed too. */
  thinking?: boolean;
}

export class LiveBlock {
  private live: LiveText | null = null;
  /** The last record's seq shown. */
  private seq = 0;
  /** The rows the block takes on the screen now. */
  private drawn = 0;

  constructor(private readonly options: LiveBlockOptions) {}

  /** The text that erases the block before a record's rendering is written, the record's seq noted (a live text it replaces is dropped). */
  beforeRecord(seq: number): string {
    this.seq = seq;
    if (this.live !== null && this.live.after < seq) this.live = null;
    return this.erase();
  }

  /** The text that draws the block again after a record's rendering. */
  afterRecord(): string {
    return this.draw();
  }

  /** The text that shows a new snapshot (null: cleared). A snapshot of a turn already journaled shows nothing. */
  update(live: LiveText | null): string {
    this.live = live !== null && live.after >= this.seq ? live : null;
    return this.erase() + this.draw();
  }

  /** The text that erases the block (for good, at the end of a watch). */
  erase(): string {
    if (this.drawn === 0) return '';
    const up = this.drawn;
    this.drawn = 0;
    return `\u001b[${up}A\r\u001b[J`;
  }

  private draw(): string {
    const live = this.live;
    if (live === null) return '';
    const shown = [live.thinking !== '' && this.options.thinking === true ? live.thinking : '', live.text].filter((t) => t !== '').join('\n');
    if (shown === '') return '';
    const { columns, style } = this.options;
    const rowsOf = (line: string): number => Math.max(1, Math.ceil(stringWidth(line) / Math.max(1, columns)));
    // What fits: the block must stay on the screen to be erased, so a long answer shows its last lines.
    const room = Math.max(1, this.options.rows - 3);
    const lines = sanitize(shown).split('\n');
    const kept: string[] = [];
    let rows = 0;
    for (let i = lines.length - 1; i >= 0; i--) {
      const r = rowsOf(lines[i]!);
      if (rows + r > room) break;
      kept.unshift(lines[i]!);
      rows += r;
    }
    this.drawn = rows + rowsOf(LIVE_MARK);
    return `${style.faint(LIVE_MARK)}\n${kept.map((l) => `${style.faint(l)}\n`).join('')}`;
  }
}
