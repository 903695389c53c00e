/**
 * Workspace snapshots (docs/guide/workspace.md), each against git itself on
 * the same tree in the same run:
 * - a snapshot of an unchanged 10,000-file workspace (WorkspaceTracker.snapshot:
 *   the index's stats reused, the tree written, the note kept) against
 *   `git status --porcelain` in a repository of the same files, alternating;
 *   in-process, the very call a run makes: a run takes its snapshots among its
 *   own records and model calls, so through the binary a snapshot is only the
 *   difference of two whole runs, noisier than the snapshot itself;
 * - the bytes the snapshot store grows by over 100 turns that each change one
 *   10 KiB file of the same workspace, against the bytes changed;
 * - a rewind of 1,000 changed files as a person runs it (`logbook session
 *   rewind --files --yes`, a whole process: the workspace snapshotted, then the
 *   files restored) against `git checkout -f` of the same change in a clone, a
 *   whole process too, both starting from the same files rewritten in place.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FileBackend, FileStore, JournalStore, WorkspaceTracker, encodeRecord, type WorkspaceSettings } from 'logbook';
import { bodyPayloads, meta, random } from './lib/content.js';
import { BIN, tempDir, type BenchOptions } from './lib/env.js';
import type { Section } from './lib/report.js';
import { bytes, interleave, median, ms, now, ratio } from './lib/stats.js';

const TARGET = { snapshot: 1.5, bytes: 2, rewind: 1.5 };
const SETTINGS: WorkspaceSettings = { track: true, exclude: [], maxFiles: 100_000, maxBytes: 1024 ** 3 };
const PATH = process.env.PATH ?? '/usr/bin:/bin';

/** `files` text files of about `size` bytes in directories of 100. */
function fill(dir: string, files: number, size: number, seed = 1): void {
  const rnd = random(seed);
  for (let i = 0; i < files; i++) {
    const sub = join(dir, `d${Math.floor(i / 100)}`);
    if (i % 100 === 0) mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `f${i}.txt`), text(rnd, size));
  }
}

/** Printable text that compresses about as source code does not: hex of random bytes. */
function text(rnd: () => number, size: number): string {
  let out = '';
  while (out.length < size) out += Math.floor(rnd() * 0xffffffff).toString(16).padStart(8, '0') + (out.length % 64 === 56 ? '\n' : '');
  return out.slice(0, size);
}

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', '-c', 'gc.auto=0', ...args], { cwd, env: { PATH, HOME: cwd }, encoding: 'utf8' });

/** The bytes under `dir`. */
function du(dir: string): number {
  let sum = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    sum += e.isDirectory() ? du(p) : statSync(p).size;
  }
  return sum;
}

export async function benchWorkspace(opts: BenchOptions): Promise<Section> {
  const files = 10_000;
  const rounds = opts.quick ? 5 : 15;
  const root = tempDir('workspace');
  const ws = join(root, 'ws');
  mkdirSync(ws);
  fill(ws, files, 400);
  // The baseline: the same files in a git repository of their own, committed.
  git(ws, 'init', '-q');
  git(ws, 'add', '-A');
  git(ws, 'commit', '-q', '-m', 'files');
  // The snapshots: kept in a state directory beside it (the user's .git is left out, as it always is).
  const store = new FileStore(join(root, 'state', 'runs'));
  const tracker = WorkspaceTracker.for(store, SETTINGS, ws, PATH)!;
  await tracker.snapshot('bench-ws', 1, 'tools'); // the first snapshot reads every file once
  git(ws, 'status', '--porcelain');
  let seq = 2;
  const times = await interleave(
    rounds,
    () => tracker.snapshot('bench-ws', seq++, 'tools'),
    () => git(ws, 'status', '--porcelain'),
  );
  const snap = median(times.a);
  const status = median(times.b);

  // 100 turns, each changing one 10 KiB file.
  const objects = join(root, 'state', 'runs', '.workspace', 'objects.git', 'objects');
  const before = du(objects);
  const rnd = random(7);
  const turns = opts.quick ? 20 : 100;
  for (let t = 0; t < turns; t++) {
    writeFileSync(join(ws, `d${t % 100}`, `f${(t % 100) * 100 + 1}.txt`), text(rnd, 10 * 1024));
    await tracker.snapshot('bench-ws', seq++, 'tools');
  }
  const grown = du(objects) - before;
  const changed = turns * 10 * 1024;

  // A rewind of 1,000 changed files through the binary, against `git checkout -f` of the same change, each a process.
  const rw = join(root, 'rw');
  mkdirSync(rw);
  fill(rw, 1_000, 400, 3);
  // The store as `--state-dir` opens it: the journals in STATE/runs, the snapshots in STATE/workspace.
  const rwState = join(root, 'rw-state');
  const rwStore = new JournalStore(new FileBackend(join(rwState, 'runs'), join(rwState, 'workspace')));
  const id = 'bench-rewind';
  const m = meta(id);
  const journal = await rwStore.createFromLines(id, [encodeRecord({ seq: 1, meta: m }), ...[...bodyPayloads(5)].map((p, i) => encodeRecord({ seq: i + 2, ...p } as never))]);
  await journal.close();
  const rwTracker = WorkspaceTracker.for(rwStore, SETTINGS, rw, PATH)!;
  await rwTracker.snapshot(id, 3, 'answer'); // the files after turn 1
  const clone = join(root, 'clone');
  execFileSync('cp', ['-a', rw, clone]);
  git(clone, 'init', '-q');
  git(clone, 'add', '-A');
  git(clone, 'commit', '-q', '-m', 'before');
  const beforeCommit = git(clone, 'rev-parse', 'HEAD').trim();
  const change = (dir: string, seed: number): void => fill(dir, 1_000, 400, seed);
  change(rw, 11);
  await rwTracker.snapshot(id, 5, 'answer'); // after turn 2: every file changed
  change(clone, 11);
  git(clone, 'commit', '-q', '-am', 'after');
  const afterCommit = git(clone, 'rev-parse', 'HEAD').trim();
  const rewindRounds = opts.quick ? 3 : 9;
  const rewindTimes = { a: [] as number[], b: [] as number[] };
  const bareNode: number[] = [];
  const rewindArgs = [BIN, 'session', 'rewind', id, '--turn', '1', '--files', '--yes', '--state-dir', rwState];
  const gitEnv = { PATH, HOME: clone };
  for (let r = 0; r < rewindRounds; r++) {
    // Each side starts from the state after the run as a tool leaves it (the same files, rewritten in place by
    // the same writer, untimed), and goes back to the state after turn 1: what a file system does to a file
    // rewritten in place (its blocks allocated as it is flushed) is what both sides pay for replacing it.
    change(rw, 11);
    git(clone, 'checkout', '-q', '-f', '--detach', afterCommit);
    change(clone, 11);
    const sides = r % 2 === 0 ? (['a', 'b'] as const) : (['b', 'a'] as const);
    for (const side of sides) {
      const start = now();
      if (side === 'a') execFileSync(process.execPath, rewindArgs, { cwd: rw, env: { PATH, HOME: root }, stdio: 'ignore' });
      else execFileSync('git', ['-c', 'gc.auto=0', 'checkout', '-q', '-f', '--detach', beforeCommit], { cwd: clone, env: gitEnv, stdio: 'ignore' });
      rewindTimes[side].push(now() - start);
    }
    if (readFileSync(join(rw, 'd9', 'f999.txt'), 'utf8') !== readFileSync(join(clone, 'd9', 'f999.txt'), 'utf8')) throw new Error('the rewind did not put the files back as git did');
    const start = now();
    execFileSync(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    bareNode.push(now() - start);
  }
  const rewind = median(rewindTimes.a);
  const checkout = median(rewindTimes.b);
  const verdict = (ok: boolean): 'met' | 'missed' | '—' => (opts.quick ? '—' : ok ? 'met' : 'missed');
  return {
    rows: [
      {
        what: `snapshot of an unchanged ${files.toLocaleString('en')}-file workspace`,
        measured: ms(snap),
        baseline: `\`git status --porcelain\` on the same files: ${ms(status)}`,
        figure: ratio(snap / status),
        target: `≤ ${TARGET.snapshot}×`,
        verdict: verdict(snap / status <= TARGET.snapshot),
        growth: '—',
      },
      {
        what: `snapshot store growth over ${turns} turns each changing one 10 KiB file of ${files.toLocaleString('en')}`,
        measured: bytes(grown),
        baseline: `bytes changed: ${bytes(changed)}`,
        figure: ratio(grown / changed),
        target: `≤ ${TARGET.bytes}×`,
        verdict: verdict(grown / changed <= TARGET.bytes),
        growth: '—',
      },
      {
        what: 'rewind of 1,000 changed files through the binary (`session rewind --files --yes`: snapshot of now, then restore)',
        measured: ms(rewind),
        baseline: `\`git checkout -f\` of the same change: ${ms(checkout)}`,
        figure: ratio(rewind / checkout),
        target: `≤ ${TARGET.rewind}×`,
        verdict: verdict(rewind / checkout <= TARGET.rewind),
        growth: '—',
      },
    ],
    notes: [
      `Workspace: ${files.toLocaleString('en')} files of 400 bytes in directories of 100. A snapshot is WorkspaceTracker.snapshot (git add with logbook's own index and git directory, git write-tree, the note written), medians of ${rounds} rounds alternating with \`git status --porcelain\` in a repository holding the same files committed. Store growth is the bytes of the snapshot git directory's objects (loose, zlib-compressed; git gc never runs on it) after ${turns} turns each rewriting one file with 10 KiB of hex text, over the bytes rewritten. Rewind: \`node bin/logbook session rewind RUN --turn 1 --files --yes --state-dir STATE\` (spawn to exit) on a run whose snapshot after turn 1 differs from the workspace in 1,000 files (400 bytes each), against \`git checkout -q -f --detach COMMIT\` (spawn to exit) of a commit holding the state after turn 1 in a repository of the same files, medians of ${rewindRounds} rounds alternating (\`node -e 0\` took ${ms(median(bareNode))} in the same rounds, which the rewind's process pays and git's does not); after each round a restored file is checked to be git's; before each round both sides' files are rewritten in place to the state after the run by the same writer (untimed), so both replace files a tool just wrote (replacing a file whose blocks are allocated costs far more than one never flushed, on ext4 several milliseconds a file).`,
    ],
  };
}
