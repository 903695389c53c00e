/**
 * A command tool's result, as the journal holds it: a JSON envelope,
 * `{"command":[...],"exit_code":N,"output":"..."}` (exit_code null with
 * "timed_out", "signal" or "error" when the command did not simply exit). A
 * remote command's, as another agent's reply gives it, has the command as one
 * string and may say `truncated`. Read here once, for every rendering and for
 * a task's events; any other content is no envelope.
 */

export interface CommandEnvelope {
  /** The argv, or one string for a command another agent ran. */
  command: string[] | string;
  exitCode: number | null;
  output: string;
  timedOut?: boolean;
  signal?: string;
  error?: string;
  /** The output was cut by the agent that ran it. */
  truncated?: boolean;
}

const ENVELOPE_KEYS = new Set(['command', 'exit_code', 'timed_out', 'signal', 'error', 'output', 'truncated']);

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

/** The envelope `content` is, or null when it is no command's result. */
export function commandEnvelope(content: string): CommandEnvelope | null {
  if (!content.startsWith('{')) return null;
  let v: unknown;
  try {
    v = JSON.parse(content);
  } catch {
    return null;
  }
  const o = v as Record<string, unknown>;
  if (
    o === null ||
    typeof o !== 'object' ||
    !Object.keys(o).every((k) => ENVELOPE_KEYS.has(k)) ||
    !(isStringArray(o.command) || typeof o.command === 'string') ||
    !(o.truncated === undefined || typeof o.truncated === 'boolean') ||
    typeof o.output !== 'string' ||
    !(o.exit_code === null || Number.isInteger(o.exit_code)) ||
    !(o.timed_out === undefined || typeof o.timed_out === 'boolean') ||
    !(o.signal === undefined || typeof o.signal === 'string') ||
    !(o.error === undefined || typeof o.error === 'string')
  ) {
    return null;
  }
  const envelope: CommandEnvelope = { command: o.command, exitCode: o.exit_code as number | null, output: o.output };
  if (o.timed_out === true) envelope.timedOut = true;
  if (o.signal !== undefined) envelope.signal = o.signal;
  if (o.error !== undefined) envelope.error = o.error;
  if (o.truncated === true) envelope.truncated = true;
  return envelope;
}

const SAFE_WORD = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** The argv as a person would type it in a POSIX shell. */
export function shellQuote(argv: readonly string[]): string {
  return argv.map((a) => (a !== '' && SAFE_WORD.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}
