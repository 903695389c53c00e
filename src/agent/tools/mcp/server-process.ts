/**
 * The MCP stdio transport: a server program spoken to in JSON-RPC lines over its
 * stdin and stdout (framing and message checks are the SDK's ReadBuffer).
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
 *   why it stopped (its stderr is not shown otherwise).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { startTool } from '../tether.js';

/** Milliseconds a server has to leave after its stdin closes, and again after SIGTERM. */
const GRACE_MS = 2000;
/** Bytes of stderr kept for error messages. */
const STDERR_TAIL_BYTES = 4096;

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

  private child: ChildProcess | undefined;
  private readonly reader = new ReadBuffer();
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

  private receive(chunk: Buffer): void {
    try {
      this.reader.append(chunk);
    } catch (err) {
      this.onerror?.(err as Error);
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.reader.readMessage();
      } catch (err) {
        this.onerror?.(new Error(`a line on its stdout is not a JSON-RPC message: ${(err as Error).message}`));
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
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
    this.reader.clear();
  }
}
