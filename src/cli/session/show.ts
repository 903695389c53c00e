/**
 * `logbook session show ID`: where a run stands, in plain words, and what a
 * resume would do, then its fields. Every journal string is sanitized.
 */
import { awaitsTypedTurn } from '../../agent/compaction.js';
import { awaitsInput, capOfEnd } from '../../agent/run-rests.js';
import { answerShortfall, groupedDigits as count, awaitedCall, shortfallText, isCanceledMessage, messageText, outlineTimeSummary, outlineTimings, possiblyStartedCall, toolUses, type RecordOutline, type RunState } from '../../core/index.js';
import { formatDuration } from '../../render/durations.js';
import { sanitize, sanitizeLine } from '../../render/sanitize.js';
import { textHead } from '../../render/text-head.js';
import { remoteCountText, type ToolAgents } from '../../render/remote-count.js';
import { listedStatus, type FoldedRun, type ForkOrigin, type ListedStatus, type RunPlace } from '../../store/store.js';
import { fields, shortTime } from '../fields.js';
import { factFields, type RunFacts } from '../../api/long-run-facts.js';

/** Where a run stands: its listed status, that in words, and what a resume would do. */
export interface Standing {
  status: ListedStatus;
  where: string;
  next: string;
}

/**
 * A run as `session show` reads it: folded as it was read, with its records'
 * outline in place of the records, and, when its conversation was taken out
 * of the state as it folded, what the summary reads of it (ShownConversation).
 */
export interface ShownRun extends FoldedRun {
  outline: RecordOutline;
  conversation?: ShownConversation;
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/**
 * Whether a tool has side effects, as the config at hand says (true, false),
 * or undefined when no config is at hand or it does not say.
 */
export type SideEffects = (toolName: string) => boolean | undefined;

/**
 * Where a run rests and what a resume does first there: finish the pending
 * tool batch, wait for input, record the end, or call the model; then the
 * command to type.
 */
function resumeFrom(state: RunState, resume: string, sideEffects: SideEffects, inputDue: boolean): { where: string; next: string } {
  const p = state.pending;
  if (p !== null) {
    const total = toolUses(p.assistant).length;
    const missing = total - p.answered.length;
    const where = `in the middle of a tool batch, ${p.answered.length} of ${plural(total, 'call')} answered`;
    const started = possiblyStartedCall(state);
    const effects = started === undefined ? undefined : sideEffects(started.name);
    if (started !== undefined && effects === true) {
      const id = sanitizeLine(started.id);
      return {
        where: `${where}; call ${id} (${sanitizeLine(started.name)}) may have been running when the run stopped, and its tool has side effects (the config says)`,
        next:
          `a resume runs the ${plural(missing, 'missing call')} (answered ones are not run again), then asks the model to go on; ` +
          `call ${id} is not run again unasked: the resume asks on a terminal, else give ${resume} --rerun ${id} (run it again) or ${resume} --skip ${id}`,
      };
    }
    if (started !== undefined && effects === false) {
      const id = sanitizeLine(started.id);
      return {
        where: `${where}; call ${id} (${sanitizeLine(started.name)}) may have been running when the run stopped; its tool has no side effects (the config says)`,
        next:
          missing === 1
            ? `a resume runs call ${id} again (answered ones are not run again), then asks the model to go on: ${resume}`
            : `a resume runs the ${plural(missing, 'missing call')}, call ${id} again among them (answered ones are not run again), then asks the model to go on: ${resume}`,
      };
    }
    if (started !== undefined) {
      // No config at hand says whether its tool has side effects: say both ways.
      const id = sanitizeLine(started.id);
      return {
        where: `${where}; call ${id} (${sanitizeLine(started.name)}) may have been running when the run stopped`,
        next:
          `a resume runs the ${plural(missing, 'missing call')} (answered ones are not run again), then asks the model to go on; ` +
          `if call ${id}'s tool has side effects, it is not run again unasked: the resume asks on a terminal, else give ${resume} --rerun ${id} (run it again) or ${resume} --skip ${id}`,
      };
    }
    return {
      where,
      next: `a resume runs the ${plural(missing, 'missing call')} (answered ones are not run again), then asks the model to go on: ${resume}`,
    };
  }
  if (inputDue || awaitsInput(state)) {
    return state.interactive
      ? { where: 'waiting for input', next: `a resume opens the chat again (a prompt given with it is the next turn): ${resume}` }
      : { where: "after the model's final answer", next: `a resume records it as completed: ${resume}` };
  }
  return { where: "before the model's next turn", next: `a resume asks the model for it: ${resume}` };
}

/** The status as `session ls` gives it, with the end's message: for one-line titles. */
export function statusText(state: RunState, held: boolean | undefined): string {
  const status = sanitizeLine(listedStatus(state.status, held)); // a newer writer's reason is shown as read
  const message = state.status === 'open' ? undefined : state.terminal?.message;
  return message ? `${status}: ${sanitizeLine(message)}` : status;
}

/** `label (message)`, or the label alone when the run's end gave no message. */
const withMessage = (label: string, message: string): string => (message === '' ? label : `${label} (${message})`);

/** A max_iterations stop's journaled message without what the label says already: `after 20 model calls`. */
const iterationsMessage = (message: string): string => message.replace(/^stopped /, '').replace(/ \(max_iterations\)$/, '');

/**
 * Where run `state` stands and what a resume would do, given whether a writer
 * holds it (undefined: cannot tell) and where it was forked from; `inputDue`:
 * it waits for a typed turn though its last message is a user turn (a chat's
 * continuation, compaction.ts awaitsTypedTurn).
 */
export function standing(
  state: RunState,
  held: boolean | undefined,
  resume: string,
  origin?: ForkOrigin | null,
  sideEffects: SideEffects = () => undefined,
  inputDue = false,
  failureNext?: string,
): Standing {
  const status = listedStatus(state.status, held, origin ? { origin, lastSeq: state.last_seq } : undefined);
  const message = state.status !== 'open' && state.terminal?.message ? sanitizeLine(state.terminal.message) : '';
  const from = resumeFrom(state, resume, sideEffects, inputDue);
  const awaited = awaitedCall(state);
  switch (status) {
    case 'running':
      return {
        status,
        where: 'running: a logbook process holds it now',
        next: 'a resume is refused while that process holds it; wait for it to end, or stop it first',
      };
    case 'completed': {
      const shortfall = answerShortfall(state);
      if (shortfall === 'cut') {
        return {
          status,
          where: `completed, but ${shortfallText(shortfall, state.fingerprint.max_tokens)}: it ends where the limit fell`,
          next: `raise max_tokens in the config, then ask for the rest as a new run (--force: max_tokens is part of the run's fingerprint): ${resume} --force "go on"`,
        };
      }
      return {
        status,
        where: shortfall === 'empty' ? `completed, but ${shortfallText(shortfall, state.fingerprint.max_tokens)}` : 'completed: the model gave its final answer',
        next: `a resume does not run it again; a prompt given with it continues the conversation as a new run: ${resume} PROMPT`,
      };
    }
    case 'forked':
      return {
        status,
        where: `forked from run ${sanitizeLine(origin!.from)} at seq ${origin!.at}, nothing run in it since; ${from.where}`,
        next: from.next,
      };
    case 'suspended':
      if (awaited !== undefined) {
        const id = sanitizeLine(awaited.id);
        return {
          status,
          where: `suspended before call ${id} (${sanitizeLine(awaited.name)}), which awaits an approval`,
          next: `approve it with: ${resume} --approve ${id}, or deny it with: ${resume} --deny ${id}`,
        };
      }
      // A cancel is said with who gave it: a canceled task's run reads otherwise as one that paused.
      if (isCanceledMessage(state.terminal?.message)) return { status, where: `suspended: ${message}, ${from.where}`, next: from.next };
      return { status, where: `suspended, ${from.where}`, next: from.next };
    case 'interrupted':
      return { status, where: `interrupted (its writer stopped without ending it), ${from.where}`, next: from.next };
    case 'open':
      return {
        status,
        where: `${from.where}, with no end recorded: running, or its writer stopped without ending it (this store cannot tell which)`,
        next: `if nothing runs it, ${from.next}`,
      };
    case 'error':
      return { status, where: `failed: ${message || 'no message was recorded'}; stopped ${from.where}`, next: failureNext ?? from.next };
    case 'budget': {
      const cap = capOfEnd(state.terminal?.message);
      return {
        status,
        where: withMessage(cap === 'budget' ? 'stopped at its token budget' : 'stopped at its spend cap', message),
        next: `raise ${cap} in the config, then resume: ${resume}`,
      };
    }
    case 'max_iterations':
      return state.interactive
        ? { status, where: withMessage('stopped at max_iterations for one typed turn', iterationsMessage(message)), next: `a resume gets a fresh allowance: ${resume}` }
        : {
            status,
            where: withMessage('stopped at max_iterations', iterationsMessage(message)),
            next: `raise max_iterations in the config, then resume with --force (it is part of the run's fingerprint): ${resume} --force`,
          };
    default:
      return { status, where: withMessage(sanitizeLine(status), message), next: from.next }; // a newer writer's reason
  }
}

/** A summary shows this much of a prompt; --transcript and export show it all. */
const PROMPT_HEAD = { lines: 20, chars: 2000 };

/** Text indented, cut to PROMPT_HEAD with a line saying how much was left out. */
function shownText(full: string): string {
  if (full === '') return '  (none)';
  const { text, left } = textHead(full, PROMPT_HEAD);
  const indented = sanitize(text).replace(/^/gm, '  ');
  return left > 0 ? `${indented}\n  ... (${count(left)} more characters; --transcript shows it all)` : indented;
}

/**
 * What the run's model and tool calls took, from the times kept beside it: the
 * total, how many calls that covers, and the slowest; or that none were kept.
 */
export function timeFields(run: ShownRun): [string, string][] {
  if (run.times.records.size === 0) return [['time', 'no times kept beside this run (written by the reference, or copied)']];
  const { model, tools } = outlineTimeSummary(run.outline, outlineTimings(run.outline, run.times));
  const covered = (timed: number, calls: number): string => (timed === calls ? '' : `, ${count(timed)} of them timed`);
  const modelText =
    model.calls === 0
      ? 'none'
      : `${formatDuration(model.ms)} in ${plural(model.calls, 'call')}${covered(model.timed, model.calls)}` +
        (model.slowest && model.calls > 1 ? ` (slowest ${formatDuration(model.slowest.ms)}, turn ${model.slowest.turn + 1})` : '');
  const toolText =
    tools.calls === 0
      ? 'none'
      : `${formatDuration(tools.ms)} in ${plural(tools.calls, 'call')}${covered(tools.timed, tools.calls)}` +
        (tools.slowest && tools.calls > 1 ? ` (slowest ${formatDuration(tools.slowest.ms)}, ${sanitizeLine(tools.slowest.name)} ${sanitizeLine(tools.slowest.callId)})` : '');
  return [
    ['model time', modelText],
    ['tool time', toolText],
  ];
}


/**
 * The conversation as the summary reads it, while the run folds: after each
 * record (`folded`) every message but the last two (what a step reads: the
 * trailing message, and the turn before it) is taken out of the state, so a
 * long run's conversation is never held whole; of those taken it keeps what
 * the summary reads of them, the last answer's text and the last typed turn's.
 * Everything else the summary says of the conversation is read from the
 * state's tail, its pending turn and counters, or the records' outline. The
 * state's `messages` are then only its tail: nothing but the summary may read them.
 */
export class ShownConversation {
  /** How many messages were taken out of the state, from its first (the prompt's) on. */
  private taken = 0;
  /** The text of the last answer taken out: the latest assistant turn with any. */
  private answer = '';
  /** The text of the last typed turn taken out (a user turn after the first, with text). */
  private typed: string | undefined;

  /** After a record was folded into `state` (its meta the first). */
  folded(state: RunState): void {
    const { messages } = state;
    const drop = messages.length - 2;
    if (drop <= 0) return;
    // The latest of each kind among those taken, read from the last back; earlier ones are never shown.
    let answer = false;
    let typed = false;
    for (let i = drop - 1; i >= 0 && !(answer && typed); i--) {
      const m = messages[i]!;
      if (m.role === 'assistant') {
        if (answer) continue;
        const text = messageText(m);
        if (text.trim() === '') continue;
        this.answer = text;
        answer = true;
      } else if (!typed && this.taken + i > 0) {
        const text = messageText(m);
        if (text === '') continue;
        this.typed = text;
        typed = true;
      }
    }
    messages.splice(0, drop);
    this.taken += drop;
  }

  /** How many messages were taken out of the state before its first. */
  get before(): number {
    return this.taken;
  }

  /** The last answer's text among the messages taken out ('' when none had any). */
  get earlierAnswer(): string {
    return this.answer;
  }

  /** The last typed turn's text among the messages taken out. */
  get earlierTyped(): string | undefined {
    return this.typed;
  }
}

/**
 * What the model said last: the text of its latest turn that has any (the turn
 * in flight included), in the state's conversation, then among the turns
 * `conversation` took out of it.
 */
export function lastAnswer(state: RunState, conversation?: ShownConversation): string {
  const { messages, pending } = state;
  for (let i = messages.length - (pending !== null ? 0 : 1); i >= 0; i--) {
    const turn = i === messages.length ? pending!.assistant : messages[i]!;
    if (turn.role !== 'assistant') continue;
    const text = messageText(turn);
    if (text.trim() !== '') return text;
  }
  return conversation?.earlierAnswer ?? '';
}

/** The last turn the operator typed, when one was typed after the prompt: in the state's conversation, then among those `conversation` took out. */
function lastTyped(state: RunState, conversation?: ShownConversation): string | undefined {
  const before = conversation?.before ?? 0;
  for (let i = state.messages.length - 1; i >= 0 && before + i > 0; i--) {
    const m = state.messages[i]!;
    if (m.role !== 'user') continue;
    const text = messageText(m);
    if (text !== '') return text;
  }
  return conversation?.earlierTyped;
}

/** What `session show` knows beside the run: its origin, where it was started, the agents its remote calls went to, and the config at hand. */
export interface ShowContext {
  origin?: ForkOrigin | null;
  /** For a run that failed in a way a resume would meet again (the code kept beside it says): what to do instead. */
  failureNext?: string;
  place?: RunPlace | null;
  agents?: ToolAgents;
  sideEffects?: SideEffects;
  /** What it spent, and the compactions it took part in. */
  facts?: RunFacts;
  /** The model's context window, when known: what the last request's input is a part of. */
  contextWindow?: number;
  /** The command that resumes the run's continuation, when it was compacted. */
  continuationResume?: string;
  /** Fields after the run's own: how it is linked to tasks (task-links.ts). */
  more?: [string, string][];
}

/** The tool calls run, and apart from them those refused without running (the fold counts both, as the reference does). */
function toolCallsText(run: ShownRun, agents: ToolAgents): string {
  const refused = run.outline.neverRun.size;
  const ran = `${count(run.state.counters.tool_calls - refused)} (${remoteCountText(run.state, agents, { ids: run.outline.callIds, names: run.outline.callNames })})`;
  return refused === 0 ? ran : `${ran}; ${count(refused)} more refused, never run (input not JSON, or an id repeated)`;
}

/** How full the context window was at the last request. */
function contextText(state: RunState, window: number | undefined): string {
  const used = state.last_input_tokens;
  if (used === 0) return '';
  const part = window === undefined ? '' : ` (${Math.round((100 * used) / window)}% of a ${count(window)}-token window)`;
  return `${count(used)} tokens at the last request${part}`;
}

/** The block `session show` prints: where the run stands, then its fields, prompt, last typed turn and last answer. */
export function formatShow(run: ShownRun, resume: string, context: ShowContext = {}): string {
  const { state } = run;
  const c = state.counters;
  const f = state.fingerprint;
  const { origin, place, agents = {} } = context;
  const compacted = context.facts?.compacted;
  const handedOff = compacted !== undefined && state.last_seq > compacted.at && context.continuationResume !== undefined;
  // A compaction whose summary is kept but whose hand-off a stop cut short (no writer holds the run): a resume finishes it.
  const handOffDue = compacted !== undefined && state.last_seq === compacted.at && run.held !== true;
  const at = handedOff
    ? {
        status: listedStatus(state.status, run.held),
        where: `compacted at seq ${compacted.at} into run ${sanitizeLine(compacted.into)}, where its conversation goes on; every record of it is kept here`,
        next: `a resume of it is refused; resume the continuation: ${context.continuationResume}`,
      }
    : handOffDue
      ? {
          status: listedStatus(state.status, run.held),
          where: `being compacted into run ${sanitizeLine(compacted.into)} at seq ${compacted.at} when its writer stopped: the summary is kept, the hand-off to the continuation is not finished`,
          next: `a resume finishes the hand-off (no second summary is paid) and goes on in run ${sanitizeLine(compacted.into)}: ${resume}`,
        }
      : standing(state, run.held, resume, origin, context.sideEffects, context.facts?.continues !== undefined && awaitsTypedTurn(context.facts.continues, state), context.failureNext);
  const pairs: [string, string][] = [
    ['run', state.run_id],
    ['status', at.status],
    ['where', at.where],
    ['next', at.next],
    ['forked from', origin && !origin.compacted ? `run ${sanitizeLine(origin.from)}, up to seq ${origin.at}` : ''],
    ['started in', place ? `${sanitizeLine(place.dir)}${place.config !== undefined ? ` (config ${sanitizeLine(place.config)})` : ''}` : ''],
    ['model', `${sanitizeLine(f.model)} (${sanitizeLine(f.provider)})`],
    ['interactive', state.interactive ? 'yes' : 'no'],
    ['created', sanitizeLine(shortTime(run.created))],
    ['updated', shortTime(run.updated)],
    ['model calls', count(c.llm_calls)],
    ['tool calls', toolCallsText(run, agents)],
    ['tokens', `${count(c.in_tokens)} in, ${count(c.out_tokens)} out`],
    ['cache', `${count(c.cache_read_tokens)} read, ${count(c.cache_create_tokens)} created`],
    ...timeFields(run),
    ['context', contextText(state, context.contextWindow)],
    ...(context.facts !== undefined ? factFields(context.facts) : []),
    ...(context.more ?? []),
  ];
  const typed = lastTyped(state, run.conversation);
  const answer = lastAnswer(state, run.conversation);
  return (
    `${fields(pairs.filter(([, v]) => v !== ''))}prompt\n${shownText(state.prompt)}\n` +
    (typed !== undefined && typed !== state.prompt ? `last typed turn\n${shownText(typed)}\n` : '') +
    (answer !== '' ? `last answer\n${shownText(answer)}\n` : '')
  );
}
