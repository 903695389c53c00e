/**
 * A command tool never outlives the logbook process that started it: a SIGKILL
 * of logbook takes the tool's whole process group down (tether), and SIGHUP
 * and SIGQUIT suspend the run like SIGTERM, killing the tool. Through the real
 * binary, with a tool that starts a grandchild.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileStore } from '../../src/index.js';
import { finished, spawnCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-tool-life-');
const stateDir = join(dir, 'state');
const store = new FileStore(join(stateDir, 'runs'));

writeFileSync(
  join(dir, 'script.json'),
  JSON.stringify({ turns: [{ text: 'Working.', tool_calls: [{ name: 'work', input: {} }] }, { text: 'Worked.' }] }),
);
// The tool records its own pid and its grandchild's, then waits for the grandchild (30 s); with QUICK set it just succeeds.
writeFileSync(
  join(dir, 'agent.yaml'),
  `provider: script
script: script.json
tools:
  - name: work
    command: [sh, -c, '[ -n "$QUICK" ] && exit 0; sleep 30 & echo $$ $! > "$PIDS.tmp"; mv "$PIDS.tmp" "$PIDS"; wait']
    env: { QUICK: "\${QUICK}", PIDS: "\${PIDS}" }
`,
);

/** Whether a process runs (a zombie waiting to be reaped does not). */
function alive(pid: number): boolean {
  try {
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(what: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (what()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return what();
}

/** Starts a run and waits until its tool and the tool's grandchild run; returns their pids. */
async function startWorking(id: string) {
  const pids = join(dir, `${id}.pids`);
  const child = spawnCli(['run', '--config', join(dir, 'agent.yaml'), '--state-dir', stateDir, '--name', id, 'work'], {
    cwd: dir,
    env: { PIDS: pids, QUICK: '' },
  });
  const done = finished(child);
  expect(await until(() => existsSync(pids), 20_000), 'the tool started').toBe(true);
  const [tool, grandchild] = readFileSync(pids, 'utf8').trim().split(' ').map(Number) as [number, number];
  expect(alive(tool) && alive(grandchild)).toBe(true);
  return { child, done, tool, grandchild };
}

describe('a tool and the logbook process that started it', () => {
  it('SIGKILL of logbook kills the tool and everything it started; the resume then runs it once more', async () => {
    const w = await startWorking('killed');
    w.child.kill('SIGKILL');
    expect((await w.done).signal).toBe('SIGKILL');
    expect(await until(() => !alive(w.tool) && !alive(w.grandchild), 5_000), 'tool and grandchild gone').toBe(true);
    expect((await store.load('killed')).state.pending?.answered).toEqual([]);
    const resumed = await finished(
      spawnCli(['run', '--config', join(dir, 'agent.yaml'), '--state-dir', stateDir, '--resume', 'killed'], { cwd: dir, env: { QUICK: '1', PIDS: '/dev/null' } }),
    );
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).toBe('Worked.\n');
  }, 30_000);

  for (const sig of ['SIGHUP', 'SIGQUIT'] as const) {
    it(`${sig} suspends the run like SIGTERM and kills the tool's group`, async () => {
      const id = sig.toLowerCase();
      const w = await startWorking(id);
      w.child.kill(sig);
      const r = await w.done;
      expect(r.code).toBe(130);
      expect(await until(() => !alive(w.tool) && !alive(w.grandchild), 5_000), 'tool and grandchild gone').toBe(true);
      const { state } = await store.load(id);
      expect(state.terminal).toEqual({ reason: 'suspended', message: 'interrupted during call toolu_0_0 (work)' });
      expect(state.pending?.answered).toEqual([]);
    }, 30_000);
  }
});
