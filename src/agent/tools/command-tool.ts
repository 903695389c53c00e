/**
 * Command tools: a program run with an argv built from the model's input, never
 * through a shell. An element that is exactly `{{param}}` becomes that input value
 * as one whole argument, so nothing the model sends can split into more arguments
 * or inject shell syntax.
 */
import { LogbookError } from '../../core/index.js';
import { startTool } from './tether.js';
import type { Tool, ToolContext, ToolOutcome } from './tool.js';

export interface CommandToolSpec {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  command: string[];
  /** Seconds before the command (and everything it started) is killed. */
  timeout: number;
  /** Bytes of output kept; the rest is counted and cut. */
  max_output: number;
  cwd?: string;
}

const PLACEHOLDER = /^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$/;

/** The parameter an argv element stands for, or null for a literal. */
function placeholder(element: string): string | null {
  return PLACEHOLDER.exec(element)?.[1] ?? null;
}

/** Checks a command template once, when the config is loaded. */
export function checkCommandTemplate(spec: Pick<CommandToolSpec, 'name' | 'command' | 'input_schema'>): void {
  const declared = (spec.input_schema as { properties?: Record<string, unknown> }).properties;
  spec.command.forEach((element, i) => {
    const param = placeholder(element);
    if (param === null) {
      if (element.includes('{{')) {
        throw new LogbookError(
          'config',
          `tool "${spec.name}": command[${i}] "${element}" mixes text and a {{placeholder}}; a placeholder must be a whole argument`,
        );
      }
      return;
    }
    if (i === 0) throw new LogbookError('config', `tool "${spec.name}": the program (command[0]) cannot be a placeholder`);
    if (declared !== undefined && !(param in declared)) {
      throw new LogbookError('config', `tool "${spec.name}": command[${i}] uses {{${param}}}, which input_schema does not declare`);
    }
  });
}

function argumentText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

/** The argv for one call; an absent optional parameter drops its argument. */
export function resolveArgv(command: readonly string[], input: unknown): string[] {
  const values = (input ?? {}) as Record<string, unknown>;
  const argv: string[] = [];
  for (const element of command) {
    const param = placeholder(element);
    if (param === null) argv.push(element);
    else if (values[param] !== undefined && values[param] !== null) argv.push(argumentText(values[param]));
  }
  return argv;
}

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** The argv as a person would type it in a POSIX shell. */
export function shellQuote(argv: readonly string[]): string {
  return argv.map((a) => (a !== '' && SAFE_WORD.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}

interface Finished {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  timedOut: boolean;
  spawnError?: string;
}

function runProcess(argv: string[], spec: CommandToolSpec, signal: AbortSignal): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let omitted = 0;
    let timedOut = false;
    let settled = false;
    const { child, startError } = startTool(argv, spec.cwd);
    const killGroup = (): void => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    const collect = (chunk: Buffer): void => {
      const room = spec.max_output - kept;
      if (room > 0) {
        const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
        chunks.push(part);
        kept += part.length;
      }
      omitted += Math.max(0, chunk.length - Math.max(0, room));
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, spec.timeout * 1000);
    const onAbort = (): void => {
      killGroup();
      finish(() => reject(new LogbookError('interrupted', `${spec.name} interrupted`)));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    const finish = (settle: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      settle();
    };
    const text = (): string =>
      Buffer.concat(chunks).toString('utf8') + (omitted > 0 ? `\n[output truncated: ${omitted} more bytes]` : '');
    const notStarted = (why: string): void => finish(() => resolve({ exitCode: null, signal: null, output: '', timedOut: false, spawnError: why }));
    child.on('error', () => void startError.then((why) => why !== undefined && notStarted(why)));
    child.on('close', (code, sig) => {
      void startError.then((why) => (why !== undefined ? notStarted(why) : finish(() => resolve({ exitCode: code, signal: sig, output: text(), timedOut }))));
    });
    if (signal.aborted) onAbort();
  });
}

export class CommandTool implements Tool {
  readonly definition;

  constructor(private readonly spec: CommandToolSpec) {
    checkCommandTemplate(spec);
    this.definition = { name: spec.name, description: spec.description, input_schema: spec.input_schema };
  }

  describe(input: unknown): string {
    return shellQuote(resolveArgv(this.spec.command, input));
  }

  /**
   * The result body is JSON: {"command": argv, "exit_code": n, "output": text},
   * with "timed_out", "signal" or "error" when the command did not simply exit.
   * Anything but exit code 0 is an error result.
   */
  async run(input: unknown, context: ToolContext): Promise<ToolOutcome> {
    const argv = resolveArgv(this.spec.command, input);
    const done = await runProcess(argv, this.spec, context.signal);
    const body: Record<string, unknown> = { command: argv, exit_code: done.exitCode };
    if (done.timedOut) body.timed_out = true;
    else if (done.signal) body.signal = done.signal;
    if (done.spawnError) body.error = done.spawnError;
    body.output = done.timedOut ? `${done.output}${done.output ? '\n' : ''}[timed out after ${this.spec.timeout}s]` : done.output;
    return { content: JSON.stringify(body), isError: done.exitCode !== 0 };
  }
}
