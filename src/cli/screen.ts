/**
 * The bottom of a terminal as a live region, redrawn in place: the block of an
 * answer still being written, the spinner, the chat's input. Text printed for
 * good goes above it, so nothing printed is ever overwritten. The region is
 * kept shorter than the screen (the top of what no longer fits is printed for
 * good), so the cursor can always climb back to its first row to redraw it.
 *
 * Rows are counted the way a terminal fills them: a character that does not
 * fit in what is left of a row starts the next one, and a line exactly as wide
 * as the screen leaves the cursor on its last row until something follows.
 * Everything drawn here is safe text already: sanitized, with our own styling.
 */
import { NARROW_ONLY, graphemes, textWidth } from '../render/text-width.js';

/** Our own styling (SGR sequences): the only escapes a line drawn here holds. */
const SGR = /\u001b\[[0-9;]*m/g;

export interface ScreenStream {
  isTTY?: boolean;
  columns?: number;
  rows?: number;
  write(text: string): unknown;
}

/** The parts of the region, top to bottom. */
export type RegionPart = 'live' | 'status' | 'input';
const ORDER: readonly RegionPart[] = ['live', 'status', 'input'];

/** Where the cursor goes in a part (the input's caret): a line of it, and a column of that line. */
export interface Caret {
  line: number;
  column: number;
}

const ESC = '\u001b[';

/** Where each grapheme of `line` lands: the row and column after it, on a screen `columns` wide. */
function place(line: string, columns: number, upTo = Infinity): { row: number; column: number } {
  const text = line.replace(SGR, '');
  if (NARROW_ONLY.test(text)) {
    // A column a character, each its own grapheme: where the loop below would land, without segmenting (most lines of an answer).
    const count = Math.min(text.length, upTo);
    if (count === 0) return { row: 0, column: 0 };
    const row = Math.floor((count - 1) / columns);
    return { row, column: count - row * columns };
  }
  let row = 0;
  let column = 0;
  let seen = 0;
  for (const { segment } of graphemes(text)) {
    if (seen++ >= upTo) break;
    const width = textWidth(segment);
    if (column + width > columns) {
      row++;
      column = 0;
    }
    column += width;
  }
  return { row, column };
}

/** The rows a line takes (at least one). */
export function rowsOf(line: string, columns: number): number {
  return place(line, columns).row + 1;
}

export class Screen {
  private readonly parts = new Map<RegionPart, { lines: string[]; caret?: Caret }>();
  /** Rows drawn, and the row the cursor was left on, counted from the region's top. */
  private drawn = 0;
  private cursorRow = 0;
  /** Lines of the live part printed for good because the region had no room for them. */
  private livePrinted = 0;
  private cursorHidden = false;

  constructor(
    private readonly tty: ScreenStream,
    /** Hide the cursor while the region has no caret (a spinner, an answer being written). */
    private readonly options: { hideCursor?: boolean } = {},
  ) {}

  /** The terminal's width; a size not known yet (a terminal may say 0 at first) is taken as 80 columns. */
  get columns(): number {
    const columns = this.tty.columns ?? 0;
    return columns >= 10 ? columns : 80;
  }

  /** Rows the region may take: one less than the screen (24 rows when its size is not known yet), so its top stays reachable. */
  private get budget(): number {
    const rows = this.tty.rows ?? 0;
    return (rows >= 4 ? rows : 24) - 1;
  }

  /** Sets (or with no lines, removes) a part, and redraws, unless `redraw` is false (the next print or set draws it). */
  set(part: RegionPart, lines: readonly string[], caret?: Caret, redraw = true): void {
    if (lines.length === 0) this.parts.delete(part);
    else this.parts.set(part, { lines: [...lines], ...(caret !== undefined ? { caret } : {}) });
    const printed = part === 'live' ? this.fitLive() : '';
    if (redraw || printed !== '') this.redraw(printed);
  }

  has(part: RegionPart): boolean {
    return this.parts.has(part);
  }

  /**
   * Prints `text` (whole lines) above the region, through `to` (the stream it
   * belongs on, the same terminal) or the screen's own stream.
   */
  print(text: string, to: ScreenStream = this.tty): void {
    if (text === '') return;
    const out = text.endsWith('\n') ? text : `${text}\n`;
    if (this.drawn === 0 && this.parts.size === 0) {
      to.write(out);
      return;
    }
    const erase = this.erase();
    this.drawn = 0;
    this.cursorRow = 0;
    if (to === this.tty) {
      this.redraw(erase + out);
    } else {
      this.tty.write(erase);
      to.write(out);
      this.redraw();
    }
  }

  /**
   * The live block is finished: `text` (its lines, and what follows) is printed
   * for good, less the lines of it already printed, and the live part is gone.
   */
  settle(text: string, to: ScreenStream = this.tty): void {
    const skip = this.livePrinted;
    this.livePrinted = 0;
    this.parts.delete('live');
    const lines = text.split('\n');
    if (text.endsWith('\n')) lines.pop();
    const rest = lines.slice(skip);
    if (rest.length > 0) this.print(`${rest.join('\n')}\n`, to);
    else this.redraw();
  }

  /** Ctrl-L: the screen cleared, and the region drawn again at its top. */
  refresh(): void {
    this.tty.write(`${ESC}H${ESC}2J`);
    this.drawn = 0;
    this.cursorRow = 0;
    this.redraw();
  }

  /** Removes the whole region from the screen (before something else writes to the terminal). */
  clear(): void {
    this.parts.clear();
    this.livePrinted = 0;
    this.redraw();
  }

  /** Shows the cursor again if the region hid it; for the end of the process. */
  restoreCursor(): void {
    if (this.cursorHidden) this.tty.write(`${ESC}?25h`);
    this.cursorHidden = false;
  }

  /**
   * The top of the live part, printed for good while the region is taller than
   * its budget: the text to write (the region erased, then those lines).
   */
  private fitLive(): string {
    const live = this.parts.get('live');
    if (live === undefined) return '';
    const columns = this.columns;
    const others = ORDER.filter((p) => p !== 'live').reduce((n, p) => n + (this.parts.get(p)?.lines ?? []).reduce((m, l) => m + rowsOf(l, columns), 0), 0);
    const room = Math.max(this.budget - others, 1);
    const shown = live.lines.slice(this.livePrinted);
    let rows = shown.reduce((n, l) => n + rowsOf(l, columns), 0);
    const over: string[] = [];
    while (rows > room && shown.length > 1) {
      const first = shown.shift()!;
      rows -= rowsOf(first, columns);
      over.push(first);
    }
    if (over.length === 0) return '';
    this.livePrinted += over.length;
    const erase = this.erase();
    this.drawn = 0;
    this.cursorRow = 0;
    return `${erase}${over.join('\n')}\n`;
  }

  /** Back to the region's first row, and everything from there down cleared. */
  private erase(): string {
    if (this.drawn <= 1) return `\r${ESC}K`;
    return `${this.cursorRow > 0 ? `${ESC}${this.cursorRow}A` : ''}\r${ESC}J`;
  }

  /** Draws the region, after `before` (printed text), in one write. */
  private redraw(before = ''): void {
    const columns = this.columns;
    const lines: string[] = [];
    let caretAt: { line: number; column: number } | undefined;
    for (const part of ORDER) {
      const p = this.parts.get(part);
      if (p === undefined) continue;
      const shown = part === 'live' ? p.lines.slice(this.livePrinted) : p.lines;
      if (p.caret !== undefined) caretAt = { line: lines.length + p.caret.line, column: p.caret.column };
      lines.push(...shown);
    }
    if (lines.length === 0) {
      if (this.drawn > 0 || before !== '') this.tty.write(before + (this.drawn > 0 ? this.erase() : ''));
      this.drawn = 0;
      this.cursorRow = 0;
      this.setCursorVisible(true);
      return;
    }
    let out = before + this.erase() + lines.join('\n');
    const rows = lines.map((l) => rowsOf(l, columns));
    const total = rows.reduce((a, b) => a + b, 0);
    // Where the last line left the cursor: its last row, past its last character.
    let cursorRow = total - 1;
    if (caretAt !== undefined) {
      const line = lines[caretAt.line] ?? '';
      const at = place(line, columns, caretAt.column);
      const row = rows.slice(0, caretAt.line).reduce((a, b) => a + b, 0) + at.row;
      // A caret right after a character that filled its row sits at the start of the next one.
      const wrapped = at.column >= columns;
      const target = wrapped ? row + 1 : row;
      if (target > cursorRow) out += '\n'.repeat(target - cursorRow);
      else if (target < cursorRow) out += `${ESC}${cursorRow - target}A`;
      out += `\r${wrapped || at.column === 0 ? '' : `${ESC}${at.column}C`}`;
      cursorRow = target;
    }
    this.tty.write(out);
    this.drawn = Math.max(total, cursorRow + 1);
    this.cursorRow = cursorRow;
    this.setCursorVisible(caretAt !== undefined);
  }

  private setCursorVisible(visible: boolean): void {
    if (this.options.hideCursor !== true || visible === !this.cursorHidden) return;
    this.cursorHidden = !visible;
    this.tty.write(`${ESC}?25${visible ? 'h' : 'l'}`);
  }
}
