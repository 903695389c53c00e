/**
 * What a run changed in its workspace, and putting it back: `runDiff` reads
 * the snapshots kept beside a run (run-notes `ws-N-NONCE`) and says, turn by
 * turn, which files the tools of each turn changed, and apart from them what
 * changed between snapshots while nothing of the run was running (a person's
 * edit while a chat waited). `rewindRun` restores the files to their state
 * after a turn and forks the conversation there; it never destroys anything:
 * the workspace as it was is snapshotted first (`undoRewind` puts it back,
 * `redoRewind` takes the undo back), and the run rewound is left whole.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LogbookError, decodeLines, formatTimestamp, toolUses, type JournalRecord } from '../core/index.js';
import { forkLength, forkRun } from '../store/fork.js';
import {
  encodeRewind,
  encodeSnapshot,
  isRewindNoteKey,
  parseRewind,
  rewindNoteKey,
  REWIND_NOTE_PREFIX,
  snapshotNoteKey,
  type RewindNote,
  type SnapshotMoment,
  type SnapshotNote,
} from '../store/run-notes.js';
import type { Store } from '../store/store.js';
import { runSnapshots } from '../store/workspace/snapshots.js';
import { changedFiles, changedFilesOfPairs, shownChanges, treePatch, type ChangedFile, type FileChange } from '../store/workspace/changes.js';
import { WORKSPACE_DEFAULTS, WorkspaceRepo, type WorkspaceSettings } from '../store/workspace/repo.js';
import { checkRestore, restoreTree } from '../store/workspace/restore.js';
import { fetchTree, shareTree } from '../store/workspace/shelf.js';

export type { ChangedFile, FileChange, ChangeStatus } from '../store/workspace/changes.js';
export type { SnapshotNote, SnapshotMoment, RewindNote } from '../store/run-notes.js';
export type { WorkspaceSettings } from '../store/workspace/repo.js';
export { runSnapshots };

/** A tool call, as a diff attributes changes to it. */
export interface CallRef {
  id: string;
  name: string;
}

/** Who made a span of changes: the tools of a turn, a rewind, or something outside the run. */
export type ChangeAuthor =
  | { kind: 'turn'; turn: number; seq: number; calls: CallRef[] }
  | { kind: 'outside' }
  /** A step of the run's rewinds, as its note names it (absent where no note is found): a rewind to `turn`, an undo or a redo of it. */
  | { kind: 'rewind'; step?: RewindStepKind; turn?: number };

/** What a step of a run's rewinds was. */
export type RewindStepKind = 'rewind' | 'undo' | 'redo';

/** The changes between two snapshots, and who made them. */
export interface ChangeSpan {
  /** Its place among the run's spans (0 first): what RunDiffOptions.span picks. */
  index: number;
  by: ChangeAuthor;
  /**
   * The turn's tools were stopped in the middle (the run interrupted) and a
   * resume carried them on: `interrupted` is what they changed before the
   * interruption, `resumed` what they changed after the resume.
   */
  part?: 'interrupted' | 'resumed';
  /** The seqs of the snapshots the span goes from and to. */
  fromSeq: number;
  toSeq: number;
  /** It goes to the workspace as it is now, not to a snapshot kept beside the run (RunDiffOptions.now). */
  toNow?: true;
  from: string;
  to: string;
  files: FileChange[];
  /** The unified diff, when asked for (RunDiffOptions.patch). */
  patch?: string;
}

/** A moment a snapshot was due and none was made: why. */
export interface MissingSnapshot {
  seq: number;
  turn: number;
  moment: SnapshotMoment;
  problem: string;
}

/** What runDiff finds. */
export interface RunDiff {
  runId: string;
  /** The workspace directory the snapshots are of (the last one's). */
  dir: string | null;
  spans: ChangeSpan[];
  missing: MissingSnapshot[];
  /** How many snapshots the run has. */
  snapshots: number;
  /** How many spans of changes the run has, whichever were picked. */
  total: number;
}

/** What runDiff shows. */
export interface RunDiffOptions {
  /** Only the changes of this turn (the Nth model turn, as `session fork --turn` counts). */
  turn?: number;
  /** Only the changes of the turn holding this seq. */
  seq?: number;
  /** Only the span at this index (ChangeSpan.index). */
  span?: number;
  /** Only the `size` spans before index `before` (default: the last `size`): a page's window of a long run. */
  window?: { before?: number; size: number };
  /** With each span's unified diff. */
  patch?: boolean;
  /**
   * Also what changed since the last snapshot, in the workspace as it is now
   * (snapshotted with these settings, not noted): what a run that was stopped
   * in the middle of a tool batch left, before a resume snapshots it.
   */
  now?: WorkspaceSettings;
  /** Where the system git is looked for (a PATH; default /usr/local/bin:/usr/bin:/bin). */
  searchPath?: string;
}

/** The snapshot repository of `store`; `workspace` when it keeps none. */
function repoOf(store: Store, searchPath: string | undefined): WorkspaceRepo {
  const storage = store.workspace;
  if (storage === null) throw new LogbookError('workspace', `the ${store.backend} store keeps no workspace snapshots`);
  return new WorkspaceRepo(storage.home, searchPath);
}

/** Who made a span of changes, in words (the CLI's diff and the exports' headings). */
export function spanHeading(span: ChangeSpan): string {
  // A run that stopped, or a chat waiting for its next turn, has taken no snapshot since: the span ends at the workspace now.
  const now = span.toNow ? ', up to the workspace now (in no snapshot yet)' : '';
  const part =
    span.part === 'interrupted'
      ? ', before the run was interrupted in the middle of them'
      : span.part === 'resumed'
        ? `, after the resume (at seq ${span.fromSeq}) carried them on`
        : '';
  return authorHeading(span) + part + now;
}

function authorHeading(span: ChangeSpan): string {
  switch (span.by.kind) {
    case 'turn':
      return `turn ${span.by.turn} (seq ${span.by.seq}), by ${span.by.calls.map((c) => `${c.name} (${c.id})`).join(', ')}`;
    case 'rewind': {
      const { step, turn } = span.by;
      if (step === undefined || turn === undefined) return `a rewind (after seq ${span.fromSeq})`;
      return `${step === 'rewind' ? 'the rewind' : `the ${step} of the rewind`} to turn ${turn} (after seq ${span.fromSeq})`;
    }
    case 'outside':
      return span.fromSeq === span.toSeq ? `changed outside the run after seq ${span.fromSeq} (not by its tools)` : `changed outside the run between seq ${span.fromSeq} and seq ${span.toSeq} (not by its tools)`;
  }
}

/** Makes sure snapshot `tree` is in the local repository (fetched from the store's shelf when it is elsewhere). */
async function local(store: Store, repo: WorkspaceRepo, tree: string): Promise<void> {
  const shelf = store.workspace?.shelf;
  if (shelf !== undefined) await fetchTree(repo, shelf, tree);
  // Else the snapshot was made here: git names it if it is missing.
}

/** For each seq of `records`: the tool batch still running after it (its assistant record's seq, turn and calls), or null. */
function openBatches(records: readonly JournalRecord[]): { turnAt: Map<number, number>; open: Map<number, { seq: number; turn: number; calls: CallRef[] } | null> } {
  const turnAt = new Map<number, number>();
  const open = new Map<number, { seq: number; turn: number; calls: CallRef[] } | null>();
  let turn = 0;
  let batch: { seq: number; turn: number; calls: CallRef[]; waiting: Set<string> } | null = null;
  for (const r of records) {
    if ('assistant' in r) {
      turn++;
      const calls = toolUses(r.assistant.message).map((c) => ({ id: c.id, name: c.name }));
      batch = calls.length > 0 ? { seq: r.seq, turn, calls, waiting: new Set(calls.map((c) => c.id)) } : null;
    } else if ('tool_result' in r && batch !== null) {
      batch.waiting.delete(r.tool_result.tool_use_id);
      if (batch.waiting.size === 0) batch = null;
    }
    turnAt.set(r.seq, turn);
    open.set(r.seq, batch === null ? null : { seq: batch.seq, turn: batch.turn, calls: batch.calls });
  }
  return { turnAt, open };
}

/** Spans of one turn's tools are one; each rewind and each outside edit stays its own. */
const sameAuthor = (a: ChangeAuthor, b: ChangeAuthor): boolean => a.kind === 'turn' && b.kind === 'turn' && a.seq === b.seq;

/** The records of run `id`, decoded. */
async function recordsOf(store: Store, id: string): Promise<JournalRecord[]> {
  return decodeLines(await store.lines(id), `run ${id}`);
}

/**
 * What run `id` changed in its workspace, turn by turn: each span between two
 * snapshots that differ, attributed to the tools of the turn that was running
 * (its batch still open at the first snapshot), else to something outside the
 * run. Spans of one turn are joined.
 */
export async function runDiff(store: Store, id: string, options: RunDiffOptions = {}): Promise<RunDiff> {
  const records = await recordsOf(store, id);
  const snapshots = await runSnapshots(store, id);
  const { turnAt, open } = openBatches(records);
  const turns = turnAt.get(records.at(-1)!.seq) ?? 0;
  if (options.turn !== undefined && (options.turn < 1 || options.turn > turns)) {
    throw new LogbookError('usage', `no turn ${options.turn}: run ${id} has ${turns} model turn${turns === 1 ? '' : 's'}`);
  }
  if (options.seq !== undefined && !turnAt.has(options.seq)) throw new LogbookError('usage', `no seq ${options.seq}: run ${id} has seqs 1 to ${records.at(-1)!.seq}`);
  const missing = snapshots
    .filter((s) => s.tree === undefined)
    .map((s) => ({ seq: s.seq, turn: turnAt.get(s.seq) ?? 0, moment: s.moment, problem: s.problem ?? 'no snapshot' }));
  const made: (SnapshotNote & { tree: string; now?: true })[] = snapshots.filter((s): s is SnapshotNote & { tree: string } => s.tree !== undefined);
  const repo = made.length > 0 ? repoOf(store, options.searchPath) : null;
  const last = made.at(-1);
  if (options.now !== undefined && last !== undefined && repo !== null) {
    await local(store, repo, last.tree);
    if (last.rules !== undefined) await local(store, repo, last.rules);
    // What the run tracked (its snapshot's rules), whatever the config says now.
    const { tree } = await repo.snapshot(last.dir, options.now, last.rules !== undefined ? { rules: last.rules } : {});
    made.push({ ...last, seq: records.at(-1)!.seq, moment: 'end', tree, now: true });
  }
  // Which step each rewound snapshot ends: the step's note has its tree and time.
  const steps = made.some((s) => s.moment === 'rewound') ? await stepsOf(store, id) : [];
  const stepAt = (rewound: SnapshotNote): { step?: RewindStepKind; turn?: number } => {
    const step = steps.find((s) => s.note.to === rewound.tree && s.note.at === rewound.at);
    return step === undefined ? {} : { step: stepKind(steps, step), turn: step.note.turn };
  };
  const spans: ChangeSpan[] = [];
  for (let i = 0; i + 1 < made.length; i++) {
    const a = made[i]!;
    const b = made[i + 1]!;
    if (a.tree === b.tree) continue;
    const batch = open.get(a.seq) ?? null;
    const by: ChangeAuthor =
      a.moment === 'rewind' && b.moment === 'rewound' ? { kind: 'rewind', ...stepAt(b) } : batch !== null ? { kind: 'turn', ...batch } : { kind: 'outside' };
    const last = spans.at(-1);
    // A resume in the middle of a turn's batch snapshots before it carries on: what was done before and after it stay apart.
    if (last !== undefined && sameAuthor(last.by, by) && last.to === a.tree && a.moment !== 'resume') {
      last.toSeq = b.seq;
      last.to = b.tree;
    } else {
      spans.push({ index: spans.length, by, fromSeq: a.seq, toSeq: b.seq, from: a.tree, to: b.tree, files: [] });
    }
    const span = spans.at(-1)!;
    if (by.kind === 'turn' && b.moment === 'resume' && !b.now) span.part = 'interrupted';
    else if (by.kind === 'turn' && a.moment === 'resume' && span.part === undefined) span.part = 'resumed';
    if (b.now) span.toNow = true;
  }
  const window = options.window;
  const windowEnd = window === undefined ? spans.length : Math.min(window.before ?? spans.length, spans.length);
  const wanted = spans.filter((s) => {
    if (options.span !== undefined) return s.index === options.span;
    if (window !== undefined) return s.index >= windowEnd - window.size && s.index < windowEnd;
    if (options.turn !== undefined) return s.by.kind === 'turn' && s.by.turn === options.turn;
    if (options.seq !== undefined) {
      const turn = turnAt.get(options.seq);
      return s.by.kind === 'turn' ? s.by.turn === turn : s.fromSeq <= options.seq && options.seq < s.toSeq;
    }
    return true;
  });
  for (const span of wanted) {
    await local(store, repo!, span.from);
    await local(store, repo!, span.to);
    span.files = await shownChanges(repo!, span.from, span.to);
    if (options.patch) span.patch = await treePatch(repo!, span.from, span.to, span.files);
  }
  return {
    runId: id,
    dir: made.at(-1)?.dir ?? null,
    spans: wanted.filter((s) => s.files.length > 0),
    missing,
    snapshots: made.filter((s) => !s.now).length,
    total: spans.length,
  };
}

/** What rewindRun restores and forks. */
export interface RewindOptions {
  /** The turn to go back to (the Nth model turn, as `session fork --turn` counts): the files as they were after it, the conversation through it. */
  turn?: number;
  /** Or the seq to go back to: the conversation through it, the files as its first snapshot from there holds them (a chat's rewind to before a typed turn). */
  at?: number;
  /** Restore the files (default true). */
  files?: boolean;
  /** Fork the conversation at the turn (default true). */
  conversation?: boolean;
  /** The fork's id (required with the conversation). */
  forkId?: string;
  /** What is tracked of the workspace (the run's config's `workspace:`): the same rules its snapshots were made with. */
  settings?: WorkspaceSettings;
  /** The workspace to restore; the snapshots' own directory when absent. */
  dir?: string;
  /**
   * Asked with the files that will change before any is; false stops the
   * rewind, nothing done. Answered at once (a boolean), nothing can have
   * changed meanwhile; answered later (a promise, or any thenable), what
   * stands is checked again.
   */
  confirm?: (plan: RewindPlan) => PromiseLike<boolean> | boolean;
  /** Whether a tool has side effects (from its policy): the calls after the turn to such tools are named. */
  sideEffects?: (toolName: string) => boolean;
  /** Where the system git is looked for (a PATH; default /usr/local/bin:/usr/bin:/bin). */
  searchPath?: string;
  /** The caller is the writer holding run `id` (a chat rewinding its own files): that hold is no other writer's. */
  heldHere?: boolean;
}

/** What a rewind will do, as confirm is asked. */
export interface RewindPlan {
  dir: string;
  /** The files that will change (named, not counted in lines: the restore reads no more than it writes). */
  files: ChangedFile[];
  /** The seq the turn ends at: the fork keeps the records through it. */
  seq: number;
  /** Calls after the turn to tools with side effects: what they did outside the workspace is not undone. */
  sideEffects: CallRef[];
  /**
   * The paths of `files` whose content now is not what the run's last snapshot
   * holds: changed outside the run since (a person's edits), which the rewind
   * overwrites or removes as it does the run's own changes (an undo brings them back).
   */
  editedSince: string[];
}

/** What rewindRun did. */
export interface Rewound extends RewindPlan {
  /** False when confirm said no: nothing was done. */
  done: boolean;
  /** The fork the conversation goes on in. */
  fork?: string;
  /** The note that lets `undoRewind` put the replaced state back (absent for a rewind of the conversation only). */
  undo?: { run: string; key: string };
}

function nonce(): string {
  return randomBytes(6).toString('hex');
}

/** Where the last rewind made on this machine is remembered, for `rewind --undo` without a run. */
const LAST_REWIND = 'last-rewind.json';

/** Keeps snapshot `tree` of `dir` (made by `rules`) beside run `runId` after seq `seq` (shelved first where the store shares snapshots). */
async function noteSnapshot(store: Store, repo: WorkspaceRepo, runId: string, seq: number, dir: string, tree: string, rules: string, moment: SnapshotMoment): Promise<void> {
  const at = formatTimestamp(new Date()); // when called: before the step's own time, whatever the shelf takes
  const shelf = store.workspace?.shelf;
  if (shelf !== undefined) await shareTree(repo, shelf, tree, [rules]);
  await store.putNote(runId, snapshotNoteKey(seq, nonce()), encodeSnapshot({ seq, moment, at, dir, tree, rules }));
}

/**
 * Snapshots `dir` as it is now by `rules` (a snapshot's of the run, fetched
 * here when kept elsewhere), so it tracks what the run tracked whatever the
 * config says now; by `settings` where the run's snapshots name no rules.
 */
async function snapshotByRules(store: Store, repo: WorkspaceRepo, dir: string, settings: WorkspaceSettings, rules: string | undefined): Promise<{ tree: string; rules: string }> {
  if (rules !== undefined) await local(store, repo, rules);
  return repo.snapshot(dir, settings, rules !== undefined ? { rules } : {});
}

/**
 * Refuses a change to run `id`'s files while a writer holds the run (a run
 * still going, a chat open on it): its tools would go on writing on top of
 * what is put back. Where the store cannot tell, it goes ahead.
 */
async function refuseWhileHeld(store: Store, id: string, what: string): Promise<void> {
  if ((await store.held(id)) !== true) return;
  throw new LogbookError('locked', `run ${id} is still being written (a run going on, or a chat open on it), and its tools would write over ${what}: wait for it to end, or suspend it, then try again`, {
    details: { runId: id },
  });
}

/** Whether a confirm's answer came later (anything but a boolean: a promise, a thenable), so what stands may have changed meanwhile. */
function answeredLater(answer: PromiseLike<boolean> | boolean): boolean {
  return typeof answer !== 'boolean';
}

/**
 * Rewinds run `id` to after turn `turn`: its tracked files restored (after the
 * workspace as it is now was snapshotted, so the rewind can be undone), and
 * its conversation forked there into a new run (origin kept and linked, as
 * any fork). The run itself is never changed. `workspace` when there is no
 * snapshot after that turn; `workspace_conflict` when a path the restore
 * would meet holds what the snapshot does not track (checked before confirm
 * is asked and again before anything is done: nothing is changed, no fork
 * made, no note kept); `locked`, with nothing done, when it restores files
 * while a writer holds the run. The rewind is a step undoRewind takes back.
 */
export async function rewindRun(store: Store, id: string, options: RewindOptions): Promise<Rewound> {
  const files = options.files ?? true;
  const conversation = options.conversation ?? true;
  if (!files && !conversation) throw new LogbookError('usage', 'a rewind restores the files, forks the conversation, or both');
  if (conversation && options.forkId === undefined) throw new LogbookError('usage', 'a rewind of the conversation needs the fork\'s id');
  if ((options.turn === undefined) === (options.at === undefined)) throw new LogbookError('usage', 'a rewind goes back to a turn or to a seq: one of them');
  const point = options.turn !== undefined ? { turn: options.turn } : { at: options.at! };
  const where = options.turn !== undefined ? `turn ${options.turn}` : `seq ${options.at}`;
  if (files && options.heldHere !== true) await refuseWhileHeld(store, id, 'the files a rewind restores');
  const records = await recordsOf(store, id);
  const kept = forkLength(records, point);
  const seq = records[kept - 1]!.seq;
  const later = records.slice(kept).flatMap((r) => ('assistant' in r ? toolUses(r.assistant.message) : []));
  const sideEffects = later.filter((c) => options.sideEffects?.(c.name) === true).map((c) => ({ id: c.id, name: c.name }));
  const settings = options.settings ?? { ...WORKSPACE_DEFAULTS };
  let plan: RewindPlan = { dir: options.dir ?? '', files: [], seq, sideEffects, editedSince: [] };
  let restore: { from: string; to: string; rules: string; dirs: string[]; repo: WorkspaceRepo } | null = null;
  if (files) {
    const repo = repoOf(store, options.searchPath);
    const snapshots = await runSnapshots(store, id);
    const target = snapshots.find((s) => s.seq >= seq && s.tree !== undefined);
    if (target === undefined) {
      throw new LogbookError('workspace', `run ${id} has no snapshot of its workspace after ${where}`, { details: { runId: id } });
    }
    // The directory and rules the snapshot was made with, not the config's now: a rewind touches only what the run tracked.
    const dir = options.dir ?? target.dir;
    await local(store, repo, target.tree!);
    // The workspace as it is now: noted (with the rewind) only once the rewind goes ahead.
    const { tree: now, rules } = await snapshotByRules(store, repo, dir, settings, target.rules);
    const last = snapshots.findLast((s) => s.tree !== undefined)!;
    await local(store, repo, last.tree!);
    // The plan, and what changed since the run's last snapshot (a person's edits), in one comparison of trees.
    const [changes, edited] = await changedFilesOfPairs(repo, [
      [now, target.tree!],
      [last.tree!, now],
    ]);
    const { dirs } = checkRestore(dir, changes!); // refused here, before anything is asked or changed
    const outside = new Set(edited!.map((f) => f.path));
    plan = { ...plan, dir, files: changes, editedSince: changes.filter((f) => outside.has(f.path)).map((f) => f.path) };
    restore = { from: now, to: target.tree!, rules, dirs, repo };
  }
  let dirs = restore?.dirs ?? [];
  if (options.confirm !== undefined) {
    const answer = options.confirm(plan);
    if (!(await answer)) return { ...plan, done: false };
    // What stands in the workspace may have changed while confirm asked: checked again before anything is done.
    if (restore !== null && answeredLater(answer)) dirs = checkRestore(plan.dir, plan.files).dirs;
  }
  const result: Rewound = { ...plan, done: true };
  if (conversation) {
    const place = await store.placeOf(id);
    const forked = await forkRun(store, id, { ...point, id: options.forkId!, ...(place !== null ? { place: files ? { ...place, dir: plan.dir } : place } : {}) });
    result.fork = forked.id;
  }
  if (restore !== null) {
    const lastSeq = records.at(-1)!.seq;
    const noted = noteSnapshot(store, restore.repo, id, lastSeq, plan.dir, restore.from, restore.rules, 'rewind');
    const note: RewindNote = {
      run: id,
      turn: records.slice(0, kept).filter((r) => 'assistant' in r).length,
      seq,
      dir: plan.dir,
      from: restore.from,
      to: restore.to,
      at: formatTimestamp(new Date()),
      ...(result.fork !== undefined ? { fork: result.fork } : {}),
      rules: restore.rules,
      dirs,
    };
    result.undo = await applyStep(store, restore.repo, 'rewind', note, plan.files, [], noted);
    const rewoundSnap = { seq: 0, moment: 'rewound' as const, at: note.at, dir: plan.dir, tree: restore.to, rules: restore.rules };
    await Promise.all([
      store.putNote(id, snapshotNoteKey(lastSeq, nonce()), encodeSnapshot({ ...rewoundSnap, seq: lastSeq })),
      result.fork !== undefined ? store.putNote(result.fork, snapshotNoteKey(seq, nonce()), encodeSnapshot({ ...rewoundSnap, seq })) : null,
    ]);
  }
  return result;
}

/**
 * Does one step (a rewind, an undo, a redo): its note first, before any file
 * changes (a step stopped half way is undone like a finished one), then the
 * files from `note.from` to `note.to`, then `remake` (directories the step
 * undone had found on its way, which git does not keep). `noted`: the note of
 * the snapshot taken first, being written meanwhile; it is kept before the
 * step's own note, and both before any file changes.
 */
async function applyStep(
  store: Store,
  repo: WorkspaceRepo,
  kind: 'rewind' | 'undo' | 'redo',
  note: RewindNote,
  files: readonly ChangedFile[],
  remake: readonly string[],
  noted: Promise<void>,
): Promise<{ run: string; key: string }> {
  const step = { run: note.run, key: rewindNoteKey(nonce()) };
  // The step's note only once the snapshot of now is kept: a step whose snapshot failed is never listed.
  await noted;
  await store.putNote(note.run, step.key, encodeRewind(note));
  rememberLastRewind(store, step);
  await restoreTree(repo, note.dir, note.from, note.to, files, remake).catch((err: unknown) => {
    const why = err instanceof Error ? err.message : String(err);
    const back = kind === 'undo' ? 'a redo' : 'an undo';
    throw new LogbookError('workspace', `the ${kind} of run ${note.run} stopped half way (${back} puts back what it changed): ${why}`, { cause: err, details: { runId: note.run } });
  });
  return step;
}

function rememberLastRewind(store: Store, undo: { run: string; key: string }): void {
  const home = store.workspace?.home;
  if (home === undefined) return;
  try {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    writeFileSync(join(home, LAST_REWIND), JSON.stringify(undo), { mode: 0o600 });
  } catch {
    // `--undo RUN` finds it all the same
  }
}

/** One step of a run's rewinds: a rewind, an undo or a redo, as its note keeps it. */
interface Step {
  run: string;
  key: string;
  note: RewindNote;
}

/** The steps kept beside run `run` (its rewind notes), oldest first. */
async function stepsOf(store: Store, run: string): Promise<Step[]> {
  const steps: Step[] = [];
  for (const [key, text] of await store.notesWith(run, REWIND_NOTE_PREFIX, { strict: true })) {
    if (!isRewindNoteKey(key)) continue;
    const note = parseRewind(text);
    if (note !== null) steps.push({ run, key, note });
  }
  // By time, not by text: a timestamp keeps no trailing zeros (`.12Z` is later than `.119Z`).
  return steps.sort((a, b) => Date.parse(a.note.at) - Date.parse(b.note.at) || a.key.localeCompare(b.key));
}

/** What `step` was: a rewind (it undoes nothing), a redo (it takes an undo back), else an undo. */
function stepKind(steps: readonly Step[], step: Step): RewindStepKind {
  const seen = new Set<string>();
  let kind: RewindStepKind = 'rewind';
  // Each step takes back the one before it in the chain, down to a rewind: the kinds alternate from there.
  const chain: Step[] = [];
  for (let s: Step | undefined = step; s !== undefined && !seen.has(s.key); s = steps.find((t) => t.key === s!.note.undoes)) {
    seen.add(s.key);
    chain.push(s);
    if (s.note.undoes === undefined) break;
  }
  for (let i = chain.length - 1; i >= 0; i--) {
    if (chain[i]!.note.undoes === undefined) kind = 'rewind';
    else kind = kind === 'undo' ? 'redo' : 'undo';
  }
  return kind;
}

/**
 * Where run `id`'s rewinds stand: the steps whose change is in place, last
 * done last (what --undo takes back, one at a time), and the undos not taken
 * back, last last (what --redo takes back). A new rewind after undos leaves
 * nothing to redo, as in an editor; what the undos put back stays in the
 * snapshots all the same.
 */
function standingOf(steps: readonly Step[]): { done: Step[]; undone: Step[] } {
  const done: Step[] = [];
  const undone: Step[] = [];
  for (const step of steps) {
    if (step.note.undoes === undefined) {
      done.push(step);
      undone.length = 0;
      continue;
    }
    const i = done.findIndex((d) => d.key === step.note.undoes);
    if (i >= 0) {
      done.splice(i, 1);
      undone.push(step);
      continue;
    }
    const j = undone.findIndex((u) => u.key === step.note.undoes);
    if (j >= 0) {
      undone.splice(j, 1);
      done.push(step);
    }
  }
  return { done, undone };
}

/** The run whose rewinds `--undo [ID]` walks: ID's own (or, for a fork a rewind made, its origin's), else the run of the last step made here. */
async function rewoundRun(store: Store, id: string | undefined): Promise<string> {
  if (id === undefined) {
    const home = store.workspace?.home;
    let pointer: { run?: unknown } | null = null;
    try {
      pointer = home === undefined ? null : (JSON.parse(readFileSync(join(home, LAST_REWIND), 'utf8')) as { run?: unknown });
    } catch {
      pointer = null;
    }
    if (pointer === null || typeof pointer.run !== 'string') throw new LogbookError('workspace', 'no rewind was made here to undo: name the run rewound');
    return pointer.run;
  }
  if ((await stepsOf(store, id)).length > 0) return id;
  const origin = await store.forkOrigin(id);
  if (origin !== null && !origin.compacted && (await stepsOf(store, origin.from).catch(() => [])).some((s) => s.note.fork === id)) return origin.from;
  throw new LogbookError('workspace', `run ${id} was never rewound`, { details: { runId: id } });
}

/** How undoRewind and redoRewind put the files back. */
export interface UndoOptions {
  /** What is tracked of the workspace (the config's `workspace:`). */
  settings?: WorkspaceSettings;
  /** Asked with the files that will change; false stops it, nothing done (checked again when answered later, as RewindOptions.confirm). */
  confirm?: (plan: { dir: string; files: ChangedFile[] }) => PromiseLike<boolean> | boolean;
  /** Where the system git is looked for (a PATH; default /usr/local/bin:/usr/bin:/bin). */
  searchPath?: string;
}

/** What undoRewind or redoRewind put back. */
export interface Undone {
  run: string;
  dir: string;
  files: ChangedFile[];
  /** The rewind this goes back before (undoRewind), or back to (redoRewind): the turn it went to. */
  turn: number;
  /** The fork that rewind made, which stays (nothing is removed). */
  fork?: string;
  /** The note of this step, which a later undo or redo takes back (absent when confirm said no). */
  step?: { run: string; key: string };
  /** Rewinds still in place after this, which further undos take back one at a time. */
  undoable: number;
  /** Undos that a redo can take back after this. */
  redoable: number;
}

/**
 * Takes back the last rewind still in place of run `id` (else of the run of
 * the last step made here): the workspace as it is now is snapshotted, then
 * the files the rewind replaced are put back, with the directories that stood
 * on their way (git keeps none). The undo is a step of its own, noted before
 * a file changes: called again, undoRewind takes back the rewind before that
 * one, and so on back to the first; redoRewind takes the last undo back. A new
 * rewind after undos leaves nothing to redo (their states stay in the
 * snapshots). The fork a rewind made stays: the run rewound was never changed.
 * `workspace` when there is nothing left to undo; `workspace_conflict`, with
 * nothing changed, when a path holds what the snapshot does not track;
 * `locked`, nothing changed, while a writer holds the run.
 */
export async function undoRewind(store: Store, id?: string, options: UndoOptions = {}): Promise<Undone & { done: boolean }> {
  const run = await rewoundRun(store, id);
  const { done } = standingOf(await stepsOf(store, run));
  const last = done.at(-1);
  if (last === undefined) throw new LogbookError('workspace', `run ${run} has no rewind left to undo: each was undone (a redo takes the last undo back)`, { details: { runId: run } });
  return takeBack(store, last, 'undo', options);
}

/**
 * Takes back the last undo of run `id`'s rewinds (else of the run of the last
 * step made here): the files go back to what that undo replaced, after the
 * workspace as it is now is snapshotted. A step of its own, as an undo is:
 * undoRewind takes it back. `workspace` when there is no undo to take back.
 */
export async function redoRewind(store: Store, id?: string, options: UndoOptions = {}): Promise<Undone & { done: boolean }> {
  const run = await rewoundRun(store, id);
  const { undone } = standingOf(await stepsOf(store, run));
  const last = undone.at(-1);
  if (last === undefined) throw new LogbookError('workspace', `run ${run} has no undo to redo`, { details: { runId: run } });
  return takeBack(store, last, 'redo', options);
}

/** Takes step `step` back: the files as it found them, as a step of its own. */
async function takeBack(store: Store, step: Step, kind: 'undo' | 'redo', options: UndoOptions): Promise<Undone & { done: boolean }> {
  const { run, note } = step;
  await refuseWhileHeld(store, run, `the files ${kind === 'undo' ? 'an undo' : 'a redo'} puts back`);
  const repo = repoOf(store, options.searchPath);
  const settings = options.settings ?? { ...WORKSPACE_DEFAULTS };
  await local(store, repo, note.from);
  const records = await recordsOf(store, run);
  const lastSeq = records.at(-1)!.seq;
  const { tree: now, rules } = await snapshotByRules(store, repo, note.dir, settings, note.rules);
  const files = await changedFiles(repo, now, note.from);
  const counts = (steps: Step[]): { undoable: number; redoable: number } => {
    const { done, undone } = standingOf(steps);
    return { undoable: done.length, redoable: undone.length };
  };
  const base = { run, dir: note.dir, files, turn: note.turn, ...(note.fork !== undefined ? { fork: note.fork } : {}) };
  let { dirs } = checkRestore(note.dir, files);
  if (options.confirm !== undefined) {
    const answer = options.confirm({ dir: note.dir, files });
    if (!(await answer)) return { ...base, ...counts(await stepsOf(store, run)), done: false };
    if (answeredLater(answer)) dirs = checkRestore(note.dir, files).dirs; // again: what stands may have changed while confirm asked
  }
  const noted = noteSnapshot(store, repo, run, lastSeq, note.dir, now, rules, 'rewind');
  const at = formatTimestamp(new Date());
  const mine: RewindNote = { run, turn: note.turn, seq: note.seq, dir: note.dir, from: now, to: note.from, at, ...(note.fork !== undefined ? { fork: note.fork } : {}), undoes: step.key, rules, dirs };
  const made = await applyStep(store, repo, kind, mine, files, note.dirs ?? [], noted);
  await store.putNote(run, snapshotNoteKey(lastSeq, nonce()), encodeSnapshot({ seq: lastSeq, moment: 'rewound', at, dir: note.dir, tree: note.from, rules }));
  return { ...base, step: made, ...counts(await stepsOf(store, run)), done: true };
}
