/**
 * Every failure a caller may want to branch on carries a stable `code`; the
 * message is for people and may change. Codes are part of the public API.
 */
export type ErrorCode =
  // stores
  | 'not_found'
  | 'exists'
  | 'invalid_id'
  | 'locked'
  | 'seq_gap'
  // reading and folding a journal
  | 'empty'
  | 'no_meta'
  | 'version'
  | 'corrupt'
  // resume gates, in the order they run
  | 'already_completed'
  | 'interactivity_mismatch'
  | 'provider_changed'
  | 'config_drift'
  // configuration and wiring
  | 'usage'
  | 'config'
  | 'unknown_backend'
  | 'backend_options'
  | 'unavailable'
  // the agent
  | 'provider'
  | 'tool'
  | 'interrupted'
  // a run that stopped at one of its limits
  | 'budget_spent'
  | 'max_iterations';

export class LogbookError extends Error {
  override readonly name = 'LogbookError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** True when `err` is a LogbookError, and when `code` is given, one with that code. */
export function isLogbookError(err: unknown, code?: ErrorCode): err is LogbookError {
  return err instanceof LogbookError && (code === undefined || err.code === code);
}
