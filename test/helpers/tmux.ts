/**
 * Drives a program on a real terminal: a tmux server on a private socket with a
 * fixed window size, keys sent with send-keys, the screen read with
 * capture-pane. Waits poll the screen until what is expected appears, up to a
 * deadline: the deadline bounds the test, it asserts nothing about speed.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { tempDir } from './tmp.js';

export interface TmuxOptions {
  width?: number;
  height?: number;
  cwd?: string;
  /** The whole environment of the program (tmux's server gets it). */
  env: Record<string, string>;
  /**
   * What the program gets when the terminal hangs up (hangUp): `signal`, a
   * SIGHUP, as from a shell that passes it on to its jobs (the default), or
   * `silent`, nothing: it learns of it from the terminal alone.
   */
  hangUp?: 'signal' | 'silent';
}

const EXIT_STATUS = resolve(__dirname, 'exit-status.mjs');

export class Tmux {
  private readonly socket = `logbook-test-${process.pid}-${randomBytes(4).toString('hex')}`;
  /** Where exit-status.mjs writes how the program ended. */
  private readonly ending = join(tempDir(), 'exit-status');
  /** Set by hangUp: there is no screen to read any more. */
  private hungUp = false;

  private constructor(private readonly env: Record<string, string>) {}

  /** Starts `argv` in a new session; a pane stays after its program exits, so its status can be read. */
  static start(argv: string[], options: TmuxOptions): Tmux {
    const t = new Tmux(options.env);
    const conf = join(tempDir(), 'tmux.conf');
    writeFileSync(conf, 'set -g remain-on-exit on\nset -g status off\nset -g history-limit 0\n');
    const forward = options.hangUp === 'silent' ? [] : ['--forward-hup'];
    const command = [process.execPath, EXIT_STATUS, ...forward, t.ending, ...argv].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    t.tmux(['-f', conf, 'new-session', '-d', '-s', 'main', '-x', String(options.width ?? 100), '-y', String(options.height ?? 30), ...(options.cwd ? ['-c', options.cwd] : []), command]);
    return t;
  }

  private tmux(args: string[]): string {
    return execFileSync('tmux', ['-u', '-L', this.socket, ...args], { env: this.env, encoding: 'utf8' });
  }

  /** The visible screen, one string per row, trailing blanks removed. */
  screen(): string[] {
    return this.tmux(['capture-pane', '-p', '-t', 'main']).replace(/\n$/, '').split('\n').map((l) => l.trimEnd());
  }

  text(): string {
    return this.screen().join('\n');
  }

  /** The visible screen with its styling: SGR sequences as the terminal holds them. */
  styled(): string {
    return this.tmux(['capture-pane', '-p', '-e', '-t', 'main']);
  }

  /** Pastes `text` as a terminal does, bracketed (ESC [200~ ... ESC [201~) when the program asked for it. */
  paste(text: string): void {
    const file = join(tempDir(), 'paste.txt');
    writeFileSync(file, text);
    this.tmux(['load-buffer', '-b', 'paste', file]);
    this.tmux(['paste-buffer', '-p', '-d', '-b', 'paste', '-t', 'main']);
  }

  /** Sends tmux key names (`j`, `Enter`, `NPage`). */
  keys(...keys: string[]): void {
    this.tmux(['send-keys', '-t', 'main', ...keys]);
  }

  /** Types text literally. */
  type(text: string): void {
    this.tmux(['send-keys', '-t', 'main', '-l', text]);
  }

  /** From now on, every byte the program writes to the terminal is appended to `file` (tmux pipe-pane). */
  record(file: string): void {
    this.tmux(['pipe-pane', '-o', '-t', 'main', `cat >> '${file.replace(/'/g, `'\\''`)}'`]);
  }

  format(spec: string): string {
    return this.tmux(['display-message', '-p', '-t', 'main', spec]).trim();
  }

  /** Polls the screen until `test` holds, and returns it; fails with the last screen at the deadline. */
  async waitFor(test: string | RegExp | ((screen: string) => boolean), what = String(test), deadlineMs = 15_000): Promise<string> {
    const ok = typeof test === 'function' ? test : (s: string) => (typeof test === 'string' ? s.includes(test) : test.test(s));
    const end = Date.now() + deadlineMs;
    let last = '';
    for (;;) {
      last = this.text();
      if (ok(last)) return last;
      if (Date.now() > end) throw new Error(`screen never showed ${what}; last screen:\n${last}`);
      await sleep(25);
    }
  }

  /** Waits for the program to exit and returns its exit status. */
  async exitStatus(deadlineMs = 15_000): Promise<number> {
    const end = Date.now() + deadlineMs;
    let ending = '';
    while ((ending = existsSync(this.ending) ? readFileSync(this.ending, 'utf8') : '') === '') {
      if (Date.now() > end) throw new Error(`the program did not exit; last screen:\n${this.lastScreen()}`);
      await sleep(25);
    }
    if (!/^\d+$/.test(ending)) throw new Error(`the program was killed by ${ending}; last screen:\n${this.lastScreen()}`);
    return Number(ending);
  }

  /**
   * Hangs the terminal up, as closing its window does: the server goes, and
   * with it the terminal. The program's status is still read by exitStatus.
   */
  hangUp(): void {
    this.kill();
    this.hungUp = true;
  }

  private lastScreen(): string {
    return this.hungUp ? '(none: the terminal was hung up)' : this.text();
  }

  /** Stops the server and removes its socket file. */
  kill(): void {
    if (this.hungUp) return;
    try {
      const socket = this.format('#{socket_path}');
      this.tmux(['kill-server']);
      rmSync(socket, { force: true });
    } catch {
      /* already gone */
    }
  }
}
