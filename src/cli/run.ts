/**
 * `logbook run`: a one-shot run, a chat (--chat), either journaled (--checkpoint
 * or --name), and the resume of a journaled run (--resume ID). Argument handling
 * and presentation only: the run itself is startRun/resumeRun and execute.
 */
import { readFileSync } from 'node:fs';
import { retryPolicyFromText } from '../agent/providers/retry.js';
import { resumeRun, startRun, type AgentRun } from '../agent/run.js';
import type { RunResult } from '../agent/runner.js';
import { agentFromConfig } from '../config/agent.js';
import { DEFAULT_CONFIG_FILE, loadConfig } from '../config/config.js';
import { LogbookError, RawJson, validateId } from '../core/index.js';
import { resumeNarration, sanitize } from '../render/index.js';
import type { Store } from '../store/store.js';
import { chatInput, type ClosableChatInput } from './chat-input.js';
import type { Environment } from './environment.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { liveObserver } from './live.js';
import { createProgress } from './progress.js';
import { onSuspendSignals } from './signals.js';
import { storeFor } from './store.js';
import { terminalFor } from './terminal.js';

export interface RunFlags {
  config?: string;
  checkpoint?: boolean;
  name?: string;
  resume?: string;
  force?: boolean;
  chat?: boolean;
  stateDir?: string;
  tui?: boolean;
  color?: boolean;
  toolOutput?: boolean;
  verbose?: boolean;
}

function usage(message: string): LogbookError {
  return new LogbookError('usage', message);
}

/** The prompt: the words given, else stdin when it is piped (and this is not a chat). */
function promptFrom(words: string[], flags: RunFlags): string {
  if (words.length > 0) return words.join(' ');
  if (!flags.chat && !process.stdin.isTTY) return readFileSync(0, 'utf8').trim();
  return '';
}

function checkFlags(words: string[], flags: RunFlags): void {
  if (flags.resume !== undefined) {
    if (words.length > 0) throw usage('--resume continues the journaled conversation and takes no PROMPT');
    if (flags.name !== undefined) throw usage('--resume and --name cannot be combined: the run keeps its id');
    validateId(flags.resume);
  } else if (flags.force) {
    throw usage('--force only applies to --resume');
  }
  if (flags.name !== undefined) validateId(flags.name);
}

export async function executeRun(words: string[], flags: RunFlags, environment: Environment): Promise<ExitCode> {
  checkFlags(words, flags);
  const config = loadConfig(flags.config ?? DEFAULT_CONFIG_FILE);
  const agent = await agentFromConfig(config, {
    env: environment.env,
    retry: retryPolicyFromText(environment.maxRetries, 'LOGBOOK_PROVIDER_MAX_RETRIES'),
    ...(environment.scriptLog !== undefined ? { scriptLog: environment.scriptLog } : {}),
  });
  const err = terminalFor(process.stderr, { env: environment.env, ...(flags.color === false ? { color: false } : {}) });
  const progress = createProgress(flags.tui === false ? { isTTY: false, write: (t: string) => process.stderr.write(t) } : process.stderr);
  const note = (text: string): void => progress.write(`${err.style.faint(text)}\n`);

  const journaled = flags.checkpoint === true || flags.name !== undefined || flags.resume !== undefined;
  let store: Store | null = null;
  let run: AgentRun | null = null;
  let input: ClosableChatInput | null = null;
  const suspend = onSuspendSignals((m) => note(m));
  try {
    if (journaled) store = await storeFor(environment, { config, stateDir: flags.stateDir });
    if (flags.resume !== undefined) {
      // Without --chat the run keeps the interactivity it was journaled with.
      run = await resumeRun(store!, agent, flags.resume, { force: flags.force === true, ...(flags.chat ? { interactive: true } : {}) });
      progress.write(
        resumeNarration(run.state, {
          // The input is journal text that already parsed as JSON: no need to check it again.
          describeCall: (name, inputJson) => agent.tools.describe(name, RawJson.fromValidText(inputJson)),
          ...(err.columns !== undefined ? { width: err.columns } : {}),
          style: err.style,
        }),
      );
      for (const w of run.warnings) progress.write(`${err.style.note(`warning: ${w}`)}\n`);
    } else {
      const interactive = flags.chat === true;
      const prompt = promptFrom(words, flags);
      if (prompt === '' && !interactive) throw usage('no prompt: give it as arguments, pipe it on stdin, or use --chat');
      run = await startRun(store, agent, { prompt, interactive, ...(flags.name !== undefined ? { id: flags.name } : {}) });
      if (store !== null) note(`run ${run.id} (${store.location}); resume it with: logbook run --resume ${run.id}`);
    }
    const interactive = run.state.interactive;
    if (interactive) input = chatInput();
    const counters = run.state.counters;
    const result = await run.execute({
      signal: suspend.signal,
      ...(input !== null ? { input } : {}),
      observer: liveObserver({
        err,
        progress,
        tools: agent.tools,
        toolOutput: flags.toolOutput === true,
        verbose: flags.verbose === true,
        tokens: counters.in_tokens + counters.out_tokens,
        ...(interactive ? { writeAnswer: (t: string) => process.stdout.write(t) } : {}),
      }),
    });
    progress.stop();
    if (!interactive && result.reason === 'completed' && result.finalText) process.stdout.write(`${sanitize(result.finalText)}\n`);
    return outcome(result, store !== null ? run.id : null, note);
  } finally {
    progress.stop();
    suspend.dispose();
    input?.close();
    await run?.close();
    await store?.close();
  }
}

/** The exit code of a run's end; a failure is thrown as its error, the resume command added. */
function outcome(result: RunResult, journaledId: string | null, note: (t: string) => void): ExitCode {
  const resumeHint = journaledId !== null ? `; resume with: logbook run --resume ${journaledId}` : '';
  switch (result.reason) {
    case 'completed':
      return EXIT.ok;
    case 'suspended':
      if (!result.interrupted) return EXIT.ok; // a chat the operator ended
      note(`suspended${resumeHint}`);
      return EXIT.suspended;
    case 'error': {
      const error = result.error ?? new LogbookError('internal', result.message ?? 'the run failed');
      throw new LogbookError(error.code, `${error.message}${resumeHint}`, { cause: error });
    }
    case 'budget':
    case 'max_iterations':
      // An outcome, not a failure of logbook: said on stderr, exit 1.
      process.stderr.write(`logbook: ${result.message}${resumeHint ? `${resumeHint} after raising the limit (and --force)` : ''}\n`);
      return EXIT.error;
  }
}
