/**
 * `logbook ask IDENTITY PROMPT`: hands agent IDENTITY one task and prints its
 * answer as its stream brings it (its prose on stdout, its tool calls on
 * stderr), or with --json the stream's messages themselves, one per line. The
 * request's id is said first: the same command with `--request ID` reads that
 * task's stream again from the start (sending nothing new once the task has
 * events), so an `ask` that was interrupted re-attaches to its task.
 */
import { promptOf } from '../stdio.js';
import { isSubjectToken, newMessageId } from '../../a2a/index.js';
import type { TaskEnd, TaskMessage } from '../../agent/tasks/index.js';
import { callerIdentity } from '../../agent/tools/remote/spec.js';
import { LogbookError, isLogbookError } from '../../core/index.js';
import { sanitize, sanitizeLine } from '../../render/sanitize.js';
import { dial, type Link } from '../../store/jetstream/connection.js';
import { LEADER_WAIT_MS } from '../../store/jetstream/election.js';
import type { Environment } from '../environment.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { createProgress } from '../progress.js';
import { onStopSignals } from '../signals.js';
import { requireConfig } from '../store.js';
import { terminalFor } from '../terminal.js';
import { identityArgument, requireNats } from './serve.js';
import { taskView } from './task-view.js';

export interface AskFlags {
  config?: string;
  conversation?: string;
  request?: string;
  json?: boolean;
  color?: boolean;
  tui?: boolean;
  toolOutput?: boolean;
  verbose?: boolean;
  /** For an agent named by its URL: the task to read again. */
  task?: string;
  /** For an agent named by its URL: the variable holding its bearer token. */
  tokenEnv?: string;
  /** For an agent named by its URL, with --task: approve, or deny (with a reason), what the task waiting for input asks. */
  approve?: boolean;
  deny?: boolean;
  reason?: string;
}

function usage(message: string): LogbookError {
  return new LogbookError('usage', message);
}

function checkId(flag: string, id: string | undefined): void {
  if (id !== undefined && !isSubjectToken(id)) throw usage(`${flag} takes a request id (no spaces, dots, * or >), not ${JSON.stringify(id)}`);
}

export async function ask(identity: string, words: string[], flags: AskFlags, environment: Environment): Promise<ExitCode> {
  if (/^https?:\/\//.test(identity)) {
    const { askHttp } = await import('./ask-http.js');
    return askHttp(identity, await promptOf(words), { ...flags }, environment);
  }
  const urlOnly = (['task', 'tokenEnv', 'approve', 'deny', 'reason'] as const).find((f) => flags[f] !== undefined);
  if (urlOnly !== undefined) throw usage(`--${urlOnly === 'tokenEnv' ? 'token-env' : urlOnly} is for an agent named by its URL (http://...)`);
  identityArgument(identity);
  checkId('--request', flags.request);
  checkId('--conversation', flags.conversation);
  const prompt = await promptOf(words);
  // Re-attaching to a task needs no prompt: the task has its own.
  if (prompt === '' && flags.request === undefined) throw usage('no prompt: give it as arguments, or pipe it on stdin');
  const config = requireConfig(flags.config, environment);
  const nats = requireNats(config, 'ask');
  const err = terminalFor(process.stderr, { env: environment.env, ...(flags.color === false ? { color: false } : {}) });
  const progress = createProgress(flags.tui === false || flags.json ? { isTTY: false, write: (t: string) => process.stderr.write(t) } : process.stderr);
  const note = (text: string): void => progress.write(`${err.style.faint(sanitizeLine(text))}\n`);
  const id = flags.request ?? newMessageId();
  const stop = onStopSignals(() => {});
  let link: Link | null = null;
  try {
    link = await dial(nats, { leaderWaitMs: LEADER_WAIT_MS });
    const { TaskCaller } = await import('../../agent/tasks/index.js');
    const caller = new TaskCaller(link, { tasks: config.a2a.tasks_stream, events: config.a2a.events_stream });
    const view = taskView({
      err,
      progress,
      agent: identity,
      writeText: (t) => void process.stdout.write(t),
      toolOutput: flags.toolOutput === true,
      verbose: flags.verbose === true,
    });
    progress.start(`asking agent ${identity}`);
    let end: TaskEnd;
    const reading = {
      signal: stop.signal,
      onMessage: (message: TaskMessage, body: string) => (flags.json ? void process.stdout.write(`${body}\n`) : view.show(message)),
    };
    try {
      const sender = callerIdentity(config.a2a);
      const where = await caller.eventsOf(identity, id, sender);
      if (prompt === '') {
        if (!(await caller.begun(identity, where))) {
          throw usage(`task ${id} of agent ${identity} has no events yet (not taken up, or never sent): give its prompt to send it`);
        }
        note(`reading the events of task ${id} again`);
      }
      end = prompt === '' ? await caller.await(where, identity, reading) : await caller.ask(
        {
          id,
          agent: identity,
          sender,
          prompt,
          ...(flags.conversation !== undefined ? { conversation: flags.conversation } : {}),
        },
        {
          signal: stop.signal,
          onSent: (sent) => {
            note(sent ? `task ${id} sent to agent ${identity}` : `task ${id} was sent before: reading its events again`);
            progress.start(`waiting for agent ${identity} to take the task`);
            void caller.servers(identity).then((there) => {
              if (there === 'none') note(`no logbook serve of agent ${identity} has taken a task yet: the task waits in stream ${config.a2a.tasks_stream} until one does`);
              else if (there === 'away') note(`no server of agent ${identity} seems to be running: the task waits in stream ${config.a2a.tasks_stream} until one takes it`);
            }, () => {});
          },
          onMessage: reading.onMessage,
        },
      );
    } catch (e) {
      if (!isLogbookError(e, 'interrupted')) throw e;
      progress.stop();
      note(`stopped reading; the task goes on. Read it again with: logbook ask ${identity} --request ${id}; cancel it with: logbook tasks cancel ${identity} ${id}`);
      return EXIT.interrupted;
    }
    progress.stop();
    return outcome(end, identity, view.shownText || flags.json === true);
  } finally {
    progress.stop();
    stop.dispose();
    await link?.close().catch(() => {});
  }
}

/** The exit of a task's end; its answer printed when its events carried none. */
function outcome(end: TaskEnd, agent: string, shown: boolean): ExitCode {
  const who = sanitizeLine(agent);
  switch (end.kind) {
    case 'refused':
      throw new LogbookError('agent_refused', `agent ${who} refused the task: ${end.message.reason ?? 'no reason given'}`);
    case 'error': {
      const { error, code, stop_reason } = end.message;
      // Said once: a cancel's error names it already ("canceled by ..."), and its code is its stop reason.
      const how = stop_reason !== undefined && error.startsWith(stop_reason) ? '' : ` ${stop_reason ?? 'error'}`;
      const why = code && code !== stop_reason ? ` (${code})` : '';
      throw new LogbookError('agent_refused', `agent ${who} ended the task${how}: ${error}${why}`);
    }
    case 'result': {
      const { stop_reason, text } = end.message;
      if (!shown && text) process.stdout.write(`${sanitize(text)}\n`);
      if (stop_reason === 'end_turn' || stop_reason === 'max_tokens') return EXIT.ok;
      process.stderr.write(`logbook: agent ${who} stopped the task before finishing it (${stop_reason})\n`);
      return EXIT.error;
    }
  }
}
