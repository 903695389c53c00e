import { chmodSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore, WORKSPACE_DEFAULTS } from '../../src/index.js';
import { WorkspaceTracker } from '../../src/agent/workspace.js';
import { WorkspaceRepo } from '../../src/store/workspace/repo.js';
import { parseSnapshot } from '../../src/store/run-notes.js';
import { assistant, at, completed, meta } from '../helpers/records.js';
import { tempDir } from '../helpers/tmp.js';

/** A `git` on a search path of its own that logs each subcommand it is given to `log`, then runs the real git. */
function loggingGit(root: string): { searchPath: string; calls: () => string[] } {
  const bin = join(root, 'bin');
  const log = join(root, 'git.log');
  mkdirSync(bin);
  writeFileSync(log, '');
  const real = ['/usr/bin/git', '/usr/local/bin/git', '/bin/git'].find((p) => {
    try {
      return readFileSync(p).length > 0;
    } catch {
      return false;
    }
  })!;
  // The subcommand is the first argument that is neither an option nor an option's value (`-c key=value`).
  writeFileSync(
    join(bin, 'git'),
    `#!/bin/sh\nsub=""; skip=0\nfor a in "$@"; do if [ $skip = 1 ]; then skip=0; elif [ "$a" = "-c" ]; then skip=1; elif [ -z "$sub" ] && [ "\${a#-}" = "$a" ]; then sub="$a"; fi; done\necho "$sub" >> '${log}'\nexec '${real}' "$@"\n`,
  );
  chmodSync(join(bin, 'git'), 0o755);
  return { searchPath: `${bin}:/usr/bin:/bin`, calls: () => readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

/** A workspace of one file, a file store beside it, and a logging git. */
function trackedWorkspace(): { root: string; ws: string; store: FileStore; git: ReturnType<typeof loggingGit> } {
  const root = tempDir('logbook-tracker-');
  const ws = join(root, 'ws');
  mkdirSync(ws);
  writeFileSync(join(ws, 'a.txt'), 'one\n');
  return { root, ws, store: new FileStore(join(root, 'runs')), git: loggingGit(root) };
}

/** Run `id` in a tracked workspace whose index an earlier process kept (its end snapshotted), and this process's tracker of it; `before`: git's calls so far. */
async function laterProcess(id: string) {
  const { store, ws, git } = trackedWorkspace();
  const settings = { ...WORKSPACE_DEFAULTS, track: true };
  const run = await store.create(id, meta(id));
  await WorkspaceTracker.for(store, settings, ws, git.searchPath)!.snapshot(id, 1, 'end');
  const tracker = WorkspaceTracker.for(store, settings, ws, git.searchPath)!;
  return { git, run, tracker, before: git.calls().length };
}

describe('WorkspaceTracker', () => {
  it("makes a snapshot begun before its record once, and notes it after: a readying asked first leaves the git work to it", async () => {
    const { root, ws, store, git } = trackedWorkspace();
    const tracker = WorkspaceTracker.for(store, { ...WORKSPACE_DEFAULTS, track: true }, ws, git.searchPath)!;
    const run = await store.create('tracked', meta('tracked'));
    // The answer streams (readied), ends (the end's snapshot begun), and its last record is written before the snapshot is asked.
    tracker.prepare();
    tracker.begin();
    await run.append({ seq: 2, terminal: { reason: 'completed' } });
    expect(await tracker.snapshot('tracked', 2, 'end')).toBeNull();
    await run.close();
    const calls = git.calls();
    expect(calls.filter((c) => c === 'add')).toHaveLength(1); // the readying did not add what the snapshot's own add takes
    expect(calls.filter((c) => c === 'write-tree')).toHaveLength(1);
    const notes = readdirSync(join(root, 'runs')).filter((n) => n.startsWith('tracked.ws-2-'));
    expect(notes).toHaveLength(1);
    const note = parseSnapshot(readFileSync(join(root, 'runs', notes[0]!), 'utf8'));
    expect(note).toMatchObject({ seq: 2, moment: 'end', dir: ws, tree: expect.stringMatching(/^[0-9a-f]{40}$/) });
    expect(note?.problem).toBeUndefined();
    // A snapshot asked with nothing begun looks again: the workspace as it is then.
    writeFileSync(join(ws, 'a.txt'), 'two\n');
    await tracker.snapshot('tracked', 2, 'end');
    const trees = readdirSync(join(root, 'runs'))
      .filter((n) => n.startsWith('tracked.ws-2-'))
      .map((n) => parseSnapshot(readFileSync(join(root, 'runs', n), 'utf8'))?.tree);
    expect(new Set(trees).size).toBe(2);
  });

  it('takes the rules and the tree an earlier process kept for an unchanged workspace without writing them again, unless its git directory was made anew', async () => {
    const { root, ws, store, git } = trackedWorkspace();
    const settings = { ...WORKSPACE_DEFAULTS, track: true };
    const run = await store.create('kept', meta('kept'));
    const treeOf = async (seq: number): Promise<string | undefined> => {
      // A tracker of its own for each snapshot: what one process knows, the next does not.
      await WorkspaceTracker.for(store, settings, ws, git.searchPath)!.snapshot('kept', seq, 'end');
      const name = readdirSync(join(root, 'runs')).find((n) => n.startsWith(`kept.ws-${seq}-`))!;
      return parseSnapshot(readFileSync(join(root, 'runs', name), 'utf8'))?.tree;
    };
    const first = await treeOf(1);
    expect(git.calls()).toEqual(expect.arrayContaining(['hash-object', 'add', 'write-tree']));
    const before = git.calls().length;
    expect(await treeOf(2)).toBe(first);
    expect(git.calls().slice(before)).toEqual(['ls-files', 'add']); // the limits' look, and the add that finds nothing changed
    // A git directory made anew holds neither: both are written again, and the tree is the same.
    rmSync(join(root, 'runs', '.workspace', 'objects.git'), { recursive: true });
    const again = git.calls().length;
    expect(await treeOf(3)).toBe(first);
    expect(git.calls().slice(again)).toEqual(expect.arrayContaining(['hash-object', 'write-tree']));
    await run.close();
  });

  it('an answer that came whole is snapshotted once: the readying asked as it began gives way to the end snapshot asked before the event loop turned', async () => {
    const { git, run, tracker, before } = await laterProcess('whole'); // an earlier process kept the index
    // The answer begins and ends in one burst of events: its record is written between.
    tracker.prepare();
    await run.append(at(2, assistant(0)));
    tracker.begin();
    await run.append(at(3, completed));
    expect(await tracker.snapshot('whole', 3, 'end')).toBeNull();
    await new Promise((r) => setImmediate(r));
    await tracker.snapshot('whole', 3, 'end'); // queued behind whatever the tracker still had to do
    expect(git.calls().slice(before)).toEqual(['ls-files', 'add', 'add']); // the look begun as the answer began, the end's, and this one's: no readying after the end
    await run.close();
  });

  it('a look asked as a request is made walks the limits at once, and the snapshot after it does not walk them again', async () => {
    const { git, run, tracker, before } = await laterProcess('looked'); // an earlier process kept the index
    tracker.look();
    // The request is in flight: the walk runs, and nothing is added to the store.
    for (let turns = 0; turns < 500 && !git.calls().slice(before).includes('ls-files'); turns++) await new Promise((r) => setTimeout(r, 10));
    expect(git.calls().slice(before)).toEqual(['ls-files']);
    tracker.look(); // the next request: looked at once a process
    expect(await tracker.snapshot('looked', 2, 'end')).toBeNull();
    expect(git.calls().slice(before)).toEqual(['ls-files', 'add']);
    await run.close();
  });

  it('a readying asked while an answer streams takes the files in ahead of the snapshot at its record', async () => {
    const { store, ws, git } = trackedWorkspace();
    const settings = { ...WORKSPACE_DEFAULTS, track: true };
    const run = await store.create('streams', meta('streams'));
    await WorkspaceTracker.for(store, settings, ws, git.searchPath)!.snapshot('streams', 1, 'end');
    const tracker = WorkspaceTracker.for(store, settings, ws, git.searchPath)!;
    const before = git.calls().length;
    writeFileSync(join(ws, 'b.txt'), 'new\n');
    tracker.prepare();
    // The answer goes on streaming: the look at the limits ends and the readying's add begins.
    for (let turns = 0; turns < 500 && !git.calls().slice(before).includes('add'); turns++) await new Promise((r) => setTimeout(r, 10));
    tracker.begin();
    expect(await tracker.snapshot('streams', 2, 'end')).toBeNull();
    expect(git.calls().slice(before)).toEqual(['ls-files', 'add', 'write-tree', 'add']); // the look and the readying's add, then the end's, which found nothing more
    await run.close();
  });

  it('a workspace whose index is kept, over a limit now, is not tracked, said as a first look says it: grown since, or its index written past the limits', async () => {
    const { root, ws, store, git } = trackedWorkspace();
    const settings = { ...WORKSPACE_DEFAULTS, track: true, maxFiles: 3 };
    const run = await store.create('grown', meta('grown'));
    const problem = async (seq: number): Promise<{ warning: string | null; problem: string | undefined }> => {
      const warning = await WorkspaceTracker.for(store, settings, ws, git.searchPath)!.snapshot('grown', seq, 'end');
      const name = readdirSync(join(root, 'runs')).find((n) => n.startsWith(`grown.ws-${seq}-`))!;
      return { warning, problem: parseSnapshot(readFileSync(join(root, 'runs', name), 'utf8'))?.problem };
    };
    expect(await problem(1)).toEqual({ warning: null, problem: undefined });
    for (const n of [1, 2, 3, 4, 5]) writeFileSync(join(ws, `f${n}.txt`), String(n));
    const before = git.calls().length;
    const notTracked = `the workspace ${ws} is not tracked: it holds more than 3 files (workspace.max_files)`;
    expect(await problem(2)).toEqual({ warning: notTracked, problem: notTracked });
    expect(git.calls().slice(before)).toEqual(['ls-files']); // the limits' look told, before any add
    // An index written without limits (a rewind's snapshot of the workspace as it is) holds them all: nothing is added, and the index is measured.
    await new WorkspaceRepo(store.workspace!.home, git.searchPath).snapshot(ws, settings);
    expect(await problem(3)).toEqual({ warning: notTracked, problem: notTracked });
    await run.close();
  });
});
