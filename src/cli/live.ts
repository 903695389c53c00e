/**
 * What a run shows while it works. The model's words are shown as they stream
 * (answer.ts): its text on stdout, where `logbook run ... > answer.txt` or
 * `| tee` takes it as it arrives, its thinking faint on stderr. Narration (the
 * calls, warnings, with --tool-output the results) goes to stderr, under a
 * spinner that says what is being waited for.
 */
import { spentUsdText } from '../agent/spend.js';
import { textOf, type LiveSpend, type RunObserver, type ToolCall } from '../agent/runner.js';
import type { ToolRegistry } from '../agent/tools/registry.js';
import { isLogbookError, toolUses, withheldKind, type Message, type RunState, type ToolResultBody } from '../core/index.js';
import { messageLine } from './errors.js';
import { callLine, callNoteText, remoteText, resultLines, sanitize, sanitizeLine, showResult } from '../render/index.js';
import { StreamedText, type StreamTarget } from './answer.js';
import type { taskView, TaskView } from './a2a/task-view.js';
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
  /** Where the model's text goes as it streams. */
  answer: StreamTarget;
  /** Where its thinking goes as it streams; none: thinking is not shown (stderr is not a terminal and not --verbose). */
  thinking?: StreamTarget;
  /**
   * Whether what was spent is shown (on the spinner, by a chat's /status): only
   * then is the run told it (`spent`), and so only then are its calls priced.
   */
  showSpend: boolean;
  /** How a task another agent does for a call is shown (cli/a2a/task-view.ts), given when the run has tools of other agents. */
  taskView?: typeof taskView;
}

/** The observer, and whether the run's last answer was shown (a resume may end on one already journaled). */
export interface LiveObserver extends RunObserver {
  /** Whether the text of the last assistant turn was shown by this process. */
  readonly showedLastAnswer: boolean;
  /** What was spent so far, as last told (undefined while nothing is priced). */
  readonly spend: LiveSpend | undefined;
  /**
   * Whether a retried call's answer disagreed with what the answer's stream (a
   * pipe) had already been given, so that it holds a cut start before the answer.
   */
  readonly answerRewritten: boolean;
  /**
   * Ctrl-O, /tools: tool results shown from now on, or hidden again. Shown, the
   * results of the last batch `state` holds are shown at once, under their calls.
   */
  toggleToolOutput(state: RunState): void;
}

const thinkingOf = (m: Message): string => m.content.flatMap((b) => ('thinking' in b && b.thinking.text ? [b.thinking.text] : [])).join('\n');

export function liveObserver(o: LiveOptions): LiveObserver {
  const { err, progress } = o;
  const s = err.style;
  /** The journaled turns' tokens, and what the call in flight reported so far of its own (its provider's stream). */
  let tokens = o.tokens;
  let streaming = 0;
  const count = (inFlight: number): void => {
    streaming = inFlight;
    progress.update(tokens + streaming);
  };
  let showedLastAnswer = false;
  let spend: LiveSpend | undefined;
  const say = (text: string): void => progress.write(text.endsWith('\n') ? text : `${text}\n`);
  const answer = new StreamedText(o.answer, () =>
    say(
      s.note(
        'the stream broke off after part of the answer had been written, and the answer asked for again differs from it: ' +
          'that part stays, then a line break and the whole answer (the journal holds the answer alone)',
      ),
    ),
  );
  const thinking = o.thinking !== undefined ? new StreamedText(o.thinking) : undefined;
  const call = (c: ToolCall, resolved: string | undefined, suffix = ''): string => callLine(c.name, c.input.text, { resolved, width: err.columns, suffix });
  let toolOutput = o.toolOutput;
  const result = (r: ToolResultBody): void => {
    if (!toolOutput) return;
    const lines = resultLines(showResult(r.content, r.is_error === true));
    for (const line of lines) say(s.faint(`  ${sanitizeLine(line)}`));
  };
  /** Thinking ends where the text begins. */
  const endThinking = (): void => {
    if (thinking?.started) thinking.cut();
  };

  /** The view of each call's task, by call id: another agent's events, shown indented under the call. */
  const tasks = new Map<string, TaskView>();

  return {
    get showedLastAnswer() {
      return showedLastAnswer;
    },
    get spend() {
      return spend;
    },
    get answerRewritten() {
      return answer.rewritten;
    },
    toggleToolOutput(state) {
      toolOutput = !toolOutput;
      if (!toolOutput) return say(s.note('tool output hidden (Ctrl-O or /tools shows it)'));
      say(s.note('tool output shown (Ctrl-O or /tools hides it)'));
      const batch = lastBatch(state);
      if (batch.length > 0) say(s.note('the last tool calls:'));
      for (const [c, r] of batch) {
        say(s.faint(call(c, o.tools.describe(c.name, c.input))));
        result(r);
      }
    },
    modelStart() {
      count(0);
      progress.start('waiting for the model');
      // While the request is out: the first words are then drawn as they come.
      setImmediate(() => {
        answer.prepare();
        thinking?.prepare();
      }).unref();
    },
    thinking(delta) {
      if (thinking === undefined) return;
      if (!thinking.started) progress.label('thinking');
      thinking.add(delta);
    },
    text(delta) {
      if (!answer.started) {
        endThinking();
        progress.label('answering');
      }
      answer.add(delta);
    },
    streamUsage(usage) {
      count(usage.inTokens + usage.outTokens);
    },
    streamEnd() {
      thinking?.flush();
      answer.flush();
    },
    restart() {
      count(0);
      thinking?.restart();
      if (answer.restart()) say(s.note('(the stream broke off; the answer again, from the start)'));
      progress.label('waiting for the model');
    },
    answerStopped() {
      count(0);
      endThinking();
      answer.cut();
      progress.stop();
      say(s.note('stopped; nothing of the answer is kept. What you type next joins the question; /retry asks it again'));
    },
    modelFailed(error, chatGoesOn) {
      count(0);
      endThinking();
      answer.cut();
      progress.stop();
      if (!chatGoesOn) return; // the run ends on it, and says so
      const message = error instanceof Error ? error.message : String(error);
      say(s.bad(`logbook: ${messageLine(message)}`));
      say(
        s.note(
          isLogbookError(error, 'context_exceeded')
            ? 'nothing of it is journaled, and a turn that makes it longer is refused too: /drop goes on without it'
            : isLogbookError(error, 'provider_refused')
            ? 'nothing of it is journaled: what you type next joins the turn, /drop goes on without it'
            : 'nothing of it is journaled: /retry asks again, what you type next joins the turn',
        ),
      );
    },
    assistant(message, usage, stopReason) {
      tokens += usage.inTokens + usage.outTokens;
      count(0);
      const streamedThinking = thinking?.started === true;
      endThinking();
      const prose = textOf(message);
      if (stopReason === 'refusal') {
        // A refusal is no answer: what streamed of it stays where it is, and what the model said is shown on stderr.
        const streamed = answer.showedAny;
        answer.cut();
        if (prose && !streamed) say(sanitize(prose));
      } else if (!answer.end(prose)) {
        say(s.note('(the journaled answer differs from what streamed; as journaled:)'));
        answer.add(prose);
        answer.end(prose);
      }
      showedLastAnswer = prose !== '' && stopReason !== 'refusal';
      progress.stop();
      if (o.verbose && !streamedThinking) {
        const text = thinkingOf(message);
        if (text) say(s.faint(sanitize(text)));
      }
      if (o.verbose) say(s.faint(`  (${usage.inTokens} in, ${usage.outTokens} out, stop: ${sanitizeLine(stopReason) || 'none'})`));
    },
    toolStart(c, resolved) {
      const remote = o.tools.get(c.name)?.remote;
      const where = remote === undefined ? '' : ` (${remoteText({ agent: sanitizeLine(remote.agent) })})`;
      say(s.call(call(c, resolved, where)));
      progress.start(`running ${sanitizeLine(c.name)}${where}`);
    },
    toolProgress(c, p) {
      let view = tasks.get(c.id);
      if (view === undefined) {
        if (o.taskView === undefined) return;
        view = o.taskView({ err, progress, agent: p.agent, indent: '  ', toolOutput, verbose: o.verbose });
        tasks.set(c.id, view);
      }
      view.show(p.message);
    },
    toolEnd(c, r) {
      tasks.delete(c.id);
      progress.stop();
      result(r);
    },
    toolsStopped() {
      progress.stop();
      say(s.note('tools stopped; the model reads so with your next turn (/retry tells it now)'));
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
      say(s.note(`warning: ${messageLine(message)}`));
    },
    awaitingInput() {
      progress.stop();
    },
    compacting(cause) {
      progress.stop();
      if (cause === 'threshold') say(s.note('the conversation is near the end of the context window: compacting it'));
      progress.start('compacting the conversation');
    },
    compacted(c) {
      progress.stop();
      say(s.note(`compacted run ${sanitizeLine(c.from)} (${c.inputBefore.toLocaleString('en-US')} tokens) into run ${sanitizeLine(c.into)}; going on there`));
    },
    ...(o.showSpend
      ? {
          spent(told: LiveSpend) {
            spend = told;
            progress.cost(spendText(told));
          },
        }
      : {}),
  };
}

/** The calls of the last tool batch `state` holds, with their results, in order (a batch in flight: those it has). */
function lastBatch(state: RunState): [ToolCall, ToolResultBody][] {
  const results = new Map<string, ToolResultBody>();
  let calls: ToolCall[] = [];
  const turns = state.pending !== null ? [...state.messages, state.pending.assistant] : state.messages;
  for (const r of state.pending?.results ?? []) results.set(r.tool_use_id, r);
  for (let i = turns.length - 1; i >= 0 && calls.length === 0; i--) {
    const m = turns[i]!;
    if (m.role !== 'assistant') continue;
    calls = toolUses(m);
    for (const b of turns[i + 1]?.content ?? []) if ('tool_result' in b) results.set(b.tool_result.tool_use_id, b.tool_result);
  }
  return calls.flatMap((c) => {
    const r = results.get(c.id);
    return r === undefined ? [] : [[c, r] as [ToolCall, ToolResultBody]];
  });
}

/** The spend the status line shows: the run's, and the conversation's when it was read and differs. */
export function spendText(spend: LiveSpend): string | null {
  const run = spend.run;
  if (run.calls === 0 && run.unpriced > 0 && spend.conversation === undefined) return null;
  const whole = spend.conversation;
  if (whole === undefined || whole.usd === run.usd) return spentUsdText(run);
  return `${spentUsdText(run)} (conversation ${spentUsdText(whole)})`;
}
