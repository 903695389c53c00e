/**
 * How a task's stream reads on a terminal, for `logbook ask` and for a run
 * whose call hands another agent a task (its events shown indented under the
 * call). Everything from the wire is another agent's output, so untrusted:
 * every piece is sanitized before it is shown.
 */
import { taskRunId } from '../../agent/tasks/origin.js';
import type { TaskMessage } from '../../agent/tasks/wire.js';
import { callLine, resultLines, sanitize, sanitizeLine, showResult } from '../../render/index.js';
import type { Progress } from '../progress.js';
import type { Terminal } from '../terminal.js';

export interface TaskViewOptions {
  err: Terminal;
  progress: Progress;
  /** The agent doing the task. */
  agent: string;
  /** Where its prose goes: stdout, for `ask`; else the narration. */
  writeText?: (text: string) => void;
  /** Put before every line of narration (a sub-task's, under its call). */
  indent?: string;
  toolOutput?: boolean;
  verbose?: boolean;
}

/** What a task's view does with each message of its stream; `text` says whether any prose was shown. */
export interface TaskView {
  show(message: TaskMessage): void;
  readonly shownText: boolean;
}

export function taskView(o: TaskViewOptions): TaskView {
  const s = o.err.style;
  const indent = o.indent ?? '';
  const say = (text: string): void => o.progress.write(text.replace(/^/gm, indent).replace(/\n?$/, '\n'));
  const who = sanitizeLine(o.agent);
  let shownText = false;
  let tokens = 0;
  const width = o.err.columns === undefined ? undefined : o.err.columns - indent.length;
  return {
    get shownText() {
      return shownText;
    },
    show(m) {
      if (m.protocol.endsWith('.ack')) {
        if ('accepted' in m && m.accepted) o.progress.start(`agent ${who} works on it`);
        return;
      }
      if (!m.protocol.endsWith('.event') || !('block' in m)) {
        o.progress.stop();
        // A sub-task's end that is no answer is said under its call (ask says its own end itself).
        if (indent !== '' && m.protocol.endsWith('.error') && 'error' in m) say(s.bad(subTaskError(who, m.request, m.stop_reason, m.error, m.code)));
        return;
      }
      const b = m.block;
      switch (b.type) {
        case 'status':
          tokens += (b.usage?.input_tokens ?? 0) + (b.usage?.output_tokens ?? 0);
          o.progress.update(tokens);
          o.progress.label(`agent ${who} works on it (model call ${b.iteration ?? '?'})`);
          return;
        case 'text':
          if (b.text === '') return;
          shownText = true;
          if (o.writeText !== undefined) {
            o.progress.stop();
            o.writeText(`${sanitize(b.text)}\n`);
            o.progress.start(`agent ${who} works on it`);
          } else say(`${who}: ${sanitize(b.text)}`);
          return;
        case 'thinking':
          if (o.verbose && b.text) say(s.faint(sanitize(b.text)));
          return;
        case 'tool_call':
          say(s.call(callLine(b.name, b.input?.text ?? '{}', { width, suffix: indent === '' ? '' : ` (by agent ${who})` })));
          return;
        case 'agent_call':
          say(s.call(`\u00bb asks agent ${sanitizeLine(b.name)} (task ${sanitizeLine(b.task)})`));
          return;
        case 'tool_result':
          if (o.toolOutput || b.is_error) {
            for (const line of resultLines(showResult(b.output ?? '', b.is_error === true))) say(s.faint(`  ${sanitizeLine(line)}`));
          }
          return;
      }
    },
  };
}

/** The line under a call whose task ended in an error: what the model reads, and the run an operator may have to resume. */
function subTaskError(who: string, request: string, stopReason: string | undefined, error: string, code: string | undefined): string {
  const operator = stopReason === 'suspended' ? `; its run ${sanitizeLine(taskRunId(who, request))} waits for an operator of agent ${who}` : '';
  return `agent ${who} ended the task ${sanitizeLine(stopReason ?? 'error')}: ${sanitizeLine(error)}${code ? ` (${sanitizeLine(code)})` : ''}${operator}`;
}
