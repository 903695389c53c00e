/**
 * A run's workspace at its edges, through the binary on real files: what
 * another process holding the workspace's index does to a snapshot, a rewind
 * refused before it touches anything, and undo and redo walking the rewinds.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { FileBackend, JournalStore, rewindRun } from '../../src/index.js';
import { runCli } from '../helpers/cli.js';
import { until } from '../helpers/tasks.js';
import { sh, workspaceSetup, type WorkspaceSetup } from '../helpers/workspace.js';

type Setup = WorkspaceSetup;

const setup = (turns: unknown[]): Setup => workspaceSetup('logbook-ws-edges-', turns);

/**
 * The index of the workspace's snapshots (STATE/workspace/index/HASH-RULES, made at the run's first snapshot),
 * as a shell word for a tool's command.
 */
function indexOf(s: Setup): string {
  const hash = createHash('sha256').update(s.ws).digest('hex').slice(0, 32);
  return `"$(ls -d '${join(s.state, 'workspace', 'index')}/${hash}-'* | grep -v '[.]')"`;
}

function cli(s: Setup, args: string[]) {
  return runCli([...args, '--config', s.config, '--state-dir', s.state], { cwd: s.ws });
}

describe("a run's workspace at its edges", () => {
  it("waits for the workspace's index while another process holds it, rather than losing the snapshot", async () => {
    const s = setup([]);
    // The index of this workspace (STATE/workspace/index/HASH), held as another run's snapshot holds it: logbook's
    // flock on HASH.flock, and git's HASH.lock under it; the tool returns once both are held, and they go a second later.
    const index = indexOf(s);
    const held = join(s.root, 'held');
    const stolen = join(s.root, 'stolen');
    const holder = `i=${index}; (exec 9>"$i.flock"; flock 9; touch "$i.lock" '${held}'; sleep 1; [ -e "$i.lock" ] || touch '${stolen}'; rm -f "$i.lock"; touch '${held}.done') >/dev/null 2>&1 &`;
    writeFileSync(
      join(s.root, 'script.json'),
      JSON.stringify({
        turns: [
          { text: 'one', tool_calls: [sh(`echo one > one.txt; ${holder} while [ ! -e '${held}' ]; do sleep 0.01; done`)] },
          { text: 'two', tool_calls: [sh('echo two > two.txt')] },
          { text: 'done' },
        ],
      }),
    );
    const ran = await cli(s, ['run', '--name', 'held', 'go']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).not.toContain('no snapshot');
    const diff = await cli(s, ['session', 'diff', 'held', '--stat']);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toMatch(/turn 1 \(seq 2\), by sh \(toolu_0_0\)\n +added +one\.txt/);
    expect(diff.stdout).toMatch(/turn 2 \(seq 4\), by sh \(toolu_1_0\)\n +added +two\.txt/);
    await until('the holder to let go', () => existsSync(`${held}.done`));
    expect(existsSync(stolen)).toBe(false); // the live lock was waited for, never taken away
  });

  it("takes no notice of an index lock a killed git left behind: the next snapshot is made at once, with no warning", async () => {
    const s = setup([]);
    writeFileSync(
      join(s.root, 'script.json'),
      JSON.stringify({
        turns: [
          // git's lock on the index, as a git killed in the middle of a snapshot leaves it: nobody holds logbook's flock.
          { text: 'one', tool_calls: [sh(`echo one > one.txt; i=${indexOf(s)}; touch "$i.lock"`)] },
          { text: 'two', tool_calls: [sh('echo two > two.txt')] },
          { text: 'done' },
        ],
      }),
    );
    const ran = await cli(s, ['run', '--name', 'stale', 'go']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).not.toContain('no snapshot');
    const diff = await cli(s, ['session', 'diff', 'stale', '--stat']);
    expect(diff.stdout).toMatch(/turn 2 \(seq 4\), by sh \(toolu_1_0\)\n +added +two\.txt/);
  });
});

describe('a rewind that would meet what it must not touch', () => {
  it('is refused before anything changes, naming the path, with its own exit code: a directory holding ignored files where the snapshot has a file, an ignored file where it has one, an ignored link where it has a directory', async () => {
    const s = setup([
      { text: 'one', tool_calls: [sh(`echo file > out; echo gen > "$(printf 'gen\\033[1m.txt')"; mkdir sub; echo s > sub/s.txt`)] },
      { text: 'two', tool_calls: [sh('rm out; mkdir out; echo in > out/a.txt; echo log > out/debug.log; echo a2 >> a.txt; echo new > new.txt; echo z2 >> z.txt; rm gen*; rm -r sub')] },
      { text: 'done' },
    ]);
    writeFileSync(join(s.ws, '.gitignore'), '*.log\n');
    writeFileSync(join(s.ws, 'a.txt'), 'a\n');
    writeFileSync(join(s.ws, 'z.txt'), 'z\n');
    const ran = await cli(s, ['run', '--name', 'dirs', 'go']);
    expect(ran.code, ran.stderr).toBe(0);
    const before = contents(s.ws);
    const runs = readdirSync(join(s.state, 'runs')).sort();

    const rewound = await cli(s, ['session', 'rewind', 'dirs', '--turn', '1', '--yes', '--name', 'dirs-1']);
    expect(rewound.code, rewound.stderr).toBe(9);
    expect(rewound.stderr.trim().split('\n')).toHaveLength(1);
    expect(rewound.stderr).toContain('"out/debug.log" is in the directory "out" where the snapshot has a file');
    expect(rewound.stderr).toContain('move it away');
    expect(contents(s.ws)).toEqual(before);
    // Nothing beside the run either: no fork, no rewind note.
    expect(readdirSync(join(s.state, 'runs')).sort()).toEqual(runs);

    // Moved away, an ignored file where the snapshot has one stops it the same way, its name quoted as the plan and the diff quote it.
    rmSync(join(s.ws, 'out', 'debug.log'));
    writeFileSync(join(s.ws, '.gitignore'), '*.log\ngen*\n');
    writeFileSync(join(s.ws, 'gen\u001b[1m.txt'), 'mine, ignored');
    const again = await cli(s, ['session', 'rewind', 'dirs', '--turn', '1', '--yes', '--files']);
    expect(again.code, again.stderr).toBe(9);
    expect(again.stderr).toContain('"gen\\033[1m.txt" is a file the snapshot does not track (ignored or excluded), where it has a file');
    expect(readFileSync(join(s.ws, 'gen\u001b[1m.txt'), 'utf8')).toBe('mine, ignored');
    expect(readFileSync(join(s.ws, 'z.txt'), 'utf8')).toBe('z\nz2\n');

    // A link the snapshot does not track where it has a directory: never written through.
    rmSync(join(s.ws, 'gen\u001b[1m.txt'));
    const elsewhere = join(s.root, 'elsewhere');
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(s.ws, 'sub'));
    writeFileSync(join(s.ws, '.gitignore'), '*.log\ngen*\nsub\n');
    const link = await cli(s, ['session', 'rewind', 'dirs', '--turn', '1', '--yes', '--files']);
    expect(link.code, link.stderr).toBe(9);
    expect(link.stderr).toContain('"sub" is a link the snapshot does not track, where it has a directory');
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(readFileSync(join(s.ws, 'z.txt'), 'utf8')).toBe('z\nz2\n');
  });
});

describe('a rewind asked about', () => {
  it('checks what stands again when the answer came later, by a promise or any thenable (something put in the way meanwhile refuses it, nothing changed); an answer given at once goes ahead', async () => {
    const s = setup([{ text: 'one', tool_calls: [sh('echo 1 > a.txt')] }, { text: 'two', tool_calls: [sh('rm a.txt; echo 2 > b.txt')] }, { text: 'done' }]);
    writeFileSync(join(s.ws, '.gitignore'), '*.log\n');
    const ran = await cli(s, ['run', '--name', 'asked', 'go']);
    expect(ran.code, ran.stderr).toBe(0);
    const store = new JournalStore(new FileBackend(join(s.state, 'runs'), join(s.state, 'workspace')));
    onTestFinished(() => store.close());
    // a.txt comes back at turn 1: meanwhile an ignored directory stands where it goes, which the restore must not touch.
    const inTheWay = (): void => {
      mkdirSync(join(s.ws, 'a.txt'));
      writeFileSync(join(s.ws, 'a.txt', 'kept.log'), 'mine\n');
    };
    const later = rewindRun(store, 'asked', { turn: 1, files: true, conversation: false, searchPath: process.env.PATH!, confirm: async () => (inTheWay(), true) });
    await expect(later).rejects.toMatchObject({ code: 'workspace_conflict' });
    expect(readFileSync(join(s.ws, 'a.txt', 'kept.log'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(s.ws, 'b.txt'), 'utf8')).toBe('2\n');
    rmSync(join(s.ws, 'a.txt'), { recursive: true });
    // An answer that comes later through a thenable other than a Promise is later too.
    const thenable: PromiseLike<boolean> = { then: (resolve) => (setTimeout(() => resolve!(true), 0), undefined as never) };
    const laterThenable = rewindRun(store, 'asked', { turn: 1, files: true, conversation: false, searchPath: process.env.PATH!, confirm: () => (inTheWay(), thenable) });
    await expect(laterThenable).rejects.toMatchObject({ code: 'workspace_conflict' });
    expect(readFileSync(join(s.ws, 'a.txt', 'kept.log'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(s.ws, 'b.txt'), 'utf8')).toBe('2\n');
    rmSync(join(s.ws, 'a.txt'), { recursive: true });
    const atOnce = await rewindRun(store, 'asked', { turn: 1, files: true, conversation: false, searchPath: process.env.PATH!, confirm: () => true });
    expect(atOnce.done).toBe(true);
    expect(contents(s.ws)).toEqual({ '.gitignore': '*.log\n', 'a.txt': '1\n' });
  });
});

describe('undo and redo of rewinds', () => {
  it('walk back through each rewind in turn and forward again, each a step of its own, with the directories a restore emptied made again', async () => {
    const s = setup([
      { text: 'one', tool_calls: [sh('mkdir new; echo 1 > new/x.txt; echo 1 > a.txt')] },
      { text: 'two', tool_calls: [sh('echo 2 > a.txt; rm new/x.txt')] },
      { text: 'three', tool_calls: [sh('echo 3 > a.txt')] },
      { text: 'done' },
    ]);
    const ran = await cli(s, ['run', '--name', 'steps', 'go']);
    expect(ran.code, ran.stderr).toBe(0);
    // The tools left an empty directory: git keeps none, the rewinds' notes do.
    const state = (): [string, boolean, boolean] => [readFileSync(join(s.ws, 'a.txt'), 'utf8').trim(), existsSync(join(s.ws, 'new')), existsSync(join(s.ws, 'new', 'x.txt'))];
    expect(state()).toEqual(['3', true, false]);
    const step = async (...args: string[]): Promise<string> => {
      const r = await cli(s, ['session', 'rewind', ...args, '--yes']);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    };
    await step('steps', '--turn', '2', '--files');
    expect(state()).toEqual(['2', true, false]);
    await step('steps', '--turn', '1', '--files');
    expect(state()).toEqual(['1', true, true]);

    expect(await step('--undo')).toContain('put back 2 files as they were before the rewind of run steps to turn 1');
    expect(state()).toEqual(['2', true, false]);
    await step('--undo', 'steps');
    expect(state()).toEqual(['3', true, false]);
    const none = await cli(s, ['session', 'rewind', '--undo', 'steps', '--yes']);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('run steps has no rewind left to undo');
    expect(state()).toEqual(['3', true, false]);

    expect(await step('--redo', 'steps')).toContain('put back 1 file as the rewind of run steps to turn 2 left them');
    expect(state()).toEqual(['2', true, false]);
    await step('--redo');
    expect(state()).toEqual(['1', true, true]);
    const noRedo = await cli(s, ['session', 'rewind', '--redo', 'steps', '--yes']);
    expect(noRedo.code).toBe(1);
    expect(noRedo.stderr).toContain('run steps has no undo to redo');
    // A redo is undone as a rewind is.
    await step('--undo');
    expect(state()).toEqual(['2', true, false]);

    // Each step is named in the diff as what it was, from its note: rewinds, undos and redos alike.
    const diff = await cli(s, ['session', 'diff', 'steps', '--stat']);
    expect(diff.code, diff.stderr).toBe(0);
    const headings = diff.stdout.split('\n').filter((l) => l.startsWith('== ') && !l.startsWith('== turn'));
    expect(headings.map((h) => h.replace(/ \(after seq \d+\)$/, ''))).toEqual([
      '== the rewind to turn 2',
      '== the rewind to turn 1',
      '== the undo of the rewind to turn 1',
      '== the undo of the rewind to turn 2',
      '== the redo of the rewind to turn 2',
      '== the redo of the rewind to turn 1',
      '== the undo of the rewind to turn 1',
    ]);
    const json = JSON.parse((await cli(s, ['session', 'diff', 'steps', '--json', '--stat'])).stdout) as { changes: Record<string, unknown>[] };
    const steps = json.changes.filter((c) => c.by === 'rewind').map((c) => [c.step, c.turn]);
    expect(steps).toEqual([['rewind', 2], ['rewind', 1], ['undo', 1], ['undo', 2], ['redo', 2], ['redo', 1], ['undo', 1]]);
  });
});

describe('a rewind after the config changed what is tracked', () => {
  it('follows the rules the run was snapshotted with: a file they left out is never touched, whatever the config says now or the rules file kept here holds', async () => {
    const s = setup([
      { text: 'one', tool_calls: [sh('echo one > a.txt; echo log1 > x.log')] },
      { text: 'two', tool_calls: [sh('echo two > a.txt; echo log2 > y.log')] },
      { text: 'done' },
    ]);
    const config = readFileSync(s.config, 'utf8');
    writeFileSync(s.config, `workspace: { exclude: ['*.log'] }\n${config}`);
    const ran = await cli(s, ['run', '--name', 'logs', 'go']);
    expect(ran.code, ran.stderr).toBe(0);
    writeFileSync(s.config, config); // *.log no longer left out
    const rewound = await cli(s, ['session', 'rewind', 'logs', '--turn', '1', '--files', '--yes']);
    expect(rewound.code, rewound.stderr).toBe(0);
    expect(contents(s.ws)).toEqual({ 'a.txt': 'one\n', 'x.log': 'log1\n', 'y.log': 'log2\n' });

    // The rules' text is read from its excludes file, named by its blob id; where that file is missing (a snapshot made
    // elsewhere) or holds other bytes, git's copy is read: the rules stay the run's.
    const excludes = join(s.state, 'workspace', 'excludes');
    for (const kept of readdirSync(excludes)) writeFileSync(join(excludes, kept), '# nothing left out\n');
    const undone = await cli(s, ['session', 'rewind', '--undo', 'logs', '--yes']);
    expect(undone.code, undone.stderr).toBe(0);
    expect(contents(s.ws)).toEqual({ 'a.txt': 'two\n', 'x.log': 'log1\n', 'y.log': 'log2\n' });
    rmSync(excludes, { recursive: true });
    const redone = await cli(s, ['session', 'rewind', '--redo', 'logs', '--yes']);
    expect(redone.code, redone.stderr).toBe(0);
    expect(contents(s.ws)).toEqual({ 'a.txt': 'one\n', 'x.log': 'log1\n', 'y.log': 'log2\n' });
  });
});

/** Every file under `dir` with its content. */
function contents(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string, rel: string): void => {
    for (const name of readdirSync(at).sort()) {
      const r = rel === '' ? name : `${rel}/${name}`;
      const st = lstatSync(join(at, name));
      if (st.isDirectory()) walk(join(at, name), r);
      else out[r] = readFileSync(join(at, name), 'utf8');
    }
  };
  walk(dir, '');
  return out;
}

describe('session diff of a turn or seq the run does not have', () => {
  it('is a usage error naming how many turns or seqs there are, not "no changes"; a rewind of a workspace moved away names it as gone, not git as missing', async () => {
    const s = setup([{ text: 'one', tool_calls: [sh('echo one > one.txt')] }, { text: 'done' }]);
    const ran = await cli(s, ['run', '--name', 'short', 'go']);
    expect(ran.code, ran.stderr).toBe(0);
    const turn = await cli(s, ['session', 'diff', 'short', '--turn', '9']);
    expect(turn.code).toBe(2);
    expect(turn.stderr).toContain('no turn 9: run short has 2 model turns');
    const seq = await cli(s, ['session', 'diff', 'short', '--seq', '99']);
    expect(seq.code).toBe(2);
    expect(seq.stderr).toContain('no seq 99: run short has seqs 1 to');
    const real = await cli(s, ['session', 'diff', 'short', '--turn', '1', '--stat']);
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout).toMatch(/added +one\.txt/);

    // A workspace moved away is named as gone, not taken for a missing git.
    renameSync(s.ws, `${s.ws}-moved`);
    const gone = await runCli(['session', 'rewind', 'short', '--turn', '1', '--yes', '--config', s.config, '--state-dir', s.state], { cwd: s.root });
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).not.toContain('git is not installed');
    expect(gone.stderr).toContain(`the workspace ${s.ws} does not exist (moved or removed?)`);
  });
});

describe('session diff names each file as git does', () => {
  it('quotes a name holding a control character as the diff header does, names a file that is not UTF-8 binary, and a chmod as a mode change', async () => {
    const s = setup([
      { text: 'odd files', tool_calls: [sh(`chmod +x run.sh; printf 'x\\n' > "$(printf 'tab\\there')"; printf '\\377\\376\\375 not UTF-8\\n' > blob.bin; printf 'ok\\033]0;; rm -rf ~ ;\\007 \\033[8mhid\\033[0m\\n' > hidden.sh`)] },
      { text: 'done' },
    ]);
    writeFileSync(join(s.ws, 'run.sh'), 'echo hi\n', { mode: 0o644 });
    const ran = await cli(s, ['run', '--name', 'odd', 'go']);
    expect(ran.code, ran.stderr).toBe(0);

    const stat = await cli(s, ['session', 'diff', 'odd', '--stat']);
    expect(stat.code, stat.stderr).toBe(0);
    expect(stat.stdout).toContain('added    "tab\\there"  +1 -0');
    expect(stat.stdout).toContain('added    blob.bin  binary');
    expect(stat.stdout).toContain('changed  run.sh  mode 100644 \u2192 100755');

    const diff = await cli(s, ['session', 'diff', 'odd']);
    expect(diff.stdout).toContain('diff --git "a/tab\\there" "b/tab\\there"');
    expect(diff.stdout).toContain('Binary files /dev/null and b/blob.bin differ');
    expect(diff.stdout).toContain('old mode 100644\nnew mode 100755');
    expect(diff.stdout).not.toContain('\ufffd');
    // A diff is reviewed: a line's escape sequence is shown, never removed with what it wraps.
    expect(diff.stdout).toContain('+ok\u241b]0;; rm -rf ~ ;\u2407 \u241b[8mhid\u241b[0m\n');
    expect(diff.stdout).not.toContain('\u001b');

    const json = JSON.parse((await cli(s, ['session', 'diff', 'odd', '--json'])).stdout) as { changes: { files: Record<string, unknown>[]; diff: string }[] };
    const files = Object.fromEntries(json.changes[0]!.files.map((f) => [f.path, f]));
    expect(files['blob.bin']).toEqual({ path: 'blob.bin', status: 'added', binary: true });
    expect(files['run.sh']).toEqual({ path: 'run.sh', status: 'modified', binary: false, added: 0, removed: 0, mode: { from: '100644', to: '100755' } });
    expect(files['tab\there']).toMatchObject({ status: 'added', added: 1 });
    expect(json.changes[0]!.diff).not.toContain('\ufffd');

    const md = await cli(s, ['session', 'export', 'odd', '--format', 'md']);
    expect(md.stdout).toContain('- `"tab\\there"`: added, +1 -0');
    expect(md.stdout).toContain('- `run.sh`: modified, mode 100644 \u2192 100755');
    for (const format of ['md', 'html']) {
      const withDiffs = await cli(s, ['session', 'export', 'odd', '--format', format, '--diffs']);
      expect(withDiffs.stdout, format).toContain('+ok\u241b]0;; rm -rf ~ ;\u2407 \u241b[8mhid\u241b[0m\n');
    }
  });
});

describe('a rewind of a run a writer still holds', () => {
  it('is refused, files untouched and nothing made, naming the run and what to do; a fork of its conversation goes ahead; an undo is refused the same way', async () => {
    const s = setup([]);
    const go = join(s.root, 'go');
    writeFileSync(
      join(s.root, 'script.json'),
      JSON.stringify({
        turns: [
          { text: 'one', tool_calls: [sh('echo one > f.txt')] },
          { text: 'two', tool_calls: [sh(`echo two > f.txt; while [ ! -e '${go}' ]; do sleep 0.05; done; echo three > g.txt`)] },
          { text: 'done' },
        ],
      }),
    );
    const running = cli(s, ['run', '--name', 'slow', 'go']);
    // The run's tool waits for `go`: let go of it however the test ends.
    onTestFinished(async () => {
      if (!existsSync(go)) writeFileSync(go, '');
      await running;
    });
    await until('turn 2 to write f.txt', () => existsSync(join(s.ws, 'f.txt')) && readFileSync(join(s.ws, 'f.txt'), 'utf8') === 'two\n');
    const runs = readdirSync(join(s.state, 'runs')).sort();
    const refused = await cli(s, ['session', 'rewind', 'slow', '--turn', '1', '--yes', '--name', 'slow-1']);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toContain('run slow is still being written');
    expect(refused.stderr).toContain('wait for it to end, or suspend it');
    expect(readFileSync(join(s.ws, 'f.txt'), 'utf8')).toBe('two\n');
    expect(readdirSync(join(s.state, 'runs')).sort()).toEqual(runs);
    // The conversation alone is a fork, as a fork of a live run is.
    const fork = await cli(s, ['session', 'rewind', 'slow', '--turn', '1', '--conversation', '--name', 'slow-c']);
    expect(fork.code, fork.stderr).toBe(0);
    writeFileSync(go, '');
    const ran = await running;
    expect(ran.code, ran.stderr).toBe(0);
    expect(contents(s.ws)).toEqual({ 'f.txt': 'two\n', 'g.txt': 'three\n' });

    const rewound = await cli(s, ['session', 'rewind', 'slow', '--turn', '1', '--files', '--yes']);
    expect(rewound.code, rewound.stderr).toBe(0);
    expect(contents(s.ws)).toEqual({ 'f.txt': 'one\n' });
    // The run's lock held again, as its writer holds it (a resume, a chat): the undo is refused the same way.
    const held = join(s.root, 'held');
    const holder = spawn('flock', [join(s.state, 'runs', 'slow.lock'), 'sh', '-c', `touch '${held}'; while [ ! -e '${go}2' ]; do sleep 0.05; done`], { stdio: 'ignore' });
    const released = new Promise((resolve) => holder.on('close', resolve));
    onTestFinished(async () => {
      writeFileSync(`${go}2`, '');
      await released;
    });
    await until('the lock to be held', () => existsSync(held));
    const undo = await cli(s, ['session', 'rewind', '--undo', 'slow', '--yes']);
    expect(undo.code).toBe(1);
    expect(undo.stderr).toContain('run slow is still being written');
    expect(contents(s.ws)).toEqual({ 'f.txt': 'one\n' });
    writeFileSync(`${go}2`, '');
    await released;
    const undone = await cli(s, ['session', 'rewind', '--undo', 'slow', '--yes']);
    expect(undone.code, undone.stderr).toBe(0);
    expect(contents(s.ws)).toEqual({ 'f.txt': 'two\n', 'g.txt': 'three\n' });
  });
});

describe("a rewind's plan", () => {
  it("marks the files changed outside the run since its last snapshot (a person's edits), apart from the run's own, and says once that --undo brings them back", async () => {
    const s = setup([
      { text: 'one', tool_calls: [sh('echo one > a.txt; echo one > b.txt')] },
      { text: 'two', tool_calls: [sh('echo two > a.txt; echo two > b.txt')] },
      { text: 'done' },
    ]);
    const ran = await cli(s, ['run', '--name', 'edits', 'go']);
    expect(ran.code, ran.stderr).toBe(0);
    writeFileSync(join(s.ws, 'b.txt'), 'mine\n');
    writeFileSync(join(s.ws, 'mine.txt'), 'mine\n');
    const rewound = await cli(s, ['session', 'rewind', 'edits', '--turn', '1', '--files', '--yes']);
    expect(rewound.code, rewound.stderr).toBe(0);
    const lines = rewound.stderr.split('\n');
    expect(lines).toContain('  restore a.txt');
    expect(lines).toContain("  restore b.txt (edited since the run's last snapshot)");
    expect(lines).toContain("  remove  mine.txt (edited since the run's last snapshot)");
    expect(lines.filter((l) => l.includes('--undo'))).toHaveLength(1);
    expect(rewound.stderr).toContain('logbook session rewind --undo edits brings them back');
    expect(contents(s.ws)).toEqual({ 'a.txt': 'one\n', 'b.txt': 'one\n' });
    const undone = await cli(s, ['session', 'rewind', '--undo', 'edits', '--yes']);
    expect(undone.code, undone.stderr).toBe(0);
    expect(contents(s.ws)).toEqual({ 'a.txt': 'two\n', 'b.txt': 'mine\n', 'mine.txt': 'mine\n' });

    // Turn 0 is before any tool ran: the workspace as the run found it, and --help says so.
    const first = await cli(s, ['session', 'rewind', 'edits', '--turn', '0', '--files', '--yes']);
    expect(first.code, first.stderr).toBe(0);
    expect(contents(s.ws)).toEqual({});
    const help = await cli(s, ['session', 'rewind', '--help']);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain('--turn 0 goes back to before any tool of the run ran');
  });
});

describe("a rewind's contents", () => {
  it('are put back byte for byte however git hands them over: a file larger than a pipe read (in many pieces), files sharing one content, an empty file, a link', async () => {
    const s = setup([
      { text: 'one', tool_calls: [sh(`echo same > s1.txt; echo same > s2.txt; mkdir -p d/e; echo same > d/e/s3.txt; : > empty.txt; ln -s s1.txt link`)] },
      { text: 'two', tool_calls: [sh('rm big.bin link; echo other > s1.txt; echo other > s2.txt; rm -r d; echo now > empty.txt')] },
      { text: 'done' },
    ]);
    // A MiB and a bit of every byte value, there before the run: its first snapshot holds it.
    const big = Buffer.from(Array.from({ length: 1048576 + 3 }, (_, i) => (i * 7) % 256));
    writeFileSync(join(s.ws, 'big.bin'), big);
    const ran = await cli(s, ['run', '--name', 'contents', 'go']);
    expect(ran.code, ran.stderr).toBe(0);
    const rewound = await cli(s, ['session', 'rewind', 'contents', '--turn', '1', '--files', '--yes']);
    expect(rewound.code, rewound.stderr).toBe(0);
    expect(rewound.stdout).toContain('restored 6 files to their state after turn 1');
    expect(readFileSync(join(s.ws, 'big.bin')).equals(big)).toBe(true);
    expect(['s1.txt', 's2.txt', 'd/e/s3.txt'].map((f) => readFileSync(join(s.ws, f), 'utf8'))).toEqual(['same\n', 'same\n', 'same\n']);
    expect(readFileSync(join(s.ws, 'empty.txt'), 'utf8')).toBe('');
    expect(lstatSync(join(s.ws, 'link')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(s.ws, 'link'), 'utf8')).toBe('same\n');
  });
});
