/**
 * The resume gates, in their fixed order. Each refusal is a typed error that
 * names the run and what stands in the way. The order matters: the provider is
 * checked before drift so its message is unambiguous, and it is the one change
 * that forcing cannot override.
 */
import { LogbookError } from './errors.js';
import { fingerprintDiff, type ToolSets } from './fingerprint.js';
import type { RunState } from './fold.js';
import type { Fingerprint } from './records.js';

export interface ResumeRequest {
  /** The fingerprint of the configuration the resume would run with. */
  fingerprint: Fingerprint;
  /** The tool sets behind the fingerprints, when known, to name the tools that changed. */
  toolSets?: ToolSets;
  interactive: boolean;
  /** Accept configuration drift other than a provider change. */
  force: boolean;
  /**
   * The run is to go on as a new run: a completed run given a follow-up is
   * forked and the fork resumed. Its completion then refuses nothing, and the
   * other gates judge it as they will judge the fork, which carries the same
   * fingerprint and interactivity.
   */
  asNewRun?: boolean;
}

/**
 * What the gates judge of a run: no more than a listing reads from its ends
 * (the meta record and the last), so a run can be judged without reading it
 * whole or holding it.
 */
export type ResumableRun = Pick<RunState, 'run_id' | 'status' | 'interactive' | 'fingerprint'>;

export function checkResume(state: ResumableRun, req: ResumeRequest): void {
  const id = state.run_id;

  // The status, not the last terminal record seen: only a journal that ends on
  // `completed` refuses; any other end, an unknown reason included, resumes.
  if (state.status === 'completed' && req.asNewRun !== true) {
    throw new LogbookError('already_completed', `run ${id} already completed`, { details: { runId: id } });
  }

  if (state.interactive !== req.interactive) {
    throw new LogbookError('interactivity_mismatch', state.interactive ? `run ${id} is an interactive chat` : `run ${id} is a one-shot run`, {
      details: { runId: id },
    });
  }

  const recorded = state.fingerprint;
  if (recorded.provider !== req.fingerprint.provider) {
    throw new LogbookError(
      'provider_changed',
      `run ${id} was written with provider ${recorded.provider}, the config now uses ${req.fingerprint.provider}; ` +
        'a conversation cannot move between providers (forcing does not apply)',
      { details: { runId: id } },
    );
  }

  const diff = fingerprintDiff(recorded, req.fingerprint, req.toolSets);
  if (diff.length > 0 && !req.force) {
    throw new LogbookError(
      'config_drift',
      `run ${id} was written with a different configuration (${diff.join('; ')})`,
      { details: { runId: id } },
    );
  }
}
