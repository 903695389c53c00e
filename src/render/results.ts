/**
 * Tool results as people read them. A command tool's result body is a JSON
 * envelope (core: commandEnvelope); it is unwrapped to its output. Any other
 * shape is shown as the plain text it is.
 */
import { commandEnvelope } from '../core/index.js';

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

export function showResult(content: string, isError: boolean): ShownResult {
  const envelope = commandEnvelope(content);
  if (envelope === null) return { output: content, isError };
  const shown: ShownResult = {
    output: envelope.output,
    isError,
    command: typeof envelope.command === 'string' ? [envelope.command] : envelope.command,
    exitCode: envelope.exitCode,
  };
  if (envelope.timedOut) shown.timedOut = true;
  if (envelope.signal !== undefined) shown.signal = envelope.signal;
  if (envelope.error !== undefined) shown.error = envelope.error;
  if (envelope.truncated) shown.truncated = true;
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
