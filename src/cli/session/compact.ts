/**
 * `logbook session compact ID`: the run compacted now (agent/compaction.ts),
 * with the config at hand as a resume would use it.
 */
import { sdkWarningSink } from '../errors.js';
import { retryPolicyFromText } from '../../agent/providers/retry.js';
import { resumeRun } from '../../agent/run.js';
import { CompactedError } from '../../agent/compaction.js';
import { agentFromConfig } from '../../config/agent.js';
import { LogbookError, isLogbookError, shellQuote } from '../../core/index.js';
import { sanitizeLine } from '../../render/sanitize.js';
import { resolveRunId } from '../../store/resolve.js';
import type { Store } from '../../store/store.js';
import type { Environment } from '../environment.js';
import { EXIT, type ExitCode } from '../exit-codes.js';
import { withAdvice } from '../advice.js';
import { createProgress } from '../progress.js';
import { resumeCommand } from '../resume-command.js';
import { onSuspendSignals } from '../signals.js';
import { requireConfig, storeFor, type StoreFlags } from '../store.js';

export interface CompactFlags extends StoreFlags {
  force?: boolean;
  verbose?: boolean;
}

/**
 * A task's run is never compacted: its agent's servers go on in it under its
 * own id (a takeover, the next request of its conversation), and would find
 * it ended in a hand-off to a run that no task names.
 */
async function refuseTaskRun(store: Store, id: string, flags: CompactFlags): Promise<void> {
  const { parseTaskOrigin, TASK_NOTE } = await import('../../agent/tasks/origin.js');
  const origin = parseTaskOrigin(await store.getNote(id, TASK_NOTE));
  if (origin === null) return;
  const fork = shellQuote(['logbook', 'session', 'fork', id, ...(flags.config !== undefined ? ['--config', flags.config] : []), ...(flags.stateDir !== undefined ? ['--state-dir', flags.stateDir] : [])]);
  throw new LogbookError(
    'usage',
    `run ${id} is the run of task ${origin.request} of agent ${origin.agent}, which goes on in it under its own id (a takeover, a follow-up in its conversation), so it is not compacted; ` +
      `to go on with its conversation with less context, fork it into a run of your own and go on there: ${fork}`,
  );
}

export async function compactSession(environment: Environment, given: string, flags: CompactFlags): Promise<ExitCode> {
  const config = requireConfig(flags.config, environment);
  const progress = createProgress(process.stderr, { tokens: false });
  const stop = onSuspendSignals(() => {});
  let store: Store | null = null;
  let close = async (): Promise<void> => {};
  try {
    const configured = await agentFromConfig(config, {
      env: environment.env,
      retry: retryPolicyFromText(environment.maxRetries, 'LOGBOOK_PROVIDER_MAX_RETRIES'),
      onRetry: (message) => progress.write(`${sanitizeLine(message)}\n`),
      onWarning: sdkWarningSink((line) => progress.write(`${line}\n`), flags.verbose === true),
      signal: stop.signal,
    });
    close = configured.close;
    store = await storeFor(environment, { config, stateDir: flags.stateDir });
    const id = await resolveRunId(store, given);
    await refuseTaskRun(store, id, flags);
    const compacted = (err: unknown): never => {
      if (err instanceof CompactedError) throw new LogbookError('compacted', `${err.message}: ${resumeCommand(err.into, flags)}`, { cause: err });
      throw err;
    };
    const run = await resumeRun(store, configured.agent, id, { ...(flags.force ? { force: true } : {}) }).catch(compacted);
    if (run.id !== id) {
      // Its compaction had stopped before its hand-off was done: resuming it finished that.
      await run.close();
      process.stderr.write(`run ${id} was compacted into run ${run.id} already; continue it with: ${resumeCommand(run.id, flags)}\n`);
      return EXIT.ok;
    }
    progress.start('compacting the conversation');
    // Another writer compacting it at the same time (where runs are not locked) makes the one summary call: this one names its continuation.
    const { into, at } = await run.compact({ signal: stop.signal }).catch(compacted);
    progress.stop();
    process.stdout.write(`${into}\n`);
    process.stderr.write(`compacted run ${id} at seq ${at} into run ${into}; continue it with: ${resumeCommand(into, flags)}\n`);
    return EXIT.ok;
  } catch (err) {
    if (stop.signal.aborted && isLogbookError(err, 'interrupted')) {
      progress.stop();
      process.stderr.write('stopped; nothing was compacted\n');
      return EXIT.interrupted;
    }
    throw withAdvice(err, { compacting: flags });
  } finally {
    progress.stop();
    stop.dispose();
    await close();
    await store?.close();
  }
}
