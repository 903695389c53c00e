/**
 * The MCP stdio transport: a server program spoken to in JSON-RPC lines over its
 * stdin and stdout (the message checks are the SDK's).
 *
 * Written here rather than taken from the SDK's StdioClientTransport for what
 * that one cannot do:
 * - the server runs in its own process group, so a Ctrl-C at the terminal
 *   reaches logbook alone (which then decides to suspend the run) and never
 *   kills a server under a call, where its death would read as a crash;
 * - it runs under tether (see ../tether.ts) like a command tool, so it dies
 *   with logbook even when logbook is killed with SIGKILL;
 * - closing stops the whole group, so a server started through a wrapper
 *   (`npx`, a shell script) leaves no grandchild behind, and any group still
 *   alive when logbook exits is killed then;
 * - its exit status and the tail of its stderr are kept for the error that says
 *   why it stopped (its stderr is not shown otherwise);
 * - a message longer than the SDK's read buffer holds (10 MiB) is skipped to
 *   its end and reported with its size (onoversize), where the SDK's buffer
 *   drops it silently and the request it answered waits out its timeout.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { deserializeMessage, serializeMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { startTool } from '../tether.js';

/** Milliseconds a server has to leave after its stdin closes, and again after SIGTERM. */
const GRACE_MS = 2000;
/** Bytes of stderr kept for error messages. */
const STDERR_TAIL_BYTES = 4096;
/** The longest message read from a server, in bytes: the SDK's own bound for its read buffer. */
export const MAX_MESSAGE_BYTES = STDIO_DEFAULT_MAX_BUFFER_SIZE;

export interface ServerProcessOptions {
  argv: string[];
  env: Record<string, string>;
  cwd?: string;
}

/** How the server's main process ended. */
export interface ProcessEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Process groups still running, killed if logbook exits before closing them. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* the group is gone */
  }
}

function track(pid: number): void {
  liveGroups.add(pid);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const group of liveGroups) killGroup(group, 'SIGKILL');
  });
}

/** Resolves true once `child` has exited, false if it has not within `ms`. */
function exited(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(false);
    }, ms);
    const onExit = (): void => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once('exit', onExit);
  });
}

export class ServerProcess implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** A message longer than MAX_MESSAGE_BYTES ended (and was not read): its size in bytes. */
  onoversize?: (bytes: number) => void;

  private child: ChildProcess | undefined;
  /** The line being read, in pieces, while it fits in MAX_MESSAGE_BYTES. */
  private line: Buffer[] = [];
  private lineBytes = 0;
  /** The bytes of a line too long to keep, counted to its end; undefined while none is. */
  private skipped: number | undefined;
  private closing: Promise<void> | undefined;
  private stderrChunks: Buffer[] = [];
  private stderrBytes = 0;
  /** Set when its main process has exited. */
  end: ProcessEnd | undefined;
  /** Whether its program runs (or ran): false when it could not be started at all. */
  started = false;

  constructor(private readonly options: ServerProcessOptions) {}

  async start(): Promise<void> {
    const { argv, env, cwd } = this.options;
    if (cwd !== undefined && !existsSync(cwd)) throw new Error(`its cwd ${cwd} does not exist`);
    const { child, startError } = startTool(argv, cwd, { input: true, env });
    this.child = child;
    child.on('exit', (code, signal) => {
      this.end = { code, signal };
    });
    // Until it has started, startError says what went wrong; a program that never ran has no connection to close.
    child.on('error', (err) => void startError.then((why) => why === undefined && this.onerror?.(err)));
    child.on('close', () => void startError.then((why) => why === undefined && this.onclose?.()));
    child.stdin!.on('error', (err) => this.onerror?.(err));
    child.stdout!.on('data', (chunk: Buffer) => this.receive(chunk));
    child.stderr!.on('data', (chunk: Buffer) => this.keepStderr(chunk));
    const why = await startError;
    if (why !== undefined) throw new Error(why);
    this.started = true;
    track(child.pid!);
  }

  /** Splits its stdout into lines, each a message; one too long to keep is counted to its end instead. */
  private receive(chunk: Buffer): void {
    for (let start = 0; start <= chunk.length; ) {
      const newline = chunk.indexOf(0x0a, start);
      const piece = chunk.subarray(start, newline < 0 ? chunk.length : newline);
      if (this.skipped !== undefined) {
        this.skipped += piece.length;
      } else if (this.lineBytes + piece.length > MAX_MESSAGE_BYTES) {
        this.skipped = this.lineBytes + piece.length;
        this.line = [];
        this.lineBytes = 0;
      } else if (piece.length > 0) {
        this.line.push(piece);
        this.lineBytes += piece.length;
      }
      if (newline < 0) return;
      start = newline + 1;
      if (this.skipped !== undefined) {
        const bytes = this.skipped;
        this.skipped = undefined;
        this.onoversize?.(bytes);
      } else {
        const text = Buffer.concat(this.line, this.lineBytes).toString('utf8');
        this.line = [];
        this.lineBytes = 0;
        this.deliver(text.endsWith('\r') ? text.slice(0, -1) : text);
      }
    }
  }

  private deliver(line: string): void {
    let message: JSONRPCMessage;
    try {
      message = deserializeMessage(line);
    } catch (err) {
      this.onerror?.(new Error(`a line on its stdout is not a JSON-RPC message: ${(err as Error).message}`));
      return;
    }
    this.onmessage?.(message);
  }

  private keepStderr(chunk: Buffer): void {
    this.stderrChunks.push(chunk);
    this.stderrBytes += chunk.length;
    while (this.stderrChunks.length > 1 && this.stderrBytes - this.stderrChunks[0]!.length >= STDERR_TAIL_BYTES) {
      this.stderrBytes -= this.stderrChunks.shift()!.length;
    }
  }

  /** The last lines it wrote to stderr, at most `lines` of them, trimmed. */
  stderrTail(lines = 3): string {
    const text = Buffer.concat(this.stderrChunks).subarray(-STDERR_TAIL_BYTES).toString('utf8');
    return text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .slice(-lines)
      .join(' / ');
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (stdin === undefined || stdin === null || !stdin.writable) {
      return Promise.reject(new Error('the server is not running'));
    }
    return new Promise((resolve, reject) => {
      if (stdin.write(serializeMessage(message))) return resolve();
      const settle = (): void => {
        stdin.off('drain', settle);
        stdin.off('close', settle);
        if (stdin.writable) resolve();
        else reject(new Error('the server closed its input'));
      };
      stdin.once('drain', settle);
      stdin.once('close', settle);
    });
  }

  /**
   * Closes its stdin (the protocol's way to ask a server to leave), then sends
   * SIGTERM and at last SIGKILL to its group, each after a grace period; and
   * kills whatever it left in its group.
   */
  close(): Promise<void> {
    this.closing ??= this.stop();
    return this.closing;
  }

  private async stop(): Promise<void> {
    const child = this.child;
    if (child?.pid === undefined) return;
    const pid = child.pid;
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin!.end();
      if (!(await exited(child, GRACE_MS))) {
        killGroup(pid, 'SIGTERM');
        if (!(await exited(child, GRACE_MS))) {
          killGroup(pid, 'SIGKILL');
          await exited(child, GRACE_MS);
        }
      }
    }
    killGroup(pid, 'SIGKILL');
    liveGroups.delete(pid);
    this.line = [];
    this.lineBytes = 0;
    this.skipped = undefined;
  }
}
