/**
 * `logbook run`: a one-shot run, a chat (--chat), either journaled (--checkpoint
 * or --name), and the resume of a journaled run (--resume ID).
 */
import { readFileSync } from 'node:fs';
import { freshStart, generateRunId, newRunMeta, resumeRun, resumeStart } from '../agent/session.js';
import { JournalWriter } from '../agent/journal-writer.js';
import { runAgent, type RunResult } from '../agent/runner.js';
import { DEFAULT_CONFIG_FILE, loadConfig } from '../config/config.js';
import { LogbookError, RawJson, validateId } from '../core/index.js';
import { resumeNarration, sanitize } from '../render/index.js';
import type { Journal, Store } from '../store/store.js';
import { chatInput, type ClosableChatInput } from './chat-input.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import { liveObserver } from './live.js';
import { createProgress } from './progress.js';
import { onSuspendSignals } from './signals.js';
import { storeFor } from './store.js';
import { terminalFor } from './terminal.js';
import { runParts } from './wiring.js';

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

export async function executeRun(words: string[], flags: RunFlags): Promise<ExitCode> {
  if (flags.resume !== undefined) {
    if (words.length > 0) throw usage('--resume continues the journaled conversation and takes no PROMPT');
    if (flags.name !== undefined) throw usage('--resume and --name cannot be combined: the run keeps its id');
    validateId(flags.resume);
  } else if (flags.force) {
    throw usage('--force only applies to --resume');
  }
  if (flags.name !== undefined) validateId(flags.name);

  const config = loadConfig(flags.config ?? DEFAULT_CONFIG_FILE);
  const parts = await runParts(config);
  const err = terminalFor(process.stderr, flags.color === false ? { color: false } : {});
  const progress = createProgress(flags.tui === false ? { isTTY: false, write: (t: string) => process.stderr.write(t) } : process.stderr);
  const note = (text: string): void => progress.write(`${err.style.faint(text)}\n`);

  const journaled = flags.checkpoint === true || flags.name !== undefined || flags.resume !== undefined;
  let store: Store | null = null;
  let journal: Journal | null = null;
  let input: ClosableChatInput | null = null;
  const suspend = onSuspendSignals((m) => note(m));
  try {
    let interactive = flags.chat === true;
    let start = freshStart('');
    let tokens = 0;
    if (journaled) store = await storeFor({ config, ...(flags.stateDir !== undefined ? { stateDir: flags.stateDir } : {}) });

    if (flags.resume !== undefined) {
      const resumed = await resumeRun(store!, flags.resume, {
        fingerprint: parts.fingerprint,
        // Without --chat the run keeps the interactivity it was journaled with.
        interactive: flags.chat === true ? true : undefined,
        force: flags.force === true,
      });
      journal = resumed.journal;
      interactive = resumed.state.interactive;
      start = resumeStart(resumed.state);
      tokens = resumed.state.counters.in_tokens + resumed.state.counters.out_tokens;
      progress.write(
        resumeNarration(resumed.state, {
          // The input is journal text that already parsed as JSON: no need to check it again.
          describeCall: (name, inputJson) => parts.tools.describe(name, RawJson.fromValidText(inputJson)),
          ...(err.columns !== undefined ? { width: err.columns } : {}),
          style: err.style,
        }),
      );
      for (const w of resumed.warnings) progress.write(`${err.style.note(`warning: ${w}`)}\n`);
    } else {
      const prompt = promptFrom(words, flags);
      if (prompt === '' && !interactive) throw usage('no prompt: give it as arguments, pipe it on stdin, or use --chat');
      start = freshStart(prompt);
      if (journaled) {
        const id = flags.name ?? generateRunId();
        journal = await store!.create(id, newRunMeta(id, parts.fingerprint, prompt, interactive));
        note(`run ${id} (${store!.location}); resume it with: logbook run --resume ${id}`);
      }
    }
    if (interactive) input = chatInput();

    const result: RunResult = await runAgent(parts.agent, start, {
      writer: new JournalWriter(journal),
      interactive,
      signal: suspend.signal,
      ...(input !== null ? { input } : {}),
      observer: liveObserver({
        err,
        progress,
        tools: parts.tools,
        toolOutput: flags.toolOutput === true,
        verbose: flags.verbose === true,
        tokens,
        ...(interactive ? { writeAnswer: (t: string) => process.stdout.write(t) } : {}),
      }),
    });
    progress.stop();
    if (!interactive && result.reason === 'completed' && result.finalText) process.stdout.write(`${sanitize(result.finalText)}\n`);
    return outcome(result, journal, note);
  } finally {
    progress.stop();
    suspend.dispose();
    input?.close();
    await journal?.close();
    await store?.close();
  }
}

function outcome(result: RunResult, journal: Journal | null, note: (t: string) => void): ExitCode {
  const resumeHint = journal !== null ? `; resume with: logbook run --resume ${journal.runId}` : '';
  switch (result.reason) {
    case 'completed':
      return EXIT.ok;
    case 'suspended':
      if (!result.interrupted) return EXIT.ok; // a chat the operator ended
      note(`suspended${resumeHint}`);
      return EXIT.suspended;
    case 'error':
      throw new LogbookError(result.code ?? 'unavailable', `${result.message ?? 'the run failed'}${resumeHint}`);
    case 'budget':
    case 'max_iterations':
      throw new LogbookError(
        result.reason === 'budget' ? 'budget_spent' : 'max_iterations',
        `${result.message}${resumeHint ? `${resumeHint} after raising the limit (and --force)` : ''}`,
      );
  }
}
