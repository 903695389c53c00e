/**
 * A run's workspace at its edges, through the binary on real files: what
 * another process holding the workspace's index does to a snapshot.
 */
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { until } from '../helpers/tasks.js';
import { tempDir } from '../helpers/tmp.js';

interface Setup {
  root: string;
  ws: string;
  state: string;
  config: string;
}

/** A config with one command tool `sh` (its `cmd` run by sh in the workspace) and the script provider playing `turns`. */
function setup(turns: unknown[]): Setup {
  const root = tempDir('logbook-ws-edges-');
  const ws = join(root, 'ws');
  const state = join(root, 'state');
  mkdirSync(ws);
  writeFileSync(join(root, 'script.json'), JSON.stringify({ turns }));
  const config = join(root, 'agent.yaml');
  writeFileSync(
    config,
    `provider: script
script: script.json
tools:
  - name: sh
    description: run a command
    input_schema: { type: object, properties: { cmd: { type: string } }, required: [cmd] }
    command: [sh, -c, '{{cmd}}']
`,
  );
  return { root, ws, state, config };
}

const sh = (cmd: string): { name: string; input: { cmd: string } } => ({ name: 'sh', input: { cmd } });

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

describe('a rewind stopped half way', () => {
  it('is undone like a finished one: a directory holding ignored files where the snapshot has a file', async () => {
    const s = setup([
      { text: 'one', tool_calls: [sh('echo file > out')] },
      { text: 'two', tool_calls: [sh('rm out; mkdir out; echo in > out/a.txt; echo log > out/debug.log; echo a2 >> a.txt; echo new > new.txt; echo z2 >> z.txt')] },
      { text: 'done' },
    ]);
    writeFileSync(join(s.ws, '.gitignore'), '*.log\n');
    writeFileSync(join(s.ws, 'a.txt'), 'a\n');
    writeFileSync(join(s.ws, 'z.txt'), 'z\n');
    const ran = await cli(s, ['run', '--name', 'dirs', 'go']);
    expect(ran.code, ran.stderr).toBe(0);
    const before = contents(s.ws);

    const rewound = await cli(s, ['session', 'rewind', 'dirs', '--turn', '1', '--yes']);
    expect(rewound.code).toBe(1);
    expect(rewound.stderr).toContain('stopped half way');
    expect(rewound.stderr).toContain('out is a directory where the snapshot has a file');

    const undone = await cli(s, ['session', 'rewind', '--undo', 'dirs', '--yes']);
    expect(undone.code, undone.stderr).toBe(0);
    expect(contents(s.ws)).toEqual(before);
  });
});

describe('a rewind after the config changed what is tracked', () => {
  it('follows the rules the run was snapshotted with: a file they left out is never touched, whatever the config says now', async () => {
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
  it('is a usage error naming how many turns or seqs there are, not "no changes"', async () => {
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
  });
});
