/**
 * Where a run's output goes, decided once from what stdout and stderr are. On
 * a terminal one Screen owns the bottom of it (the answer being written, the
 * spinner, the chat's prompt), and everything else is printed above it; when
 * stdout and stderr are the same terminal, the answer (stdout) and the
 * narration (stderr) share that screen, so neither overwrites the other.
 * The model's text is rendered as Markdown on a color terminal, and shown as
 * written when stdout is piped, with NO_COLOR, --no-color or --plain; while it
 * goes down a pipe there is no spinner (`| tee` shows it on this terminal). A
 * pipe takes the text as it arrives, a file (`> answer.md`) each model call's
 * text once the call is complete, so that a retried call never leaves the file
 * holding anything but the journaled text (answer.ts).
 */
import { fstatSync } from 'node:fs';
import type { StreamTarget } from './answer.js';
import { createProgress, type Progress } from './progress.js';
import { Screen } from './screen.js';
import { ansiMarkdown, colorWanted, type Terminal } from './terminal.js';

export interface OutputFlags {
  /** False with --no-tui: no spinner, no screen, text as it comes. */
  tui: boolean;
  /** --json: stdout is the records, so the model's text goes to stderr. */
  json: boolean;
  plain: boolean;
  verbose: boolean;
  /** False with --no-color. */
  color: boolean;
  env: Readonly<Record<string, string | undefined>>;
}

export interface RunOutput {
  /** stderr's screen, when it is a terminal (and --no-tui is not given). */
  screen: Screen | undefined;
  progress: Progress;
  /** Where the model's text goes as it streams. */
  answer: StreamTarget;
  /** The answer goes to a stdout that is no terminal (a pipe, a file): what it receives is the output a program reads. */
  answerIsOutput: boolean;
  /** Where its thinking goes: on a terminal, else only with --verbose. */
  thinking: StreamTarget | undefined;
  /** Leaves the terminal as it was: the region cleared, the cursor shown. */
  close(): void;
}

/** Whether a stream is a pipe or a socket: `| tee` may show it on the very terminal stderr draws on. */
function isPipe(fd: number): boolean {
  try {
    const stat = fstatSync(fd);
    return stat.isFIFO() || stat.isSocket();
  } catch {
    return false;
  }
}

/** Whether two streams are the same terminal (one device). */
function sameTerminal(a: number, b: number): boolean {
  try {
    return fstatSync(a).rdev === fstatSync(b).rdev;
  } catch {
    return false;
  }
}

export async function runOutput(flags: OutputFlags, err: Terminal, streams: { stdout: NodeJS.WriteStream; stderr: NodeJS.WriteStream } = process): Promise<RunOutput> {
  const { stdout, stderr } = streams;
  const tui = flags.tui;
  const screen = tui && stderr.isTTY ? new Screen(stderr, { hideCursor: true }) : undefined;
  // No spinner while the answer goes down a pipe: `| tee` puts it on this terminal, under the spinner's line.
  const spinner = screen !== undefined && !(flags.json ? false : !stdout.isTTY && isPipe(1));
  const progress = createProgress(spinner ? stderr : { isTTY: false, write: (t: string) => (screen !== undefined ? screen.print(t) : stderr.write(t)) }, spinner ? { screen } : {});
  const wanted = (stream: { isTTY?: boolean }): boolean => !flags.plain && colorWanted(stream, { env: flags.env, ...(flags.color ? {} : { color: false }) });
  const answerStream = flags.json ? (screen !== undefined ? stderr : undefined) : tui ? stdout : undefined;
  // The renderer loads only when a terminal shows the answer rendered.
  const markdown = answerStream !== undefined && wanted(answerStream) ? { theme: ansiMarkdown, Stream: (await import('../render/markdown.js')).MarkdownStream } : undefined;
  let answer: StreamTarget;
  let own: Screen | undefined;
  if (flags.json) {
    answer = { out: stderr, screen, markdown };
  } else if (tui && stdout.isTTY) {
    const shared = screen !== undefined && sameTerminal(1, 2);
    own = shared ? undefined : new Screen(stdout, { hideCursor: true });
    answer = { out: stdout, screen: own ?? screen, markdown };
  } else {
    // A pipe (and a terminal without a screen) takes the text as it arrives; a file once each call is complete.
    answer = { out: stdout, delivery: stdout.isTTY || isPipe(1) ? 'stream' : 'whole' };
  }
  const faint = err.style.faint;
  const thinking: StreamTarget | undefined =
    screen !== undefined ? { out: stderr, screen, paint: faint, wrap: true } : flags.verbose ? { out: stderr, paint: faint } : undefined;
  // A process that leaves at once (a second Ctrl-C) still gives the cursor back.
  const restoreCursor = (): void => {
    for (const s of [screen, own]) s?.restoreCursor();
  };
  process.on('exit', restoreCursor);
  return {
    screen,
    progress,
    answer,
    answerIsOutput: !flags.json && !stdout.isTTY,
    thinking,
    close() {
      progress.stop();
      for (const s of [screen, own]) s?.clear();
      restoreCursor();
      process.off('exit', restoreCursor);
    },
  };
}
