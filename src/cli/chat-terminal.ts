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
 * while the model answers or tools run, when Esc or the first Ctrl-C stops
 * that answer or those tools, and at a prompt holding text, which it clears.
 * Keys typed while the model or a tool works are kept, and shown at the next
 * prompt. The turns typed before (this chat's, and the project's earlier
 * chats': chat-history.ts) are recalled with Up and searched with Ctrl-R.
 * A question the run asks takes a line, or one key press (choose).
 *
 * Keys with a meaning of their own at the prompt (beyond editing) are entries
 * of `bindings`: adding one is adding an entry.
 */
import type { Key } from 'node:readline';
import type { AnswerControl } from '../agent/runner.js';
import { sanitizeLine } from '../render/index.js';
import type { ChatHistory } from './chat-history.js';
import { LineEditor, turnLines } from './line-editor.js';
import { keyPressed, keyShown, readKeys, typedText } from './questions.js';
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
  /** The turns typed before, kept as each is sent; none: this chat's turns alone. */
  history?: ChatHistory;
  /** Ctrl-O: tool output shown or hidden from now on. */
  toggleToolOutput?: () => void;
}

/** Where the keys go: nowhere yet, the prompt, a question, or (while the model or tools work) ahead to the next prompt. */
type Phase = 'idle' | 'prompt' | 'question' | 'working';

/** A question the run asks: answered by a line, or by one key press (`keyed`). */
interface Question {
  prompt: string;
  editor: LineEditor;
  keyed: boolean;
}

/** A Ctrl-R search of the turns typed before: what was typed to find, and the entry found (none yet, or none holds it). */
interface Search {
  query: string;
  found: number | undefined;
}

/** The terminal's lines, one turn (or one answer to a question) at a time. */
export class TerminalInput {
  private readonly editor: LineEditor;
  private phase: Phase = 'idle';
  /** Turns sent with Enter while no prompt was shown, in order. */
  private readonly typedAhead: string[] = [];
  /** The reader waiting at the prompt or the question. */
  private waiting: ((line: string | null) => void) | null = null;
  private question: Question | null = null;
  private search: Search | null = null;
  /** A paste being read: its text so far. */
  private pasting: string | null = null;
  /** An Enter not yet acted on: it is a line break if more input follows at once. */
  private pendingEnter: NodeJS.Immediate | null = null;
  /** What Esc or the first Ctrl-C stops: the model call or the tools at work. */
  private work: AbortController | null = null;
  private lastCtrlC = 0;
  private lastEscape = 0;
  /** The key being handled (a binding reads its modifiers). */
  private lastKey: Key | undefined;
  private ended = false;
  private closed = false;
  /** A draw asked for by a key, not yet made: the keys of one read are drawn once, after the last. */
  private drawQueued = false;
  private readonly onKey = (text: string | undefined, key: Key | undefined): void => this.key(text, key);
  private readonly onResize = (): void => this.render();
  private readonly onEnd = (): void => this.end();
  private readonly restore = (): void => this.close();

  /**
   * The keys with a meaning of their own (beyond editing the turn), at the
   * prompt and while the model or tools work, by chord (`C-l`, `escape`): Esc
   * stops the work, Ctrl-L redraws, Ctrl-R searches, Ctrl-O shows tool output.
   */
  private readonly bindings: Readonly<Record<string, () => void>> = {
    // Esc stops the work; twice at an empty prompt, it lists the turns typed so far (/rewind). Two quick presses may come as one meta Esc.
    escape: () => (this.phase === 'working' ? this.stop() : this.phase === 'prompt' && this.editor.empty && this.escapeAtPrompt(this.lastKey?.meta === true)),
    'C-l': () => this.o.screen.refresh(),
    'C-r': () => this.searchBack(),
    'C-o': () => this.o.toggleToolOutput?.(),
  };

  constructor(private readonly o: TerminalInputOptions) {
    this.editor = new LineEditor(o.history?.turns);
    readKeys(o.input);
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
    return this.put(prompt, signal, false);
  }

  /** One key pressed at its own prompt: the character typed, or the key's name (`return`); null at end of input or once `signal` aborts. */
  choose(prompt: string, signal: AbortSignal): Promise<string | null> {
    return this.put(prompt, signal, true);
  }

  /** A turn given on the command line, shown as a typed one is once sent, and kept in the history. */
  echo(turn: string): void {
    this.o.screen.print(this.sent(turn));
    this.editor.remember(turn);
    this.o.history?.add(turn);
  }

  private put(prompt: string, signal: AbortSignal, keyed: boolean): Promise<string | null> {
    if (this.ended || signal.aborted) return Promise.resolve(null);
    const before = this.phase;
    this.phase = 'question';
    this.question = { prompt, editor: new LineEditor(), keyed };
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

  /** A model call begins, or a batch of tool calls: Esc or the first Ctrl-C aborts its signal. */
  working(): AnswerControl {
    const controller = new AbortController();
    this.work = controller;
    this.phase = 'working';
    this.render();
    return {
      signal: controller.signal,
      done: () => {
        if (this.work === controller) this.work = null;
        if (this.phase === 'working') this.phase = 'idle';
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

  /**
   * Draws once the keys read together are all handled: Node's parser emits a
   * read's keys one after another in one go, so text typed or pasted fast
   * (without bracketed paste) is drawn once, not once a character.
   */
  private renderSoon(): void {
    if (this.drawQueued) return;
    this.drawQueued = true;
    queueMicrotask(() => {
      if (this.drawQueued) this.render();
    });
  }

  private render(): void {
    this.drawQueued = false;
    if (this.closed) return;
    if (this.phase === 'question' && this.question !== null) {
      const view = this.question.editor.view(this.question.prompt, '  ');
      this.o.screen.set('input', view.lines, view.caret);
    } else if (this.phase === 'prompt') {
      const view = this.editor.view(this.o.prompt, this.o.continuation);
      const searching = this.search !== null;
      const shown = window(view.lines, view.caret.line, Math.max((this.o.output.rows ?? 24) - (searching ? 4 : 3), 3));
      // A blank line sets the prompt off from the answer above it.
      if (!searching) {
        this.o.screen.set('input', ['', ...shown.lines], { line: view.caret.line - shown.first + 1, column: view.caret.column });
        return;
      }
      // Searching: the turn found at the prompt, and under it what is searched for, the caret after it.
      const what = `${this.search!.found === undefined && this.search!.query !== '' ? 'no earlier turn holds' : 'search earlier turns (Ctrl-R: older, Enter: take it, Esc: give up)'}: `;
      const line = `${what}${sanitizeLine(this.search!.query)}`;
      this.o.screen.set('input', ['', ...shown.lines, line], { line: shown.lines.length + 1, column: [...line].length });
    } else {
      this.o.screen.set('input', []);
    }
  }

  private key(text: string | undefined, key: Key | undefined): void {
    this.lastKey = key;
    const name = key?.name;
    if (name === 'paste-start') {
      this.pasting = '';
      return;
    }
    if (name === 'paste-end') {
      const pasted = (this.pasting ?? '').replace(/\r\n?/g, '\n');
      this.pasting = null;
      if (this.question?.keyed === true) return; // a paste answers no question of one key
      this.active.insert(this.question !== null ? pasted.replace(/\n/g, ' ') : pasted);
      this.renderSoon();
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
    if (this.question?.keyed === true) return this.keyAnswer(text, key);
    if (this.search !== null && this.phase === 'prompt' && this.searchKey(text, key)) return this.renderSoon();
    if (key?.ctrl === true && name === 'c') return this.ctrlC();
    const binding = this.question === null && Object.hasOwn(this.bindings, chord(key)) ? this.bindings[chord(key)] : undefined;
    if (binding !== undefined) binding();
    else this.edit(text, key);
    this.renderSoon();
  }

  /** A key pressed at a question that takes one: it answers it, but Ctrl-C (a suspend) and Ctrl-D (no answer). */
  private keyAnswer(text: string | undefined, key: Key | undefined): void {
    const name = key?.name;
    if (key?.ctrl === true && name === 'c') return this.ctrlC();
    if (key?.ctrl === true && name === 'd') return this.end();
    const pressed = keyPressed(text, key);
    if (pressed === '') return;
    const { prompt } = this.question!;
    this.o.screen.set('input', []);
    this.o.screen.print(`${prompt}${keyShown(pressed)}`);
    this.waiting?.(pressed);
  }

  /** Ctrl-R at the prompt: the search begins, or goes on to an older turn that holds what is searched for. */
  private searchBack(): void {
    if (this.phase !== 'prompt') return;
    if (this.search === null) {
      this.search = { query: '', found: undefined };
      return;
    }
    const { query, found } = this.search;
    if (query === '') return;
    const older = this.editor.searchBack(query, found);
    if (older !== undefined) this.search.found = older;
  }

  /**
   * A key while searching: it types what is searched for, goes on (Ctrl-R),
   * gives up (Esc, Ctrl-G, Ctrl-C: the turn typed before is back), or takes
   * the turn found to the prompt (Enter; any other key, which then acts
   * there). Returns whether the key was the search's alone.
   */
  private searchKey(text: string | undefined, key: Key | undefined): boolean {
    const search = this.search!;
    const name = key?.name;
    const ctrl = key?.ctrl === true;
    if (ctrl && name === 'r') {
      this.searchBack();
      return true;
    }
    if (name === 'escape' || (ctrl && (name === 'g' || name === 'c'))) {
      this.search = null;
      this.editor.restoreDraft();
      return true;
    }
    const typed = typedText(text, key);
    if (typed !== undefined || name === 'backspace') {
      search.query = typed !== undefined ? search.query + typed : [...search.query].slice(0, -1).join('');
      const found = search.query === '' ? undefined : this.editor.searchBack(search.query);
      search.found = found;
      if (found === undefined) this.editor.restoreDraft();
      return true;
    }
    this.search = null;
    return name === 'return' || name === 'enter';
  }

  private ctrlC(): void {
    const now = Date.now();
    const again = now - this.lastCtrlC < DOUBLE_PRESS_MS;
    this.lastCtrlC = now;
    if (!again && this.phase === 'working' && this.work !== null && !this.work.signal.aborted) {
      this.stop();
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

  private stop(): void {
    this.work?.abort();
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
    const typed = typedText(text, key);
    if (typed !== undefined) editor.insert(typed);
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
    this.o.history?.add(turn);
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

/** A key as the bindings name it: `C-l` for Ctrl-L, `M-x` for Alt-X, else its name. */
function chord(key: Key | undefined): string {
  const name = key?.name ?? '';
  // Node's parser marks a lone Esc as meta too: it is an Esc, not Alt-Esc.
  return key?.ctrl === true ? `C-${name}` : key?.meta === true && name !== 'escape' ? `M-${name}` : name;
}

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
