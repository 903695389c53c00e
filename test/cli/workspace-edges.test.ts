/**
 * A run's workspace at its edges, through the binary on real files: what
 * another process holding the workspace's index does to a snapshot.
 */
import { createHash } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
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

/** The index of the workspace's snapshots (STATE/workspace/index/HASH). */
function indexOf(s: Setup): string {
  return join(s.state, 'workspace', 'index', createHash('sha256').update(s.ws).digest('hex').slice(0, 32));
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
    const holder = `(exec 9>'${index}.flock'; flock 9; touch '${index}.lock' '${held}'; sleep 1; rm -f '${index}.lock') >/dev/null 2>&1 &`;
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
  });

  it("takes no notice of an index lock a killed git left behind: the next snapshot is made at once, with no warning", async () => {
    const s = setup([]);
    writeFileSync(
      join(s.root, 'script.json'),
      JSON.stringify({
        turns: [
          // git's lock on the index, as a git killed in the middle of a snapshot leaves it: nobody holds logbook's flock.
          { text: 'one', tool_calls: [sh(`echo one > one.txt; touch '${indexOf(s)}.lock'`)] },
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
