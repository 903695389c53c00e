/**
 * What a run shows while it works. Narration (prose that leads to tool calls,
 * the calls, warnings, with --tool-output the results) goes to stderr; a final
 * answer goes to stdout alone, so `logbook run ... > answer.txt` captures just it.
 */
import { textOf, type RunObserver, type ToolCall } from '../agent/runner.js';
import type { ToolRegistry } from '../agent/tools/registry.js';
import { toolUses, withheldKind, type Message, type ToolResultBody } from '../core/index.js';
import { callLine, callNoteText, remoteText, resultLines, sanitize, sanitizeLine, showResult } from '../render/index.js';
import type { Progress } from './progress.js';
import type { Terminal } from './terminal.js';

export interface LiveOptions {
  err: Terminal;
  progress: Progress;
  tools: ToolRegistry;
  toolOutput: boolean;
  verbose: boolean;
  /** Tokens already spent (a resumed run's counters). */
  tokens: number;
  /**
   * Where a chat's answers go as they arrive. A one-shot run's answer is printed
   * once at the end instead (it may already be in the journal on a resume).
   */
  writeAnswer?: (text: string) => void;
}

const thinkingOf = (m: Message): string => m.content.flatMap((b) => ('thinking' in b && b.thinking.text ? [b.thinking.text] : [])).join('\n');

export function liveObserver(o: LiveOptions): RunObserver {
  const { err, progress } = o;
  const s = err.style;
  let tokens = o.tokens;
  const say = (text: string): void => progress.write(text.endsWith('\n') ? text : `${text}\n`);
  const call = (c: ToolCall, resolved: string | undefined, suffix = ''): string => callLine(c.name, c.input.text, { resolved, width: err.columns, suffix });
  const result = (r: ToolResultBody): void => {
    if (!o.toolOutput) return;
    const lines = resultLines(showResult(r.content, r.is_error === true));
    for (const line of lines) say(s.faint(`  ${sanitizeLine(line)}`));
  };

  return {
    modelStart() {
      progress.update(tokens);
      progress.start('thinking');
    },
    assistant(message, usage, stopReason) {
      progress.stop();
      tokens += usage.inTokens + usage.outTokens;
      progress.update(tokens);
      if (o.verbose) {
        const thinking = thinkingOf(message);
        if (thinking) say(s.faint(sanitize(thinking)));
      }
      const prose = textOf(message);
      const isAnswer = toolUses(message).length === 0 && stopReason !== 'pause_turn';
      if (isAnswer && o.writeAnswer !== undefined) {
        if (prose) o.writeAnswer(`${sanitize(prose)}\n`);
      } else if (prose && (!isAnswer || stopReason === 'refusal')) {
        say(sanitize(prose)); // a refusal is no answer for stdout, but what the model said is shown
      }
      if (o.verbose) say(s.faint(`  (${usage.inTokens} in, ${usage.outTokens} out, stop: ${sanitizeLine(stopReason) || 'none'})`));
    },
    toolStart(c, resolved) {
      const remote = o.tools.get(c.name)?.remote;
      const where = remote === undefined ? '' : ` (${remoteText({ agent: sanitizeLine(remote.agent) })})`;
      say(s.call(call(c, resolved, where)));
      progress.start(`${sanitizeLine(c.name)}${where}`);
    },
    toolEnd(_c, r) {
      progress.stop();
      result(r);
    },
    toolWithheld(c, resolved, r) {
      const kind = withheldKind(r);
      say(s.note(call(c, resolved, kind !== undefined ? `  (${callNoteText(kind)})` : '')));
    },
    toolReused(c, r) {
      say(s.faint(call(c, o.tools.describe(c.name, c.input), '  (journaled result reused)')));
      result(r);
    },
    warning(message) {
      say(s.note(`warning: ${sanitizeLine(message)}`));
    },
    awaitingInput() {
      progress.stop();
    },
  };
}
