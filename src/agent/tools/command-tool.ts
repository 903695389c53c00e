/**
 * Command tools: a program run with an argv built from the model's input, never
 * through a shell. An element that is exactly `{{param}}` becomes that input value
 * as one whole argument, so nothing the model sends can split into more arguments
 * or inject shell syntax; and a value that begins with `-`, which the program
 * could take for an option, is refused unless the tool allows it.
 */
import { isAbsolute, resolve } from 'node:path';
import { LogbookError, RawJson, rawMembers, shellQuote } from '../../core/index.js';
import { checkEnvRefs, type Env } from './env-refs.js';
import { toolEnvironment } from './environment.js';
import { keptOutput } from './output.js';
import { startTool, tether } from './tether.js';
import type { Tool, ToolContext, ToolOutcome, ToolPolicy } from './tool.js';

/** A command tool, every field given (commandToolSpec fills the defaults). */
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
  /**
   * Added to the few variables a tool inherits (see environment.ts); a value may
   * hold `${NAME}`, read from logbook's environment when the tool is made.
   */
  env?: Record<string, string>;
  /**
   * Let a `{{param}}` value begin with `-`. Off by default: such a value reaches
   * the program as an option (`find -delete`). Turn it on only where the program
   * cannot read it as one, such as after `--` or as an option's own argument.
   */
  allow_leading_dash?: boolean;
  /** Ask the operator before every call. Outside the fingerprint, like side_effects (docs/guide/approvals.md). */
  confirm?: boolean;
  /** A call changes something outside, so an interrupted one is never re-run unasked. */
  side_effects?: boolean;
}

/** What a command tool is given when its spec leaves these out: seconds, and bytes of output. */
export const COMMAND_TOOL_DEFAULTS = { timeout: 60, max_output: 100_000 } as const;

/**
 * A command tool as agent.yaml's `tools:` entries give it: `name` and `command`,
 * the rest with agent.yaml's defaults (no description, an input_schema of an
 * object of any properties, COMMAND_TOOL_DEFAULTS, no confirm, no side effects).
 */
export type CommandToolInput = Pick<CommandToolSpec, 'name' | 'command'> & Partial<Omit<CommandToolSpec, 'name' | 'command'>>;

/** The spec with its defaults; a relative `cwd` is resolved against `dir` when one is given. */
export function commandToolSpec(t: CommandToolInput, dir?: string): CommandToolSpec {
  const cwd = t.cwd === undefined || t.cwd === '' ? undefined : dir === undefined || isAbsolute(t.cwd) ? t.cwd : resolve(dir, t.cwd);
  return {
    name: t.name,
    description: t.description ?? '',
    input_schema: t.input_schema ?? { type: 'object', properties: {} },
    command: t.command,
    timeout: t.timeout ?? COMMAND_TOOL_DEFAULTS.timeout,
    max_output: t.max_output ?? COMMAND_TOOL_DEFAULTS.max_output,
    allow_leading_dash: t.allow_leading_dash ?? false,
    ...(cwd !== undefined ? { cwd } : {}),
    env: checkEnvRefs(t.env, `tool "${t.name}": env`),
    confirm: t.confirm ?? false,
    side_effects: t.side_effects ?? false,
  };
}

/**
 * A tool that runs a program, as a `tools:` entry of agent.yaml does: its argv
 * from `command`, each `{{param}}` element one whole argument from the model's
 * input, never through a shell. `options.env` is the environment its `${NAME}`
 * references and its few inherited variables (PATH, HOME, ...) are read from:
 * pass `process.env` (nothing else of it reaches the tool).
 */
export function commandTool(spec: CommandToolInput, options: CommandToolOptions): CommandTool {
  return new CommandTool(commandToolSpec(spec), options);
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

/**
 * Each input member as a command argument: a string as its decoded text, any
 * other value as the JSON text the model wrote (so `1.0` stays `1.0` and a big
 * integer keeps every digit). A null value counts as absent.
 */
function argumentsOf(input: RawJson): Map<string, string> {
  const args = new Map<string, string>();
  for (const [key, text] of rawMembers(input.text) ?? []) {
    if (text === 'null') continue;
    args.set(key, text.startsWith('"') ? (JSON.parse(text) as string) : text);
  }
  return args;
}

export interface ResolvedCommand {
  argv: string[];
  /** The placeholders whose value begins with `-`, which the program could take for an option. */
  dashed: { param: string; value: string }[];
}

/** The argv for one call; an absent optional parameter drops its argument. */
export function resolveArgv(command: readonly string[], input: RawJson): ResolvedCommand {
  const args = argumentsOf(input);
  const resolved: ResolvedCommand = { argv: [], dashed: [] };
  for (const element of command) {
    const param = placeholder(element);
    const value = param === null ? element : args.get(param);
    if (value === undefined) continue;
    resolved.argv.push(value);
    if (param !== null && value.startsWith('-')) resolved.dashed.push({ param, value });
  }
  return resolved;
}

const shortValue = (v: string): string => JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}...` : v);

/** Why a call with option-like values was not run, for the model to read. */
function leadingDashRefusal(name: string, dashed: ResolvedCommand['dashed']): string {
  const values = dashed.map((d) => `${d.param} is ${shortValue(d.value)}`).join(', ');
  return (
    `not run: ${values}; a value that begins with "-" could be taken for an option by the command, so ${name} refuses it. ` +
    'Pass a value that does not begin with "-" (for a relative path, start it with ./). ' +
    `The tool's configuration can allow such values with allow_leading_dash: true.`
  );
}


interface Finished {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  /** Whether output was cut at max_output. */
  truncated: boolean;
  timedOut: boolean;
  spawnError?: string;
}

function runProcess(argv: string[], spec: CommandToolSpec, env: Record<string, string>, signal: AbortSignal): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let omitted = 0;
    let timedOut = false;
    let settled = false;
    const { child, startError } = startTool(argv, spec.cwd, { env });
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
    const text = (): string => keptOutput(Buffer.concat(chunks), omitted);
    const notStarted = (why: string): void => finish(() => resolve({ exitCode: null, signal: null, output: '', truncated: false, timedOut: false, spawnError: why }));
    child.on('error', () => void startError.then((why) => why !== undefined && notStarted(why)));
    child.on('close', (code, sig) => {
      void startError.then((why) =>
        why !== undefined ? notStarted(why) : finish(() => resolve({ exitCode: code, signal: sig, output: text(), truncated: omitted > 0, timedOut })),
      );
    });
    if (signal.aborted) onAbort();
  });
}

/** What a command tool is made with besides its spec. */
export interface CommandToolOptions {
  /** logbook's environment: where the inherited variables and `env:`'s `${NAME}` references are read. */
  env: Env;
}

export class CommandTool implements Tool {
  readonly definition;
  readonly policy: ToolPolicy;
  /** The command's whole environment. */
  private readonly env: Record<string, string>;

  constructor(
    private readonly spec: CommandToolSpec,
    options: CommandToolOptions,
  ) {
    checkCommandTemplate(spec);
    tether(); // a tool that could outlive logbook is refused when it is made, not at its first call
    this.env = toolEnvironment(options.env, spec.env ?? {}, `tool "${spec.name}": env`);
    this.definition = { name: spec.name, description: spec.description, input_schema: spec.input_schema };
    this.policy = { confirm: spec.confirm === true, sideEffects: spec.side_effects === true };
  }

  describe(input: unknown, raw: RawJson = RawJson.fromValue(input)): string {
    return shellQuote(resolveArgv(this.spec.command, raw).argv);
  }

  /** The argv the result body's `command` holds: what ran, whatever the config says now. */
  describeRan(resultContent: string): string | undefined {
    let body: unknown;
    try {
      body = JSON.parse(resultContent);
    } catch {
      return undefined;
    }
    const command = (body as { command?: unknown } | null)?.command;
    return Array.isArray(command) && command.length > 0 && command.every((a) => typeof a === 'string') ? shellQuote(command) : undefined;
  }

  /**
   * The result body is JSON: {"command": argv, "exit_code": n, "output": text},
   * with "timed_out", "signal" or "error" when the command did not simply exit
   * (or was not run). Anything but exit code 0 is an error result.
   */
  async run(input: unknown, context: ToolContext, raw: RawJson = RawJson.fromValue(input)): Promise<ToolOutcome> {
    const { argv, dashed } = resolveArgv(this.spec.command, raw);
    if (dashed.length > 0 && this.spec.allow_leading_dash !== true) {
      const body = { command: argv, exit_code: null, error: leadingDashRefusal(this.spec.name, dashed), output: '' };
      return { content: JSON.stringify(body), isError: true };
    }
    const done = await runProcess(argv, this.spec, this.env, context.signal);
    const body: Record<string, unknown> = { command: argv, exit_code: done.exitCode };
    if (done.timedOut) body.timed_out = true;
    else if (done.signal) body.signal = done.signal;
    if (done.spawnError) body.error = done.spawnError;
    body.output = done.timedOut ? `${done.output}${done.output ? '\n' : ''}[timed out after ${this.spec.timeout}s]` : done.output;
    const outcome: ToolOutcome = { content: JSON.stringify(body), isError: done.exitCode !== 0 };
    if (done.exitCode !== null && !done.timedOut && done.spawnError === undefined) {
      outcome.exec = { command: shellQuote(argv), exitCode: done.exitCode, output: done.output, truncated: done.truncated };
    }
    return outcome;
  }
}
