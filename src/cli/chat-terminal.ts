/**
 * A chat's input on a terminal: stdin in raw mode, its keys read by Node's
 * keypress parser, the turn edited in a LineEditor drawn as the input part of
 * the Screen's region. A turn may span lines: a bracketed paste is one turn
 * whatever it holds (and so is a paste on a terminal without bracketed paste:
 * a line break followed at once by more input is part of the text, since no
 * one types that fast), Ctrl-J and Alt-Enter insert a line break, and so does
 * Enter after a backslash.
 *
 * Ctrl-C keeps its meaning everywhere (the run is suspended, exit 130), but
 * while the model answers, when Esc or the first Ctrl-C stops that answer, and
 * at a prompt holding text, which it clears. Keys typed while the model or a
 * tool works are kept, and shown at the next prompt.
 */
import { emitKeypressEvents, type Key } from 'node:readline';
import type { AnswerControl } from '../agent/runner.js';
import { LineEditor, turnLines } from './line-editor.js';
import type { Screen } from './screen.js';
import { hangUp, watchTerminalInput } from './stdio.js';

/** Two Ctrl-C within this long suspend the chat, whatever the first did. */
export const DOUBLE_PRESS_MS = 1000;

const BRACKETED_PASTE_ON = '\u001b[?2004h';
const BRACKETED_PASTE_OFF = '\u001b[?2004l';

export interface TerminalInputOptions {
  input: NodeJS.ReadStream;
  /** The stream the screen draws on (for bracketed paste mode and its size). */
  output: NodeJS.WriteStream;
  screen: Screen;
  prompt: string;
  /** Drawn before the second and later lines of a turn. */
  continuation: string;
  /** The names Tab completes a `/` at the start of a turn from. */
  commands: readonly string[];
}

type Phase = 'idle' | 'prompt' | 'question' | 'answering';

/** The terminal's lines, one turn (or one answer to a question) at a time. */
export class TerminalInput {
  private readonly editor = new LineEditor();
  private phase: Phase = 'idle';
  /** Turns sent with Enter while no prompt was shown, in order. */
  private readonly typedAhead: string[] = [];
  /** The reader waiting at the prompt or the question. */
  private waiting: ((line: string | null) => void) | null = null;
  private question: { prompt: string; editor: LineEditor } | null = null;
  /** A paste being read: its text so far. */
  private pasting: string | null = null;
  /** An Enter not yet acted on: it is a line break if more input follows at once. */
  private pendingEnter: NodeJS.Immediate | null = null;
  private answer: AbortController | null = null;
  private lastCtrlC = 0;
  private lastEscape = 0;
  private ended = false;
  private closed = false;
  private readonly onKey = (text: string | undefined, key: Key | undefined): void => this.key(text, key);
  private readonly onResize = (): void => this.render();
  private readonly onEnd = (): void => this.end();
  private readonly restore = (): void => this.close();

  constructor(private readonly o: TerminalInputOptions) {
    emitKeypressEvents(o.input);
    // A terminal that hangs up is a SIGHUP (exit 130), heard before its end of input would end the chat.
    watchTerminalInput(o.input, 'end');
    if (!setRaw(o.input, true)) hangUp();
    o.input.on('keypress', this.onKey);
    o.input.on('end', this.onEnd);
    o.input.resume();
    o.output.write(BRACKETED_PASTE_ON);
    o.output.on('resize', this.onResize);
    process.on('exit', this.restore);
  }

  /** The next turn typed at the prompt; null at end of input (Ctrl-D at an empty prompt). */
  read(): Promise<string | null> {
    const ahead = this.typedAhead.shift();
    if (ahead !== undefined) {
      this.o.screen.print(this.sent(ahead));
      return Promise.resolve(ahead);
    }
    if (this.ended) return Promise.resolve(null);
    this.phase = 'prompt';
    this.render();
    return new Promise((resolve) => (this.waiting = resolve));
  }

  /** A line typed at its own prompt (a question the run asks); null at end of input or once `signal` aborts. */
  ask(prompt: string, signal: AbortSignal): Promise<string | null> {
    if (this.ended || signal.aborted) return Promise.resolve(null);
    const before = this.phase;
    this.phase = 'question';
    this.question = { prompt, editor: new LineEditor() };
    this.render();
    return new Promise((resolve) => {
      const onAbort = (): void => answer(null);
      const answer = (line: string | null): void => {
        signal.removeEventListener('abort', onAbort);
        this.question = null;
        this.waiting = null;
        this.phase = before;
        this.render();
        resolve(line);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting = answer;
    });
  }

  /** A model call begins: Esc or the first Ctrl-C aborts its signal. */
  answering(): AnswerControl {
    const controller = new AbortController();
    this.answer = controller;
    this.phase = 'answering';
    this.render();
    return {
      signal: controller.signal,
      done: () => {
        if (this.answer === controller) this.answer = null;
        if (this.phase === 'answering') this.phase = 'idle';
      },
    };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    process.off('exit', this.restore);
    this.o.input.off('keypress', this.onKey);
    this.o.input.off('end', this.onEnd);
    this.o.output.off('resize', this.onResize);
    if (this.pendingEnter !== null) clearImmediate(this.pendingEnter);
    this.o.screen.set('input', []);
    try {
      this.o.output.write(BRACKETED_PASTE_OFF);
    } catch {
      /* the terminal is gone */
    }
    setRaw(this.o.input, false);
    this.o.input.pause();
    this.end();
  }

  private end(): void {
    this.ended = true;
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.(null);
  }

  private get active(): LineEditor {
    return this.question?.editor ?? this.editor;
  }

  private render(): void {
    if (this.closed) return;
    if (this.phase === 'question' && this.question !== null) {
      const view = this.question.editor.view(this.question.prompt, '  ');
      this.o.screen.set('input', view.lines, view.caret);
    } else if (this.phase === 'prompt') {
      const view = this.editor.view(this.o.prompt, this.o.continuation);
      const shown = window(view.lines, view.caret.line, Math.max((this.o.output.rows ?? 24) - 3, 3));
      // A blank line sets the prompt off from the answer above it.
      this.o.screen.set('input', ['', ...shown.lines], { line: view.caret.line - shown.first + 1, column: view.caret.column });
    } else {
      this.o.screen.set('input', []);
    }
  }

  private key(text: string | undefined, key: Key | undefined): void {
    const name = key?.name;
    if (name === 'paste-start') {
      this.pasting = '';
      return;
    }
    if (name === 'paste-end') {
      const pasted = (this.pasting ?? '').replace(/\r\n?/g, '\n');
      this.pasting = null;
      this.active.insert(this.question !== null ? pasted.replace(/\n/g, ' ') : pasted);
      this.render();
      return;
    }
    if (this.pasting !== null) {
      this.pasting += name === 'return' || name === 'enter' ? '\n' : (text ?? '');
      return;
    }
    if (this.pendingEnter !== null) {
      // More input in the same read as an Enter: a paste the terminal did not bracket.
      clearImmediate(this.pendingEnter);
      this.pendingEnter = null;
      this.active.newline();
    }
    if (key?.ctrl === true && name === 'c') return this.ctrlC();
    if (name === 'escape') {
      if (this.phase === 'answering') this.stopAnswer();
      // Two quick presses may reach us as one key (ESC ESC: a meta Esc).
      else if (this.phase === 'prompt' && this.editor.empty) this.escapeAtPrompt(key?.meta === true);
      return;
    }
    this.edit(text, key);
    this.render();
  }

  private ctrlC(): void {
    const now = Date.now();
    const again = now - this.lastCtrlC < DOUBLE_PRESS_MS;
    this.lastCtrlC = now;
    if (!again && this.phase === 'answering' && this.answer !== null && !this.answer.signal.aborted) {
      this.stopAnswer();
      return;
    }
    if (!again && this.phase === 'prompt' && !this.editor.empty) {
      this.editor.clear();
      this.render();
      return;
    }
    // As Ctrl-C does everywhere else: the run is suspended (a second signal leaves at once).
    process.kill(process.pid, 'SIGINT');
  }

  private stopAnswer(): void {
    this.answer?.abort();
  }

  /** Esc twice at an empty prompt: the turns typed so far, as /rewind lists them. */
  private escapeAtPrompt(twice: boolean): void {
    const now = Date.now();
    const again = twice || now - this.lastEscape < DOUBLE_PRESS_MS;
    this.lastEscape = again ? 0 : now;
    if (!again || this.waiting === null) return;
    const waiting = this.waiting;
    this.waiting = null;
    this.phase = 'idle';
    this.o.screen.set('input', [], undefined, false);
    waiting('/rewind');
  }

  /** Puts `text` at the prompt, to change and send. */
  prefill(text: string): void {
    this.editor.clear();
    this.editor.insert(text);
    this.render();
  }

  private edit(text: string | undefined, key: Key | undefined): void {
    const editor = this.active;
    const name = key?.name;
    const ctrl = key?.ctrl === true;
    const meta = key?.meta === true;
    if (name === 'return' && meta) return editor.newline();
    if (name === 'enter') return this.question !== null ? this.submit() : editor.newline(); // Ctrl-J
    if (name === 'return') {
      if (this.question === null && editor.continuesLine) return editor.continueLine();
      this.pendingEnter = setImmediate(() => {
        this.pendingEnter = null;
        this.submit();
      });
      return;
    }
    if (ctrl && name === 'd') {
      if (!editor.empty) return editor.deleteForward();
      if (this.phase === 'prompt' || this.phase === 'question') this.end();
      return;
    }
    if (name === 'tab' && this.question === null) {
      const candidates = editor.complete(this.o.commands);
      if (candidates.length > 0) this.o.screen.print(candidates.join('  '));
      return;
    }
    const action = ctrl ? CTRL_KEYS[name ?? ''] : meta ? META_KEYS[name ?? ''] : KEYS[name ?? ''];
    if (action !== undefined) return action(editor);
    if (!ctrl && !meta && text !== undefined && text !== '' && !/[\u0000-\u001f\u007f]/.test(text)) editor.insert(text);
  }

  /** A turn as it stays on the screen once sent: as it was at the prompt, set off by blank lines. */
  private sent(turn: string): string {
    return ['', ...turnLines(turn, this.o.prompt, this.o.continuation), '', ''].join('\n');
  }

  private submit(): void {
    this.render();
    if (this.question !== null) {
      const { prompt, editor } = this.question;
      const line = editor.submit();
      this.o.screen.set('input', []);
      this.o.screen.print(turnLines(line, prompt, '  ').join('\n'));
      this.waiting?.(line);
      return;
    }
    const turn = this.editor.submit();
    if (this.phase !== 'prompt' || this.waiting === null) {
      if (turn.trim() !== '') this.typedAhead.push(turn);
      return;
    }
    const waiting = this.waiting;
    this.waiting = null;
    this.phase = 'idle';
    this.o.screen.set('input', [], undefined, false);
    this.o.screen.print(this.sent(turn));
    waiting(turn);
  }
}

type Action = (editor: LineEditor) => void;

const KEYS: Record<string, Action> = {
  backspace: (e) => e.backspace(),
  delete: (e) => e.deleteForward(),
  left: (e) => e.left(),
  right: (e) => e.right(),
  up: (e) => e.up(),
  down: (e) => e.down(),
  home: (e) => e.home(),
  end: (e) => e.end(),
};

const CTRL_KEYS: Record<string, Action> = {
  a: (e) => e.home(),
  e: (e) => e.end(),
  b: (e) => e.left(),
  f: (e) => e.right(),
  h: (e) => e.backspace(),
  p: (e) => e.up(),
  n: (e) => e.down(),
  u: (e) => e.killBefore(),
  k: (e) => e.killAfter(),
  w: (e) => e.killWord(),
  left: (e) => e.wordLeft(),
  right: (e) => e.wordRight(),
};

const META_KEYS: Record<string, Action> = {
  b: (e) => e.wordLeft(),
  f: (e) => e.wordRight(),
  left: (e) => e.wordLeft(),
  right: (e) => e.wordRight(),
  backspace: (e) => e.killWord(),
};

/** At most `max` of `lines`, a window that holds line `at`. */
function window(lines: string[], at: number, max: number): { lines: string[]; first: number } {
  if (lines.length <= max) return { lines, first: 0 };
  const first = Math.min(Math.max(at - max + 1, 0), lines.length - max);
  return { lines: lines.slice(first, first + max), first };
}

/** Raw mode on or off; false when the terminal is gone (EIO after a hang-up): it cannot be set, and need not be. */
function setRaw(input: NodeJS.ReadStream, on: boolean): boolean {
  try {
    if (input.isTTY) input.setRawMode(on);
    return true;
  } catch {
    return false;
  }
}
