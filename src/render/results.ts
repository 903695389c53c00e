/**
 * Tool results as people read them. A command tool's result body is a JSON
 * envelope, `{"command":[...],"exit_code":N,"output":"..."}` (exit_code null with
 * "timed_out", "signal" or "error" when the command did not simply exit); it is
 * unwrapped to its output. A remote command's, as another agent's reply gives it
 * (remote-tool.ts), has the command as one string and may say `truncated`. Any
 * other shape is shown as the plain text it is.
 */

export interface ShownResult {
  /** The output to show (the envelope's `output`, or the whole content). */
  output: string;
  isError: boolean;
  /** From a command envelope. */
  command?: string[];
  exitCode?: number | null;
  timedOut?: boolean;
  signal?: string;
  error?: string;
  /** A remote command's output was cut by the agent that ran it. */
  truncated?: boolean;
}

const ENVELOPE_KEYS = new Set(['command', 'exit_code', 'timed_out', 'signal', 'error', 'output', 'truncated']);

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'string');
}

export function showResult(content: string, isError: boolean): ShownResult {
  const plainText: ShownResult = { output: content, isError };
  if (!content.startsWith('{')) return plainText;
  let v: unknown;
  try {
    v = JSON.parse(content);
  } catch {
    return plainText;
  }
  const o = v as Record<string, unknown>;
  if (
    !Object.keys(o).every((k) => ENVELOPE_KEYS.has(k)) ||
    !(isStringArray(o.command) || typeof o.command === 'string') ||
    !(o.truncated === undefined || typeof o.truncated === 'boolean') ||
    typeof o.output !== 'string' ||
    !(o.exit_code === null || Number.isInteger(o.exit_code)) ||
    !(o.timed_out === undefined || typeof o.timed_out === 'boolean') ||
    !(o.signal === undefined || typeof o.signal === 'string') ||
    !(o.error === undefined || typeof o.error === 'string')
  ) {
    return plainText;
  }
  const shown: ShownResult = { output: o.output, isError, command: typeof o.command === 'string' ? [o.command] : o.command, exitCode: o.exit_code as number | null };
  if (o.timed_out === true) shown.timedOut = true;
  if (o.signal !== undefined) shown.signal = o.signal;
  if (o.error !== undefined) shown.error = o.error;
  if (o.truncated === true) shown.truncated = true;
  return shown;
}

/**
 * The parenthesised notes that follow a result's output: how a command ended
 * when not with 0, `(error)` for an error result nothing else explains, and
 * `(no output)` when there is nothing to show.
 */
export function resultNotes(r: ShownResult): string[] {
  const notes: string[] = [];
  if (r.timedOut) notes.push('(timed out)');
  else if (r.signal !== undefined) notes.push(`(killed by ${r.signal})`);
  else if (typeof r.exitCode === 'number' && r.exitCode !== 0) notes.push(`(exit ${r.exitCode})`);
  if (r.error !== undefined) notes.push(`(${r.error})`);
  if (r.truncated) notes.push('(output truncated)');
  if (r.isError && notes.length === 0) notes.push('(error)');
  if (r.output === '') notes.push('(no output)');
  return notes;
}

/** The lines a result shows: its output (without a final newline), then its notes on one line. */
export function resultLines(r: ShownResult): string[] {
  const lines = r.output === '' ? [] : r.output.replace(/\n$/, '').split('\n');
  const notes = resultNotes(r);
  if (notes.length > 0) lines.push(notes.join(' '));
  return lines;
}
