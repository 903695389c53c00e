/**
 * A run's workspace, through the binary on real files: snapshots beside the
 * journal at each turn, `session diff` turn by turn, `session rewind` of files
 * and conversation (a fork; the origin whole) and its `--undo`, ignored files
 * and links never followed, a run killed in a tool batch, a person's edit
 * between chat turns, and a workspace too large to track.
 */
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, finished, runCli, spawnCli } from '../helpers/cli.js';
import { until } from '../helpers/tasks.js';
import { sh, workspaceSetup, type WorkspaceSetup } from '../helpers/workspace.js';

type Setup = WorkspaceSetup;

function setup(turns: unknown[], extra = '', sideEffects = true): Setup {
  return workspaceSetup('logbook-ws-', turns, { extra, sideEffects });
}

function cli(s: Setup, args: string[], input?: string) {
  return runCli([...args, '--config', s.config, '--state-dir', s.state], { cwd: s.ws, ...(input !== undefined ? { input } : {}) });
}

/** The run id a run names on stderr. */
const runIdOf = (stderr: string): string => /run (\S+) \(file store/.exec(stderr)![1]!;

/** Every file under `dir` (links as `-> target`), with its content: what the workspace holds. */
function contents(dir: string, skip: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (at: string, rel: string): void => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      const r = rel === '' ? name : `${rel}/${name}`;
      if (skip.includes(r)) continue;
      const st = lstatSync(path);
      if (st.isSymbolicLink()) out[r] = `-> ${readlinkSync(path)}`;
      else if (st.isDirectory()) walk(path, r);
      else if (st.isFile()) out[r] = readFileSync(path, 'utf8');
    }
  };
  walk(dir, '');
  return out;
}

/** The paths every snapshot of the store holds. */
function snapshotPaths(s: Setup): Set<string> {
  const gitDir = join(s.state, 'workspace', 'objects.git');
  const paths = new Set<string>();
  for (const name of readdirSync(join(s.state, 'runs'))) {
    if (!/\.ws-\d+-[0-9a-f]+\.note$/.test(name)) continue;
    const tree = (JSON.parse(readFileSync(join(s.state, 'runs', name), 'utf8')) as { tree?: string }).tree;
    if (tree === undefined) continue;
    const out = execFileSync('git', ['ls-tree', '-r', '--name-only', '-z', tree], { env: { PATH: process.env.PATH!, GIT_DIR: gitDir } }).toString();
    for (const p of out.split('\0')) if (p !== '') paths.add(p);
  }
  return paths;
}

/** Each snapshot note of run `id` as `seq moment`, in seq order. */
function snapshotMoments(s: Setup, id: string): string[] {
  return readdirSync(join(s.state, 'runs'))
    .filter((n) => n.startsWith(`${id}.ws-`))
    .map((n) => JSON.parse(readFileSync(join(s.state, 'runs', n), 'utf8')) as { moment: string; seq: number })
    .sort((a, b) => a.seq - b.seq)
    .map((m) => `${m.seq} ${m.moment}`);
}

const THREE_TURNS = [
  { text: 'write', tool_calls: [sh("printf 'one\\ntwo\\n' > a.txt")] },
  { text: 'edit', tool_calls: [sh('sed -i s/two/TWO/ a.txt')] },
  { text: 'delete', tool_calls: [sh('rm b.txt')] },
  { text: 'done' },
];

describe("a run's workspace", () => {
  it('is diffed turn by turn and rewound to turn 1 (files and a fork), and the rewind undone byte for byte; ignored files and links out are never followed', async () => {
    const s = setup(THREE_TURNS);
    const outside = join(s.root, 'outside');
    mkdirSync(outside);
    writeFileSync(join(outside, 'secret.txt'), 'not the workspace');
    writeFileSync(join(s.ws, 'b.txt'), 'keep\n');
    writeFileSync(join(s.ws, '.gitignore'), 'ignored/\n*.log\n');
    mkdirSync(join(s.ws, 'ignored'));
    writeFileSync(join(s.ws, 'ignored', 'big.txt'), 'ignored');
    writeFileSync(join(s.ws, 'debug.log'), 'a log');
    mkdirSync(join(s.ws, 'node_modules', 'pkg'), { recursive: true });
    writeFileSync(join(s.ws, 'node_modules', 'pkg', 'index.js'), 'module');
    // A FIFO: a walk that read inside node_modules would hang on it.
    execFileSync('mkfifo', [join(s.ws, 'node_modules', 'pkg', 'pipe')]);
    writeFileSync(join(s.ws, '.env'), 'TOKEN=secret');
    symlinkSync(outside, join(s.ws, 'out'));

    const ran = await cli(s, ['run', 'go']);
    expect(ran.code, ran.stderr).toBe(0);
    const id = runIdOf(ran.stderr);

    const paths = snapshotPaths(s);
    expect([...paths].sort()).toEqual(['.gitignore', 'a.txt', 'b.txt', 'out']);
    // Before each turn's tools, and at the end: the final answer (seq 8) ends the run, and the terminal record's snapshot stands for it.
    expect(snapshotMoments(s, id)).toEqual(['2 tools', '4 tools', '6 tools', '9 end']);

    const turn1 = await cli(s, ['session', 'diff', id, '--turn', '1']);
    expect(turn1.code, turn1.stderr).toBe(0);
    expect(turn1.stdout).toContain('turn 1 (seq 2), by sh');
    expect(turn1.stdout).toContain('+two');
    expect(turn1.stdout).not.toContain('turn 2');
    const whole = await cli(s, ['session', 'diff', id, '--json']);
    const json = JSON.parse(whole.stdout) as { changes: { turn: number; by: string; files: { path: string; status: string }[]; diff: string }[] };
    expect(json.changes.map((c) => [c.by, c.turn, c.files.map((f) => `${f.status} ${f.path}`)])).toEqual([
      ['turn', 1, ['added a.txt']],
      ['turn', 2, ['modified a.txt']],
      ['turn', 3, ['deleted b.txt']],
    ]);
    expect(json.changes[1]!.diff).toContain('-two\n+TWO');
    const stat = await cli(s, ['session', 'diff', id, '--stat']);
    expect(stat.stdout).not.toContain('@@');
    // The exports name each turn's files; their contents only with --diffs.
    const md = await cli(s, ['session', 'export', id, '--format', 'md']);
    expect(md.stdout).toContain('## Workspace changes');
    expect(md.stdout).toContain('`a.txt`: modified, +1 -1');
    expect(md.stdout).not.toContain('+TWO');
    const html = await cli(s, ['session', 'export', id, '--format', 'html', '--diffs']);
    expect(html.stdout).toContain('<code>b.txt</code>: deleted, +0 -1');
    expect(html.stdout).toContain('+TWO');

    const skip = ['node_modules'];
    const later = contents(s.ws, skip);
    const journal = readFileSync(join(s.state, 'runs', `${id}.jsonl`));
    const refused = await cli(s, ['session', 'rewind', id, '--turn', '1']);
    expect(refused.code).toBe(2);
    expect(contents(s.ws, skip)).toEqual(later);

    const rewound = await cli(s, ['session', 'rewind', id, '--turn', '1', '--yes', '--name', 'back-to-1']);
    expect(rewound.code, rewound.stderr).toBe(0);
    expect(rewound.stderr).toMatch(/restore a\.txt/);
    expect(rewound.stderr).toMatch(/create +b\.txt/);
    // The calls after turn 1 went to a tool with side effects: named, since what they did elsewhere stays done.
    expect(rewound.stderr).toContain('sh (toolu_1_0)');
    expect(rewound.stderr).toContain('sh (toolu_2_0)');
    expect(contents(s.ws, skip)).toEqual({ ...later, 'a.txt': 'one\ntwo\n', 'b.txt': 'keep\n' });
    expect(readFileSync(join(s.ws, 'node_modules', 'pkg', 'index.js'), 'utf8')).toBe('module');
    expect(lstatSync(join(s.ws, 'out')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('not the workspace');
    // The origin is whole; the fork holds it through turn 1.
    expect(readFileSync(join(s.state, 'runs', `${id}.jsonl`))).toEqual(journal);
    const forkLines = readFileSync(join(s.state, 'runs', 'back-to-1.jsonl'), 'utf8').trim().split('\n');
    expect(forkLines).toHaveLength(3);

    const undone = await cli(s, ['session', 'rewind', '--undo', '--yes']);
    expect(undone.code, undone.stderr).toBe(0);
    expect(contents(s.ws, skip)).toEqual(later);

    // The fork goes on from turn 1: its next model turn (the sed) runs on the files as turn 1 left them.
    const rewoundAgain = await cli(s, ['session', 'rewind', id, '--turn', '1', '--files', '--yes']);
    expect(rewoundAgain.code, rewoundAgain.stderr).toBe(0);
    const goOn = await cli(s, ['run', '--resume', 'back-to-1']);
    expect(goOn.code, goOn.stderr).toBe(0);
    expect(readFileSync(join(s.ws, 'a.txt'), 'utf8')).toBe('one\nTWO\n');
  });

  it('killed in the middle of a tool batch: the diff shows what the interrupted tool did, and the resume snapshots it before it goes on', async () => {
    const s = setup(
      [{ text: 'two steps', tool_calls: [sh('echo first > first.txt'), sh('echo half > half.txt; if [ ! -e started ]; then touch started; sleep 30; fi; echo after > after.txt')] }, { text: 'done' }],
      '',
      false,
    );
    const child = spawnCli(['run', '--config', s.config, '--state-dir', s.state, '--name', 'killed', 'go'], { cwd: s.ws });
    const done = finished(child);
    await until('the second tool to start', () => existsSync(join(s.ws, 'started')), 20_000);
    child.kill('SIGKILL');
    expect((await done).signal).toBe('SIGKILL');

    const diff = await cli(s, ['session', 'diff', 'killed', '--stat']);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('turn 1 (seq 2), by sh (toolu_0_0), sh (toolu_0_1), up to the workspace now');
    expect(diff.stdout).toMatch(/added +half\.txt/);
    expect(diff.stdout).toMatch(/added +first\.txt/);

    const resumed = await cli(s, ['run', '--resume', 'killed']);
    expect(resumed.code, resumed.stderr).toBe(0);
    // The resume's snapshot (of what the killed tool left, after seq 3) is taken before the batch goes on.
    expect(snapshotMoments(s, 'killed')).toEqual(['2 tools', '3 resume', '6 end']);
    const after = await cli(s, ['session', 'diff', 'killed', '--json']);
    const files = (JSON.parse(after.stdout) as { changes: { turn: number; files: { path: string }[] }[] }).changes.flatMap((c) => c.files.map((f) => `${c.turn} ${f.path}`));
    expect(files).toEqual(expect.arrayContaining(['1 first.txt', '1 half.txt', '1 after.txt']));
    // The turn's changes say which were made before the interruption and which after the resume carried the batch on.
    const parts = (JSON.parse(after.stdout) as { changes: { turn: number; part?: string; files: { path: string }[] }[] }).changes.map((c) => [c.turn, c.part, c.files.map((f) => f.path)]);
    expect(parts).toEqual([
      [1, 'interrupted', ['first.txt', 'half.txt', 'started']],
      [1, 'resumed', ['after.txt']],
    ]);
    const text = await cli(s, ['session', 'diff', 'killed', '--turn', '1', '--stat']);
    const sections = text.stdout.split('== ').filter(Boolean);
    expect(sections[0]).toMatch(/before the run was interrupted in the middle of them\n[\s\S]*half\.txt/);
    expect(sections[1]).toMatch(/^turn 1 \(seq 2\), by sh \(toolu_0_0\), sh \(toolu_0_1\), after the resume \(at seq \d+\) carried them on\n +added +after\.txt/);
  });

  it("shows a person's edit between two chat turns apart from the run's changes", async () => {
    const s = setup([{ text: 'wrote', tool_calls: [sh('echo run > run.txt')] }, { text: 'first answer' }, { text: 'second answer' }]);
    const child = spawn(process.execPath, [BIN, 'run', '--chat', '--config', s.config, '--state-dir', s.state, '--name', 'chat'], {
      cwd: s.ws,
      env: { PATH: process.env.PATH!, HOME: s.root, NO_COLOR: '1', XDG_STATE_HOME: s.root, XDG_CONFIG_HOME: s.root },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const done = finished(child);
    child.stdin!.write('first\n');
    const answered = (): boolean => existsSync(join(s.state, 'runs')) && readdirSync(join(s.state, 'runs')).some((n) => n.startsWith('chat.ws-') && readFileSync(join(s.state, 'runs', n), 'utf8').includes('"answer"'));
    await until('the first answer', answered, 20_000);
    writeFileSync(join(s.ws, 'person.txt'), 'typed by hand\n');
    // While the chat waits, the edit is told against the workspace as it is now: after the last snapshot, not "between seq N and seq N".
    const waiting = (await cli(s, ['session', 'diff', 'chat', '--stat'])).stdout.split('== ').filter(Boolean);
    expect(waiting[1]).toMatch(/^changed outside the run after seq \d+ \(not by its tools\), up to the workspace now \(in no snapshot yet\)\n +added +person\.txt/);
    child.stdin!.end('second\n');
    expect((await done).code).toBe(0);

    const diff = await cli(s, ['session', 'diff', 'chat', '--stat']);
    expect(diff.code, diff.stderr).toBe(0);
    const sections = diff.stdout.split('== ').filter(Boolean);
    expect(sections[0]).toMatch(/^turn 1 \(seq 3\), by sh[\s\S]*run\.txt/);
    expect(sections[0]).not.toContain('person.txt');
    expect(sections[1]).toMatch(/^changed outside the run between seq \d+ and seq \d+ \(not by its tools\)[\s\S]*person\.txt/);
  });

  it('a workspace over max_files is not tracked: the run says so once, and session show says why', async () => {
    const s = setup(
      [{ text: 'a', tool_calls: [sh('true')] }, { text: 'b', tool_calls: [sh('true')] }, { text: 'done' }],
      'workspace: { max_files: 3 }',
    );
    for (const n of [1, 2, 3, 4, 5]) writeFileSync(join(s.ws, `f${n}.txt`), String(n));
    const ran = await cli(s, ['run', '--name', 'big', 'go']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr.match(/not tracked/g)).toHaveLength(1);
    expect(ran.stderr).toContain('more than 3 files (workspace.max_files)');
    const show = await cli(s, ['session', 'show', 'big']);
    expect(show.stdout).toMatch(/no snapshot.*after seq 2 \(turn 1, tools\): the workspace .* is not tracked: it holds more than 3 files/);
    expect(existsSync(join(s.state, 'workspace', 'objects.git'))).toBe(true);
    expect(snapshotPaths(s).size).toBe(0);
  });

  it('a workspace that grows past max_files or max_bytes during a run is not tracked from then on: said once, and session show says from which seq', async () => {
    const grows = (cmd: string) => [{ text: 'a', tool_calls: [sh('echo a > a.txt')] }, { text: 'b', tool_calls: [sh(cmd)] }, { text: 'c', tool_calls: [sh('echo c > c.txt')] }, { text: 'done' }];
    for (const [limit, cmd, said] of [
      ['max_files: 4', 'touch m1 m2 m3', 'more than 4 files (workspace.max_files)'],
      ['max_bytes: 2000', 'head -c 3000 /dev/zero > big.bin', 'more than 2000 bytes of files (workspace.max_bytes)'],
    ] as const) {
      const s = setup(grows(cmd), `workspace: { ${limit} }`);
      writeFileSync(join(s.ws, 'f1.txt'), '1');
      const ran = await cli(s, ['run', '--name', 'grows', 'go']);
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stderr.match(/not tracked/g)).toHaveLength(1);
      expect(ran.stderr).toContain(said);
      const show = await cli(s, ['session', 'show', 'grows']);
      expect(show.stdout).toMatch(/no snapshot.*after seq 6 \(turn 3, tools\): the workspace .* is not tracked from seq 6 on: it holds more than/);
      expect(show.stdout.match(/no snapshot/g)).toHaveLength(1);
      const diff = await cli(s, ['session', 'diff', 'grows', '--stat']);
      expect(diff.stdout).toMatch(/turn 1 \(seq 2\), by sh \(toolu_0_0\)\n +added +a\.txt/);
      expect([...snapshotPaths(s)].sort()).toEqual(['a.txt', 'f1.txt']);
    }
  });

  it('a workspace that grew past max_files since the run before is not tracked in the next, said as the first time (no seq)', async () => {
    const s = setup([{ text: 'done' }], 'workspace: { max_files: 3 }');
    writeFileSync(join(s.ws, 'f1.txt'), '1');
    const small = await cli(s, ['run', '--name', 'small', 'go']);
    expect(small.code, small.stderr).toBe(0);
    expect(small.stderr).not.toMatch(/not tracked/);
    for (const n of [2, 3, 4, 5]) writeFileSync(join(s.ws, `f${n}.txt`), String(n));
    const grown = await cli(s, ['run', '--name', 'grown', 'go']);
    expect(grown.code, grown.stderr).toBe(0);
    expect(grown.stderr.match(/not tracked/g)).toHaveLength(1);
    expect(grown.stderr).toMatch(/the workspace .* is not tracked: it holds more than 3 files \(workspace\.max_files\)/);
    expect(snapshotMoments(s, 'grown')).toEqual(['3 end']);
    expect([...snapshotPaths(s)]).toEqual(['f1.txt']); // what the first run kept, and nothing of the grown workspace
  });
});

