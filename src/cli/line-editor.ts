/**
 * The chat's input line, as a model without IO: a text that may span lines,
 * a caret that moves by characters as a person sees them (graphemes), the
 * turns typed before (history, each recalled whole), and the view of it all
 * at a prompt. The terminal wiring (chat-terminal.ts) turns keys into these
 * calls and draws the view.
 */
import { sanitizeLine } from '../render/index.js';
import { graphemes } from '../render/text-width.js';

/** Graphemes drawn of a prompt, its styling aside. */
const count = (text: string): number => [...graphemes(text.replace(/\u001b\[[0-9;]*m/g, ''))].length;

/** Where each grapheme of `text` starts, and its end. */
function boundaries(text: string): number[] {
  const at = [...graphemes(text)].map((s) => s.index);
  at.push(text.length);
  return at;
}

/** How a character of the input is drawn: a tab as spaces, a control as its visible symbol. */
function drawn(segment: string): string {
  if (segment === '\t') return '    ';
  return sanitizeLine(segment);
}

export interface EditorView {
  /** The lines to draw, the prompt before the first, the continuation before the others. */
  lines: string[];
  /** The caret: its line, and the graphemes drawn before it on that line (prompt included). */
  caret: { line: number; column: number };
}

export class LineEditor {
  private text = '';
  private caret = 0;
  private readonly history: string[];
  /** The history entry shown, or history.length for the turn being typed. */
  private recalled: number;
  /** The turn being typed, kept while an older one is recalled. */
  private draft = '';

  /** `history`: the turns typed before this editor's, oldest first (an earlier chat's, kept by chat-history.ts). */
  constructor(history: readonly string[] = []) {
    this.history = [...history];
    this.recalled = this.history.length;
  }

  get value(): string {
    return this.text;
  }

  get empty(): boolean {
    return this.text === '';
  }

  /** Whether the caret is at the end of a line whose last character is a backslash (Enter then continues the turn). */
  get continuesLine(): boolean {
    const end = this.lineEnd();
    return this.caret === end && end > this.lineStart() && this.text[end - 1] === '\\';
  }

  insert(text: string): void {
    if (text === '') return;
    this.text = this.text.slice(0, this.caret) + text + this.text.slice(this.caret);
    this.caret += text.length;
  }

  newline(): void {
    this.insert('\n');
  }

  /** Enter after a backslash: the backslash becomes the line break. */
  continueLine(): void {
    this.text = this.text.slice(0, this.caret - 1) + this.text.slice(this.caret);
    this.caret--;
    this.newline();
  }

  backspace(): void {
    const from = this.previous(this.caret);
    this.text = this.text.slice(0, from) + this.text.slice(this.caret);
    this.caret = from;
  }

  deleteForward(): void {
    this.text = this.text.slice(0, this.caret) + this.text.slice(this.next(this.caret));
  }

  left(): void {
    this.caret = this.previous(this.caret);
  }

  right(): void {
    this.caret = this.next(this.caret);
  }

  wordLeft(): void {
    let at = this.caret;
    while (at > 0 && /\s/.test(this.text[at - 1]!)) at = this.previous(at);
    while (at > 0 && !/\s/.test(this.text[at - 1]!)) at = this.previous(at);
    this.caret = at;
  }

  wordRight(): void {
    let at = this.caret;
    while (at < this.text.length && /\s/.test(this.text[at]!)) at = this.next(at);
    while (at < this.text.length && !/\s/.test(this.text[at]!)) at = this.next(at);
    this.caret = at;
  }

  home(): void {
    this.caret = this.lineStart();
  }

  end(): void {
    this.caret = this.lineEnd();
  }

  /** Ctrl-U: the line up to the caret is deleted. */
  killBefore(): void {
    const start = this.lineStart();
    this.text = this.text.slice(0, start) + this.text.slice(this.caret);
    this.caret = start;
  }

  /** Ctrl-K: the line from the caret on is deleted. */
  killAfter(): void {
    this.text = this.text.slice(0, this.caret) + this.text.slice(this.lineEnd());
  }

  /** Ctrl-W: the word before the caret is deleted. */
  killWord(): void {
    const to = this.caret;
    this.wordLeft();
    this.text = this.text.slice(0, this.caret) + this.text.slice(to);
  }

  /** Up: to the line above, or from the first line, the turn typed before this one. */
  up(): void {
    if (this.lineStart() > 0) {
      this.moveLine(-1);
      return;
    }
    if (this.recalled === 0) return;
    if (this.recalled === this.history.length) this.draft = this.text;
    this.show(this.history[--this.recalled]!, 'end');
  }

  /** Down: to the line below, or from the last line, the turn typed after the one shown. */
  down(): void {
    if (this.lineEnd() < this.text.length) {
      this.moveLine(1);
      return;
    }
    if (this.recalled >= this.history.length) return;
    this.recalled++;
    this.show(this.recalled === this.history.length ? this.draft : this.history[this.recalled]!, 'end');
  }

  /** The text typed, kept in the history (a turn repeated is kept once), and an empty line to type the next. */
  submit(): string {
    const text = this.text;
    if (text.trim() !== '' && this.history[this.history.length - 1] !== text) this.history.push(text);
    this.recalled = this.history.length;
    this.draft = '';
    this.show('', 'end');
    return text;
  }

  /** Keeps `turn` in the history as a submitted one is (a turn given on the command line). */
  remember(turn: string): void {
    const typing = this.recalled === this.history.length;
    if (turn.trim() !== '' && this.history[this.history.length - 1] !== turn) this.history.push(turn);
    if (typing) this.recalled = this.history.length;
  }

  clear(): void {
    this.show('', 'end');
    this.recalled = this.history.length;
  }

  /**
   * Ctrl-R: the newest turn of the history before entry `before` that holds
   * `query` (case aside), recalled whole as Up recalls it; its index, or
   * undefined (nothing changed) when none does.
   */
  searchBack(query: string, before = this.history.length): number | undefined {
    const wanted = query.toLowerCase();
    for (let i = Math.min(before, this.history.length) - 1; i >= 0; i--) {
      if (!this.history[i]!.toLowerCase().includes(wanted)) continue;
      if (this.recalled === this.history.length) this.draft = this.text;
      this.recalled = i;
      this.show(this.history[i]!, 'end');
      return i;
    }
    return undefined;
  }

  /** A search given up: the turn that was being typed before it, back. */
  restoreDraft(): void {
    if (this.recalled === this.history.length) return;
    this.recalled = this.history.length;
    this.show(this.draft, 'end');
  }

  /**
   * Tab: completes a `/` command at the start of a one-line input from `names`;
   * returns the candidates when the start is shared by more than one.
   */
  complete(names: readonly string[]): string[] {
    if (!this.text.startsWith('/') || /\s/.test(this.text) || this.caret !== this.text.length) return [];
    const matches = names.filter((n) => n.startsWith(this.text));
    if (matches.length === 0) return [];
    let common = matches[0]!;
    for (const m of matches) while (!m.startsWith(common)) common = common.slice(0, -1);
    if (matches.length === 1) common += ' ';
    this.show(common.length > this.text.length ? common : this.text, 'end');
    return matches.length > 1 ? matches : [];
  }

  /** The input as drawn at `prompt`, the lines after the first at `continuation` (either may be styled). */
  view(prompt: string, continuation: string): EditorView {
    const promptWidth = count(prompt);
    const continuationWidth = count(continuation);
    const lines: string[] = [];
    let caret = { line: 0, column: 0 };
    let start = 0;
    this.text.split('\n').forEach((line, i) => {
      const prefix = i === 0 ? prompt : continuation;
      const prefixWidth = i === 0 ? promptWidth : continuationWidth;
      let out = '';
      let column = prefixWidth;
      let before = column;
      for (const { segment, index } of graphemes(line)) {
        if (start + index === this.caret) before = column;
        const shown = drawn(segment);
        out += shown;
        column += count(shown);
      }
      if (start + line.length === this.caret) before = column;
      if (this.caret >= start && this.caret <= start + line.length) caret = { line: i, column: before };
      lines.push(prefix + out);
      start += line.length + 1;
    });
    return { lines, caret };
  }

  private show(text: string, caret: 'end'): void {
    this.text = text;
    this.caret = caret === 'end' ? text.length : 0;
  }

  private lineStart(at = this.caret): number {
    return this.text.lastIndexOf('\n', at - 1) + 1;
  }

  private lineEnd(at = this.caret): number {
    const end = this.text.indexOf('\n', at);
    return end < 0 ? this.text.length : end;
  }

  /** Moves the caret one line up or down, to the same grapheme column or the line's end. */
  private moveLine(by: -1 | 1): void {
    const start = this.lineStart();
    const column = boundaries(this.text.slice(start, this.caret)).length - 1;
    const target = by < 0 ? this.lineStart(start - 1) : this.lineEnd() + 1;
    const line = this.text.slice(target, this.lineEnd(target));
    const at = boundaries(line);
    this.caret = target + at[Math.min(column, at.length - 1)]!;
  }

  private previous(at: number): number {
    if (at <= 0) return 0;
    const b = boundaries(this.text);
    for (let i = b.length - 1; i >= 0; i--) if (b[i]! < at) return b[i]!;
    return 0;
  }

  private next(at: number): number {
    if (at >= this.text.length) return this.text.length;
    for (const b of boundaries(this.text)) if (b > at) return b;
    return this.text.length;
  }
}

/** How `text` is drawn at a prompt (a turn, once it is sent, stays on the screen so). */
export function turnLines(text: string, prompt: string, continuation: string): string[] {
  const editor = new LineEditor();
  editor.insert(text);
  return editor.view(prompt, continuation).lines;
}
