/**
 * A one-line progress spinner with elapsed time and token count, redrawn in
 * place on a terminal stderr (the status part of its Screen's region). On
 * anything but a terminal it draws nothing, so piped or logged output never
 * carries spinner frames.
 */
import { Screen } from './screen.js';

export interface Progress {
  /** Starts (or restarts) the clock and the spinner; `label` says what is waited for. */
  start(label?: string): void;
  /** The token count so far (a total, not an increment); none is shown while it is 0 (nothing counted yet). */
  update(tokens: number): void;
  /** What was spent so far, as shown after the tokens (`$0.12`); null: nothing is shown. */
  cost(text: string | null): void;
  /** Changes the label without restarting the clock. */
  label(text: string): void;
  /** Writes text (whole lines) above the spinner without garbling either. */
  write(text: string): void;
  /** Clears the spinner line and stops redrawing. Safe to call more than once. */
  stop(): void;
  /** Whether it draws at all (stderr is a terminal). */
  readonly active: boolean;
}

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

export interface ProgressOptions {
  /** The clock, in milliseconds. */
  now?: () => number;
  /** Redraw interval in milliseconds. */
  intervalMs?: number;
  /** Whether the line shows a token count (not while nothing spends tokens); default true. */
  tokens?: boolean;
  /** The screen to draw on, shared with what else the terminal shows live; default one of its own on the stream. */
  screen?: Screen;
}

const FRAMES = ['\u280b', '\u2819', '\u2839', '\u2838', '\u283c', '\u2834', '\u2826', '\u2827', '\u2807', '\u280f'];

export function formatElapsed(ms: number): string {
  const s = Math.max(0, ms) / 1000;
  if (s < 60) return `${s.toFixed(1)}s`;
  const whole = Math.floor(s);
  return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
}

/** One frame: spinner, label, elapsed time, and tokens unless null or none yet, then the spend when known. */
export function progressLine(frame: number, elapsedMs: number, tokens: number | null, label = '', cost: string | null = null): string {
  const parts = [FRAMES[frame % FRAMES.length]!];
  if (label) parts.push(label);
  parts.push(formatElapsed(elapsedMs));
  if (tokens === null || tokens === 0) return parts.join(' ');
  const spent = cost === null ? '' : ` \u00b7 ${cost}`;
  return `${parts.join(' ')} \u00b7 ${tokens.toLocaleString('en-US')} token${tokens === 1 ? '' : 's'}${spent}`;
}

export function createProgress(stream: ProgressStream = process.stderr, options: ProgressOptions = {}): Progress {
  const active = stream.isTTY === true;
  const now = options.now ?? Date.now;
  const interval = options.intervalMs ?? 100;
  const screen = active ? (options.screen ?? new Screen(stream)) : undefined;
  let timer: NodeJS.Timeout | null = null;
  let started = 0;
  let tokens = 0;
  let spent: string | null = null;
  let frame = 0;
  let text = '';

  const line = (): string => {
    const drawn = progressLine(frame++, now() - started, options.tokens === false ? null : tokens, text, spent);
    const cols = stream.columns;
    return cols !== undefined && cols > 1 && [...drawn].length > cols - 1 ? [...drawn].slice(0, cols - 1).join('') : drawn;
  };
  const draw = (): void => screen!.set('status', [line()]);

  return {
    active,
    start(label = '') {
      started = now();
      text = label;
      if (!active) return;
      if (timer === null) {
        timer = setInterval(draw, interval);
        timer.unref(); // the spinner never keeps the process alive
      }
      draw();
    },
    update(total) {
      tokens = total;
    },
    cost(shown) {
      spent = shown;
    },
    label(label) {
      text = label;
    },
    write(out) {
      if (screen === undefined) {
        stream.write(out);
        return;
      }
      if (timer !== null) screen.set('status', [line()], undefined, false);
      screen.print(out);
    },
    stop() {
      if (timer === null) return;
      clearInterval(timer);
      timer = null;
      screen!.set('status', []);
    },
  };
}
