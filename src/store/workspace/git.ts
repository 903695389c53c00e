/**
 * The system `git`, run against a git directory of logbook's own (never a
 * user's `.git`): a workspace's snapshots are git trees in it, its index keeps
 * the file stats that let a snapshot of an unchanged workspace cost what `git
 * status` costs. git is run with an argument vector (never a shell), a clean
 * environment (no user or system config, no hooks, no prompts), and a
 * workspace's file names reach it only on stdin or after `--`, never as options.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { LogbookError } from '../../core/index.js';

/** How one git command is run. */
export interface GitCall {
  /** The git directory (logbook's own). */
  gitDir: string;
  /** The index file (the stat cache of one workspace). */
  index?: string;
  /** The workspace: git's work tree and working directory. */
  workTree?: string;
  /** Bytes to give on stdin. */
  input?: Buffer | string;
  /** Extra `-c key=value` settings (logbook's own values, never a model's). */
  config?: Readonly<Record<string, string>>;
  /** Exit codes taken as success besides 0 (`git diff --exit-code`-like commands). */
  okCodes?: readonly number[];
  /** Where git is looked for (a PATH): the caller's, else DEFAULT_SEARCH_PATH. */
  searchPath?: string;
  /** Told of each chunk of stdout as it comes; return false to stop git (its output so far is what is returned). */
  onStdout?: (chunk: Buffer) => boolean;
  /**
   * Its stdout is read once this settles (git starts at once, and waits once
   * its pipe is full); when it rejects, git is stopped.
   */
  readAfter?: Promise<unknown>;
}

/** What a git command gave. */
export interface GitOutput {
  stdout: Buffer;
  code: number;
  /** The caller stopped it (GitCall.onStdout returned false). */
  stopped: boolean;
}

/** Settings every call takes: nothing of the user's git configuration changes what logbook stores or reads. */
const FIXED_CONFIG: Readonly<Record<string, string>> = {
  'core.autocrlf': 'false',
  'core.safecrlf': 'false',
  'core.symlinks': 'true',
  'core.fsmonitor': 'false',
  'core.quotePath': 'false',
  'core.precomposeunicode': 'false',
  'core.filemode': 'true',
  // Snapshots are trees no ref names: a gc would prune them. Nothing is ever collected.
  'gc.auto': '0',
  'maintenance.auto': 'false',
  'advice.addEmbeddedRepo': 'false',
  'diff.renames': 'false',
  'diff.noprefix': 'false',
  'diff.mnemonicPrefix': 'false',
  'color.ui': 'false',
};

/** The git executable: `git` on the search path. */
const GIT = 'git';

/** Where git is looked for when the caller gives no PATH (the command gives its own). */
export const DEFAULT_SEARCH_PATH = '/usr/local/bin:/usr/bin:/bin';

/** A clean environment for git: a PATH to find it, and what points it at logbook's own directories. */
function gitEnv(call: GitCall): NodeJS.ProcessEnv {
  return {
    PATH: call.searchPath ?? DEFAULT_SEARCH_PATH,
    GIT_DIR: call.gitDir,
    ...(call.index !== undefined ? { GIT_INDEX_FILE: call.index } : {}),
    ...(call.workTree !== undefined ? { GIT_WORK_TREE: call.workTree } : {}),
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_OPTIONAL_LOCKS: '0',
    HOME: call.gitDir,
    LC_ALL: 'C',
  };
}

/** What a spawn's ENOENT means: git runs in `cwd`, so a directory gone (a workspace moved away) fails as a missing git would. */
function notFound(workTree: string | undefined): string {
  return workTree !== undefined && !existsSync(workTree) ? `the workspace ${workTree} does not exist (moved or removed?)` : 'git is not installed (the workspace is kept with the system git)';
}

/** How much of git's output is held, while GitCall.readAfter has not settled, before git is left to wait. */
const HELD_BYTES = 256 * 1024;

/** Runs `git ARGS` (arguments logbook built: fixed words, object ids it checked, paths after `--`). */
export function git(args: readonly string[], call: GitCall): Promise<GitOutput> {
  const settings = { ...FIXED_CONFIG, ...call.config };
  const argv = [...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]), ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(GIT, argv, { cwd: call.workTree ?? call.gitDir, env: gitEnv(call), stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let stopped = false;
    const take = (chunk: Buffer): void => {
      if (stopped) return;
      out.push(chunk);
      if (call.onStdout !== undefined && !call.onStdout(chunk)) {
        stopped = true;
        child.kill('SIGTERM');
      }
    };
    // Until readAfter settles, what git writes is held (git waits once a little is: the stream is paused); then taken in order.
    const held: Buffer[] | null = call.readAfter === undefined ? null : [];
    let holding = held !== null;
    let heldBytes = 0;
    child.stdout.on('data', (chunk: Buffer) => {
      if (!holding) return take(chunk);
      held!.push(chunk);
      heldBytes += chunk.length;
      if (heldBytes >= HELD_BYTES) child.stdout.pause();
    });
    const ready: Promise<unknown> =
      call.readAfter?.then(
        () => {
          holding = false;
          for (const chunk of held!.splice(0)) take(chunk);
          child.stdout.resume();
        },
        () => {
          holding = false;
          held!.length = 0;
          stopped = true;
          child.kill('SIGTERM');
          child.stdout.resume();
        },
      ) ?? Promise.resolve();
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.on('error', (e: NodeJS.ErrnoException) => {
      reject(
        new LogbookError('workspace', e.code === 'ENOENT' ? notFound(call.workTree) : `cannot run git: ${e.message}`, {
          cause: e,
        }),
      );
    });
    child.on('close', (code) => void ready.then(() => closed(code)));
    const closed = (code: number | null): void => {
      const exit = code ?? -1;
      if (stopped || exit === 0 || call.okCodes?.includes(exit)) {
        resolve({ stdout: Buffer.concat(out), code: exit, stopped });
        return;
      }
      const why = gitReason(Buffer.concat(err).toString('utf8'));
      reject(new LogbookError('workspace', `git ${args[0]} failed (exit ${exit})${why !== '' ? `: ${why}` : ''}`));
    };
    child.stdin.on('error', () => {}); // git may exit before reading all of it; its exit code says what happened
    child.stdin.end(call.input ?? '');
  });
}

/** Why git failed, in a line: its own fatal or error line (what a caller matches, e.g. a held index.lock), else its last words. */
function gitReason(stderr: string): string {
  const lines = stderr.split('\n').map((l) => l.trim()).filter((l) => l !== '');
  const told = lines.find((l) => /^(?:fatal|error):/.test(l));
  return told ?? lines.slice(-3).join('; ');
}

/** A git object id: what logbook passes to git as a tree or blob, checked first. */
export const OBJECT_ID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/** `id`, checked to be an object id before it becomes an argument. */
export function objectId(id: string): string {
  if (!OBJECT_ID.test(id)) throw new LogbookError('workspace', `not a snapshot id: ${JSON.stringify(id.slice(0, 80))}`);
  return id;
}

/** The objects' contents, read in one `git cat-file --batch` (`call`: the git directory's). */
export async function blobs(call: GitCall, ids: readonly string[]): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  await eachBlob(call, ids, (id, content) => void out.set(id, content));
  return out;
}

/**
 * Reads the objects in one `git cat-file --batch`, handing each to `take` as
 * soon as git has given all of it (in the order of `ids`, each id once): the
 * caller works on one while git reads the next. When `take` throws, git is
 * stopped and that error is the result. With `options.after`, git starts at
 * once and its output is taken once that settles (git is stopped if it rejects).
 */
export async function eachBlob(call: GitCall, ids: readonly string[], take: (id: string, content: Buffer) => void, options: { after?: Promise<unknown> } = {}): Promise<void> {
  if (ids.length === 0) return;
  const unique = [...new Set(ids)];
  let next = 0;
  // What git gave and is not taken yet; parsed again once it holds `need` bytes (a large object's content comes in many chunks).
  let parts: Buffer[] = [];
  let have = 0;
  let need = 0;
  let failed: { error: unknown } | null = null;
  const onStdout = (chunk: Buffer): boolean => {
    parts.push(chunk);
    have += chunk.length;
    if (have < need) return true;
    let pending = parts.length === 1 ? parts[0]! : Buffer.concat(parts, have);
    try {
      let at = 0;
      need = 0;
      while (next < unique.length) {
        const eol = pending.indexOf(0x0a, at);
        if (eol < 0) break;
        const id = unique[next]!;
        const header = pending.subarray(at, eol).toString('utf8');
        const m = /^([0-9a-f]+) (\w+) (\d+)$/.exec(header);
        if (m === null) throw new LogbookError('workspace', `the snapshot store lacks object ${id} (${header})`);
        const end = eol + 1 + Number(m[3]);
        if (pending.length < end + 1) {
          need = end + 1 - at; // the content and its newline are not all here yet
          break;
        }
        next++;
        take(id, pending.subarray(eol + 1, end));
        at = end + 1;
      }
      pending = pending.subarray(at);
      parts = pending.length > 0 ? [pending] : [];
      have = pending.length;
      return true;
    } catch (error) {
      failed = { error };
      return false;
    }
  };
  const { stopped } = await git(['cat-file', '--batch'], { ...call, input: `${unique.map(objectId).join('\n')}\n`, onStdout, ...(options.after !== undefined ? { readAfter: options.after } : {}) });
  if (stopped && failed === null && options.after !== undefined) await options.after; // its rejection is the result
  if (failed !== null) throw (failed as { error: unknown }).error;
  if (next < unique.length) throw new LogbookError('workspace', `the snapshot store lacks object ${unique[next]} (git gave no more)`);
}

/** The tree of an empty workspace. */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
