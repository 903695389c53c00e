/**
 * Which run `--resume` or `--continue` continues. A run counts as this
 * directory's when it was started here (its `started` note, run-notes.ts):
 * `--continue` takes the newest of those this configuration can go on with,
 * judged by the resume gates without holding or reading any run whole, and
 * says which it passed over and why; `--all` looks at the whole store. The
 * choice on a terminal lists this directory's runs first, one row per
 * conversation (lineage.ts), and marks, without offering, those the gates refuse.
 */
import { withAdvice } from './advice.js';
import { LogbookError, fingerprintDiff, type Fingerprint } from '../core/index.js';
import { sanitizeLine } from '../render/index.js';
import { lineageBranches } from '../store/lineage.js';
import { resolveRunId } from '../store/resolve.js';
import type { RunInfo, Store } from '../store/store.js';
import type { PickerEntry } from './picker/model.js';
import { newestFirst } from './session/ls.js';

/** How many runs a refusal lists when it cannot ask which one, and how many skipped runs --continue names. */
const LISTED = 5;

export interface Choosing {
  /** A follow-up PROMPT was given: a completed run goes on as a new run. */
  followUp: boolean;
  /**
   * Why the configuration in use would refuse to go on with `run` (the resume
   * gates, as a resume runs them), or null when it would not.
   */
  refusal(run: RunInfo): Promise<LogbookError | null>;
  /** The fingerprint of the configuration in use: the picker names what drifted from it. */
  fingerprint: Fingerprint;
  /** The directory the command runs in: runs started there are this directory's. */
  dir: string;
  /** --all: --continue looks at every run of the store. */
  all: boolean;
  /** Says on stderr what --continue passed over. */
  note(text: string): void;
  /** A stop signal while the choice is open ends it: `interrupted`. */
  signal: AbortSignal;
}

/** Runs whose refusals a choice judges at once: judging a run may read a note of it. */
const JUDGED_AT_ONCE = 16;

/** The reason a run cannot be continued as a short clause: its message without the leading `run ID `. */
function reason(run: RunInfo, why: string): string {
  return why.startsWith(`run ${run.runId} `) ? why.slice(`run ${run.runId} `.length) : why;
}

/**
 * Why the configuration cannot go on with a run (the gates), or why no
 * configuration can: it cannot be read. A run a writer holds now is judged as
 * any other: --continue takes it, and the resume says it is held, as it says of
 * a run named by id (the picker marks it, since choosing it can only fail).
 */
async function judge(run: RunInfo, choosing: Choosing): Promise<string | null> {
  if (run.status === 'unreadable') return `it cannot be read (${run.problem ?? 'unreadable'})`;
  const why = await choosing.refusal(run);
  return why === null ? null : reason(run, advised(run, why));
}

/** A refusal as the command says it, advice included: a mismatch means the other interactivity was asked for. */
function advised(run: RunInfo, why: LogbookError): string {
  return (withAdvice(why, { chat: !run.interactive }) as Error).message;
}

/**
 * What the picker says of a run it does not offer: the refusal in a few
 * words, by its code (what drifted, by name), so the row keeps room for the
 * run's turn.
 */
async function pickerRefusal(run: RunInfo, choosing: Choosing): Promise<string | null> {
  if (run.status === 'unreadable') return `unreadable: ${run.problem ?? ''}`;
  if (run.held === true) return 'a logbook process holds it now';
  const why = await choosing.refusal(run);
  if (why === null) return null;
  switch (why.code) {
    case 'already_completed':
      return 'completed: give a prompt to follow it up';
    case 'interactivity_mismatch':
      return run.interactive ? 'a chat: resume it with --chat' : 'a one-shot run: resume it without --chat';
    case 'provider_changed':
      return `written with provider ${run.fingerprint?.provider ?? 'another'}`;
    case 'config_drift': {
      const changed = run.fingerprint === undefined ? [] : fingerprintDiff(run.fingerprint, choosing.fingerprint).map((d) => d.split(':')[0]!);
      return changed.length > 0 ? `config changed: ${changed.join(', ')} (--force)` : 'config changed (--force)';
    }
    default:
      return reason(run, advised(run, why));
  }
}

/** What --continue says of a run it passed over; the config it was started with, when that was another. */
function skippedLine(run: RunInfo, why: string, config: string | undefined): string {
  const other = run.place?.config !== undefined && run.place.config !== config ? ` (it was started with ${sanitizeLine(run.place.config)})` : '';
  return `skipped run ${run.runId}: ${sanitizeLine(why)}${other}`;
}

/** --continue: the newest run started here (or anywhere, with --all) that the config can go on with. */
async function newestResumable(store: Store, choosing: Choosing, config: string | undefined): Promise<string> {
  const runs = newestFirst(await store.list({ places: true }));
  const pool = choosing.all ? runs : runs.filter((r) => r.place?.dir === choosing.dir);
  if (pool.length === 0) throw noRunHere(store, choosing, runs.length);
  const skipped: string[] = [];
  for (const run of pool) {
    const why = await judge(run, choosing);
    if (why === null) {
      tellSkipped(skipped, choosing);
      return run.runId;
    }
    skipped.push(skippedLine(run, why, config));
  }
  tellSkipped(skipped, choosing);
  const where = choosing.all ? `the ${store.location}` : `this directory (${sanitizeLine(choosing.dir)})`;
  throw new LogbookError(
    'not_found',
    `no run of ${where} can be continued with this config (${pool.length} passed over, said above)` +
      `${choosing.all ? '' : '; logbook run -c --all looks at every run of the store'}; logbook run --resume ID names one, or start a new run`,
  );
}

function tellSkipped(skipped: readonly string[], choosing: Choosing): void {
  for (const line of skipped.slice(0, LISTED)) choosing.note(line);
  if (skipped.length > LISTED) choosing.note(`skipped ${skipped.length - LISTED} more runs`);
}

function noRunHere(store: Store, choosing: Choosing, inStore: number): LogbookError {
  if (inStore === 0) return new LogbookError('not_found', `no runs in the ${store.location}; start one with: logbook run PROMPT`);
  return new LogbookError(
    'not_found',
    `no run was started in this directory (${sanitizeLine(choosing.dir)}); the ${store.location} has ${inStore} run${inStore === 1 ? '' : 's'} ` +
      `started elsewhere (or before logbook kept where a run starts): logbook run -c --all continues the newest of them, logbook run --resume chooses one`,
  );
}

/** Calls `fn` on each item, at most `limit` at a time, keeping the order of the results. */
async function mapAtOnce<T, U>(items: readonly T[], limit: number, fn: (item: T) => Promise<U>): Promise<U[]> {
  const out: U[] = new Array<U>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/** The operator left the picker (Esc, Ctrl-C) without choosing: no run was touched, a stop rather than an error (exit 130, as fzf's cancel). */
export class PickerCancelled extends LogbookError {
  constructor() {
    super('interrupted', 'no run chosen; nothing was changed');
  }
}

/**
 * The choice among runs, one entry per branch of a conversation (its last run), this
 * directory's first, newest first within each part, each judged.
 */
export async function pickerEntries(store: Store, choosing: Choosing): Promise<PickerEntry[]> {
  const runs = newestFirst(await store.list({ places: true, origins: true, lastTurns: true }));
  const heads = lineageBranches(runs);
  const here = (r: RunInfo): boolean => r.place?.dir === choosing.dir;
  const ordered = [...heads.filter((h) => here(h.run)), ...heads.filter((h) => !here(h.run))];
  return mapAtOnce(ordered, JUDGED_AT_ONCE, async (h) => ({ ...h, here: here(h.run), refusal: await pickerRefusal(h.run, choosing) }));
}

/**
 * `newest` for --continue (see newestResumable). An id or a unique part of one
 * for --resume ID: that run, whatever the gates will say of it (the resume says
 * it in full). `true` for --resume alone: a choice on a terminal, otherwise a
 * refusal that lists the latest runs that could be continued.
 */
export async function chooseRun(store: Store, target: 'newest' | string | true, choosing: Choosing, config?: string): Promise<string> {
  if (typeof target === 'string' && target !== 'newest') return resolveRunId(store, target);
  if (target === 'newest') return newestResumable(store, choosing, config);
  const entries = await pickerEntries(store, choosing);
  if (entries.length === 0) throw new LogbookError('not_found', `no runs in the ${store.location}; start one with: logbook run PROMPT`);
  const offered = entries.filter((e) => e.refusal === null);
  if (offered.length === 0) {
    const completed = entries.every((e) => e.run.status === 'completed');
    throw new LogbookError(
      'usage',
      completed && !choosing.followUp
        ? `every run in the ${store.location} is completed; to continue one, give a prompt: logbook run -c PROMPT, or logbook run --resume ID PROMPT`
        : `none of the ${entries.length} conversations in the ${store.location} can be continued with this config; \`logbook session show ID\` says where one stands`,
    );
  }
  if (process.stdin.isTTY && process.stderr.isTTY) {
    const { pickRun } = await import('./picker/open.js'); // Ink and React load only here
    const picked = await pickRun(entries, choosing.signal);
    if (choosing.signal.aborted) throw new LogbookError('interrupted', 'stopped while choosing the run to continue; no run was changed');
    if (picked === null) throw new PickerCancelled();
    return picked;
  }
  const latest = offered.slice(0, LISTED).map(({ run: r }) => `${r.runId} (${r.status}: ${sanitizeLine(r.lastTurn ?? r.prompt).slice(0, 40)})`);
  throw new LogbookError('usage', `--resume needs a run id when it cannot ask; the latest runs: ${latest.join(', ')}`);
}
