/**
 * `logbook session diff` and `logbook session rewind`: what a run changed in
 * its workspace, and putting the files (and the conversation, as a fork) back
 * to after a turn. Everything shown of a file (its name, its lines) is what a
 * tool made it, escaped before it reaches the terminal.
 */
import { generateRunId } from '../../agent/run.js';
import { redoRewind, runDiff, rewindRun, spanHeading, undoRewind, type ChangedFile, type FileChange, type RunDiff, type Undone } from '../../api/workspace.js';
import { LogbookError, modeChange, validateId } from '../../core/index.js';
import { fileCounts, shownFileName } from '../../render/file-changes.js';
import { reveal, sanitizeLine, terminalSafeJson } from '../../render/sanitize.js';
import { resolveRunId } from '../../store/resolve.js';
import type { Store } from '../../store/store.js';
import { WORKSPACE_DEFAULTS, type WorkspaceSettings } from '../../store/workspace/repo.js';
import type { LogbookConfig } from '../../config/config.js';
import type { Environment } from '../environment.js';
import { EXIT } from '../exit-codes.js';
import { resumeCommand } from '../resume-command.js';
import { findConfig, storeFor, type StoreFlags } from '../store.js';

export interface DiffFlags extends StoreFlags {
  turn?: number;
  seq?: number;
  stat?: boolean;
  json?: boolean;
}

export interface RewindFlags extends StoreFlags {
  turn?: number;
  files?: boolean;
  conversation?: boolean;
  yes?: boolean;
  undo?: boolean;
  redo?: boolean;
  name?: string;
}

const STATUS_WORD: Record<FileChange['status'], string> = { added: 'added', modified: 'changed', deleted: 'removed', type_changed: 'changed type' };

/** One file of a --stat listing. */
export function statLine(f: FileChange): string {
  return `  ${STATUS_WORD[f.status].padEnd(8)} ${shownFileName(f.path)}  ${fileCounts(f)}`;
}

/** A run's diff as text: each span's heading, its files, and (without --stat) its unified diff. */
export function formatDiff(diff: RunDiff, stat: boolean): string {
  const out: string[] = [];
  if (diff.snapshots === 0) out.push(`run ${diff.runId} has no snapshot of its workspace`);
  for (const span of diff.spans) {
    out.push(`== ${sanitizeLine(spanHeading(span))}`);
    for (const f of span.files) out.push(statLine(f));
    if (!stat && span.patch !== undefined && span.patch !== '') out.push(reveal(span.patch).replace(/\n$/, ''));
  }
  if (diff.snapshots > 0 && diff.spans.length === 0) out.push('no changes to the workspace');
  for (const m of diff.missing) out.push(`no snapshot after seq ${m.seq} (turn ${m.turn}, ${m.moment}): ${sanitizeLine(m.problem)}`);
  return `${out.join('\n')}\n`;
}

function diffJson(diff: RunDiff): unknown {
  return {
    run_id: diff.runId,
    dir: diff.dir,
    snapshots: diff.snapshots,
    changes: diff.spans.map((s) => ({
      by: s.by.kind,
      ...(s.by.kind === 'turn' ? { turn: s.by.turn, seq: s.by.seq, calls: s.by.calls } : {}),
      ...(s.by.kind === 'rewind' && s.by.step !== undefined ? { step: s.by.step, turn: s.by.turn } : {}),
      from_seq: s.fromSeq,
      to_seq: s.toSeq,
      from: s.from,
      to: s.to,
      ...(s.part !== undefined ? { part: s.part } : {}),
      files: s.files.map((f) => {
        const mode = modeChange(f);
        return { path: f.path, status: f.status, binary: f.binary, ...(f.binary ? {} : { added: f.added ?? 0, removed: f.removed ?? 0 }), ...(mode !== null ? { mode } : {}) };
      }),
      ...(s.patch !== undefined ? { diff: s.patch } : {}),
    })),
    missing: diff.missing,
  };
}

async function withStoreAndConfig<T>(environment: Environment, flags: StoreFlags, fn: (store: Store, config: LogbookConfig | undefined) => Promise<T>): Promise<T> {
  const config = findConfig(flags.config, environment, flags.stateDir);
  const store = await storeFor(environment, { config, stateDir: flags.stateDir });
  try {
    return await fn(store, config);
  } finally {
    await store.close();
  }
}

export async function diffSession(environment: Environment, given: string, flags: DiffFlags): Promise<number> {
  if (flags.turn !== undefined && flags.seq !== undefined) throw new LogbookError('usage', '--turn and --seq each pick the changes to show: give one');
  const text = await withStoreAndConfig(environment, flags, async (store, config) => {
    const id = await resolveRunId(store, given);
    // A run stopped before its end (killed in a tool batch) has changes no snapshot holds yet: the workspace now shows them.
    const state = (await store.loadState(id)).state;
    const stopped = state.status === 'open';
    const diff = await runDiff(store, id, {
      ...(stopped ? { now: settingsOf(config) } : {}),
      ...gitPath(environment),
      ...(flags.turn !== undefined ? { turn: flags.turn } : {}),
      ...(flags.seq !== undefined ? { seq: flags.seq } : {}),
      patch: flags.stat !== true,
    });
    return flags.json ? `${terminalSafeJson(diffJson(diff))}\n` : formatDiff(diff, flags.stat === true);
  });
  process.stdout.write(text);
  return EXIT.ok;
}

/**
 * The files a rewind or its undo will change, one per line; those in `edited`
 * (changed outside the run since its last snapshot: a person's own edits)
 * marked, with how to get them back said once under the list.
 */
export function planLines(dir: string, files: readonly ChangedFile[], edited: readonly string[] = [], run?: string): string {
  if (files.length === 0) return `no file in ${sanitizeLine(dir)} changes\n`;
  // The plan goes from now to the target: a file the target has and now lacks is created, and the other way removed.
  const verb = (f: ChangedFile): string => (f.status === 'added' ? 'create ' : f.status === 'deleted' ? 'remove ' : 'restore');
  const marked = new Set(edited);
  const mark = (f: ChangedFile): string => (marked.has(f.path) ? " (edited since the run's last snapshot)" : '');
  const lines = files.map((f) => `  ${verb(f)} ${shownFileName(f.path)}${mark(f)}`);
  if (files.some((f) => marked.has(f.path))) {
    lines.push(`the edited files were changed outside the run; they are kept in the snapshot taken first, and ${run !== undefined ? `logbook session rewind --undo ${run}` : 'an undo'} brings them back`);
  }
  return `${files.length} file${files.length === 1 ? '' : 's'} in ${sanitizeLine(dir)} will change:\n${lines.join('\n')}\n`;
}

/** Asks on a terminal; without one, --yes must say so. With --yes, the answer is given at once (nothing waited for). */
function confirmed(flags: RewindFlags, text: string): boolean | Promise<boolean> {
  process.stderr.write(text);
  if (flags.yes) return true;
  if (!process.stdin.isTTY || !process.stderr.isTTY) throw new LogbookError('usage', 'a rewind changes files: confirm it with --yes when no terminal can ask');
  return asked();
}

async function asked(): Promise<boolean> {
  const { terminalQuestions } = await import('../questions.js');
  const answer = await terminalQuestions().ask('go ahead? [y/N] ', new AbortController().signal);
  return answer !== null && /^y(es)?$/i.test(answer.trim());
}

/** The command's PATH, where git is looked for. */
function gitPath(environment: Environment): { searchPath?: string } {
  const path = environment.env.PATH;
  return path !== undefined && path !== '' ? { searchPath: path } : {};
}

function settingsOf(config: LogbookConfig | undefined): WorkspaceSettings {
  return config?.workspace ?? { ...WORKSPACE_DEFAULTS };
}

/** Which tools have side effects, as the config's command tools say (other tools are not known here). */
function sideEffectsOf(config: LogbookConfig | undefined): (name: string) => boolean {
  const tools = new Map((config?.tools ?? []).map((t) => [t.name, t.side_effects === true]));
  return (name) => tools.get(name) === true;
}

/** What an undo or redo says: what it put back, and what an undo or redo would take back next. */
function undoneLines(undone: Undone, undo: boolean): string {
  const files = `${undone.files.length} file${undone.files.length === 1 ? '' : 's'}`;
  const said = [
    undo
      ? `put back ${files} as they were before the rewind of run ${undone.run} to turn ${undone.turn}`
      : `put back ${files} as the rewind of run ${undone.run} to turn ${undone.turn} left them`,
  ];
  if (undone.fork !== undefined) said.push(`the fork ${undone.fork} stays, and run ${undone.run} holds the conversation as it was`);
  const run = undone.run;
  if (undo) {
    said.push(`redo with: logbook session rewind --redo ${run}`);
    if (undone.undoable > 0) said.push(`the rewind before is still in place: logbook session rewind --undo ${run} takes it back`);
  } else {
    said.push(`undo with: logbook session rewind --undo ${run}`);
    if (undone.redoable > 0) said.push(`an undo before is still in place: logbook session rewind --redo ${run} takes it back`);
  }
  return `${said.join('\n')}\n`;
}

export async function rewindSession(environment: Environment, given: string | undefined, flags: RewindFlags): Promise<number> {
  if (flags.undo || flags.redo) {
    const which = flags.undo ? '--undo' : '--redo';
    if (flags.undo && flags.redo) throw new LogbookError('usage', '--undo takes back the last rewind, --redo the last undo: give one');
    if (flags.turn !== undefined || flags.files || flags.conversation) throw new LogbookError('usage', `${which} puts back what a rewind or undo replaced: it takes no --turn, --files or --conversation`);
    return withStoreAndConfig(environment, flags, async (store, config) => {
      const id = given === undefined ? undefined : await resolveRunId(store, given);
      const take = flags.undo ? undoRewind : redoRewind;
      const undone = await take(store, id, { ...gitPath(environment), settings: settingsOf(config), confirm: ({ dir, files }) => confirmed(flags, planLines(dir, files)) });
      if (!undone.done) {
        process.stderr.write('nothing was changed\n');
        return EXIT.ok;
      }
      process.stdout.write(undoneLines(undone, flags.undo === true));
      return EXIT.ok;
    });
  }
  if (given === undefined) throw new LogbookError('usage', 'name the run to rewind (or --undo to put back the last rewind)');
  if (flags.turn === undefined) throw new LogbookError('usage', 'say which turn to rewind to: --turn N');
  if (flags.files && flags.conversation) throw new LogbookError('usage', '--files and --conversation each rewind one of the two: give neither for both');
  const forkId = flags.name ?? generateRunId();
  validateId(forkId);
  return withStoreAndConfig(environment, flags, async (store, config) => {
    const id = await resolveRunId(store, given);
    const files = flags.conversation !== true;
    const conversation = flags.files !== true;
    const rewound = await rewindRun(store, id, {
      turn: flags.turn!,
      files,
      conversation,
      ...(conversation ? { forkId } : {}),
      settings: settingsOf(config),
      sideEffects: sideEffectsOf(config),
      ...gitPath(environment),
      confirm: (plan) => {
        const effects =
          plan.sideEffects.length === 0
            ? ''
            : `calls after turn ${flags.turn} to tools with side effects; what they did outside the workspace is not undone:\n${plan.sideEffects.map((c) => `  ${sanitizeLine(c.name)} (${sanitizeLine(c.id)})`).join('\n')}\n`;
        return files ? confirmed(flags, planLines(plan.dir, plan.files, plan.editedSince, id) + effects) : (process.stderr.write(effects), true);
      },
    });
    if (!rewound.done) {
      process.stderr.write('nothing was changed\n');
      return EXIT.ok;
    }
    const said: string[] = [];
    if (files) said.push(`restored ${rewound.files.length} file${rewound.files.length === 1 ? '' : 's'} to their state after turn ${flags.turn} of run ${id}`);
    if (rewound.fork !== undefined) said.push(`forked the conversation at turn ${flags.turn} (seq ${rewound.seq}) as run ${rewound.fork}; continue it with: ${resumeCommand(rewound.fork, flags)}`);
    if (files) said.push(`undo with: logbook session rewind --undo ${id}`);
    process.stdout.write(`${said.join('\n')}\n`);
    return EXIT.ok;
  });
}
