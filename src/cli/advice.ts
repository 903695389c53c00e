/**
 * What the command tells a person to do about an error. The layers below say
 * what is wrong and name no command, since a program reads their errors too;
 * the command adds the one to type, keyed on the error's code and the run or
 * call it concerns (LogbookError.details), in this one place.
 */
import { LogbookError, isLogbookError, type RunState } from '../core/index.js';
import { firstRequestTooLongAdvice, refusedRequestAdvice } from './refused-request.js';
import { compactCommand, resumeCommand, type ResumeFlags } from './resume-command.js';

/** What a command knows that the error cannot: how it was asked to go on. */
export interface AdviceContext {
  /** The run was resumed with --chat. */
  chat?: boolean;
  /** The command compacts the run (`session compact`), with these flags: what it cannot compact is advised on. */
  compacting?: ResumeFlags;
  /** The error ended this run: how to go on with it. */
  ended?: EndedRun;
}

/** A run an error ended, as the command that ran it knows it. */
export interface EndedRun {
  state: RunState;
  /** The command that resumes it; null when none is offered (the run is not journaled). */
  resume: string | null;
  flags: ResumeFlags;
  /** The variable its provider reads the API key from, for a refused key. */
  keyVariable?: string;
}

/** How to go on with a run an error ended: mostly its resume, unless that would meet the same error. */
function endedAdvice(err: LogbookError, { state, resume, flags, keyVariable }: EndedRun): string | null {
  if (resume === null) return null;
  switch (err.code) {
    case 'journal_gone':
      return null; // the error says what to do: there is no journal left to resume
    case 'provider_refused':
      return refusedRequestAdvice(state, flags);
    case 'context_exceeded':
      if (err.details.runId !== undefined) {
        return `compact it, then resume where that says: ${compactCommand(err.details.runId, flags)} (or set compact_at in the config, so that runs compact by themselves)`;
      }
      return [firstRequestTooLongAdvice(state), `the journal is kept: logbook session show ${state.run_id}`].filter((p) => p !== null).join('; ');
    case 'provider_auth':
      return `check the API key${keyVariable !== undefined ? ` (${keyVariable})` : ''}, then resume with: ${resume}`;
    default:
      return `resume with: ${resume}`;
  }
}

/** An error whose message holds its advice already: it is not advised twice. */
class Advised extends LogbookError {}

function advice(err: LogbookError, context: AdviceContext): string | null {
  const parts = [context.ended !== undefined ? endedAdvice(err, context.ended) : null, codeAdvice(err, context)].filter((p) => p !== null);
  return parts.length > 0 ? parts.join('; ') : null;
}

function codeAdvice(err: LogbookError, context: AdviceContext): string | null {
  const { runId, callId } = err.details;
  switch (err.code) {
    case 'not_found':
      return runId !== undefined ? '`logbook session ls` lists the runs' : null;
    case 'exists':
      return runId !== undefined ? `pick another id or remove it with \`logbook session rm ${runId}\`` : null;
    case 'already_completed':
      if (context.compacting !== undefined && runId !== undefined) {
        return `a completed run is not compacted: ask a follow-up, which goes on in a new run that is compacted as it nears the context window: ${resumeCommand(runId, context.compacting)} PROMPT`;
      }
      return 'give a prompt to ask a follow-up (it continues as a new run), or start a new run';
    case 'interactivity_mismatch':
      return context.chat === true ? 'resume it without --chat' : 'resume it with --chat';
    case 'config_drift':
      return 'restore it, or pass --force to resume anyway';
    case 'not_at_input':
      return 'resume it without a prompt to finish that first';
    case 'in_tool_batch':
      return runId !== undefined ? `finish the batch first: ${resumeCommand(runId, context.compacting ?? {})} (the run goes on from there, and is compacted as it nears the context window)` : null;
    case 'provider_auth':
      // A key missing before any run: the command's config names its variable.
      return context.ended === undefined ? 'api_key_env in the config names the variable the key is read from' : null;
    case 'corrupt':
      // Whether a line does not decode or its record does not fold: the stored lines are still there to read.
      return runId !== undefined ? `the journal is damaged; \`logbook session export ${runId} --format jsonl\` still prints its lines as they are stored` : null;
    case 'interrupted_call':
      return callId !== undefined ? `resume with --rerun ${callId} to run it again, or --skip ${callId} to tell the model it was not re-run` : null;
    default:
      return null;
  }
}

/**
 * `err` with the command's advice after its message (the same code, details
 * and cause), or `err` itself when there is none or it was advised already.
 */
export function withAdvice(err: unknown, context: AdviceContext = {}): unknown {
  if (!isLogbookError(err) || err instanceof Advised) return err;
  const more = advice(err, context);
  if (more === null) return err;
  return new Advised(err.code, `${err.message}; ${more}`, { cause: err, details: err.details });
}

/** The message a person reads for `err`: its own, with the command's advice. */
export function advisedMessage(err: unknown): string {
  const advised = withAdvice(err);
  return advised instanceof Error ? advised.message : String(advised);
}
