/** The documented exit codes of the logbook command. */
export const EXIT = {
  /** Done: the command did what was asked (a run completed). */
  ok: 0,
  /** An error: one line on stderr says what and how to fix it. */
  error: 1,
  /** The command line was wrong (unknown option, missing argument). */
  usage: 2,
  /** A run stopped before a call that needs an approval: --approve or --deny continues it. */
  awaiting: 3,
  /** A run stopped at its token budget: raise `budget`, then resume it. */
  budget: 4,
  /** A run stopped at max_iterations: a resume (a chat), or a raised limit and --force (a one-shot), goes on. */
  maxIterations: 5,
  /** The model refused to answer (stop reason `refusal`): the run ended, journaled as an error, and a follow-up can rephrase. */
  refused: 6,
  /** A run stopped at a spend cap (budget_usd, lineage_budget_usd): raise it, then resume. */
  spendCap: 7,
  /** A run completed on a final answer cut short at max_tokens: raise it, then a follow-up asks for the rest. */
  cut: 8,
  /** A rewind (or its undo) refused before it changed anything: a path in the workspace holds what the snapshot does not track; move it away, then rewind again. */
  workspaceConflict: 9,
  /** A run was suspended (Ctrl-C, SIGTERM) and can be resumed. 128 + SIGINT. */
  suspended: 130,
  /** A command that only reads (a watch) was stopped by Ctrl-C or SIGTERM; no run was touched. 128 + SIGINT. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
