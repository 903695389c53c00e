/**
 * A journal removed or replaced under a running writer, on the file store,
 * through the binary: the run fails at its next append with one line saying
 * what happened and what to do (no resume is offered: there is nothing left to
 * resume), exit 1, no answer printed and no tool run after it.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { finished, spawnCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const dir = tempDir('logbook-journal-gone-');
const stateDir = join(dir, 'state');
const journal = (id: string) => join(stateDir, 'runs', `${id}.jsonl`);

writeFileSync(
  join(dir, 'turns.yaml'),
  `turns:
  - text: Step one.
    tool_calls: [{ name: step, input: { n: "1" } }]
  - text: Step two.
    tool_calls: [{ name: step, input: { n: "2" } }]
  - text: Done.
`,
);
// Each step appends its number to $STEPS; step 1 then waits for $GO, so the test acts while it runs.
writeFileSync(
  join(dir, 'agent.yaml'),
  `provider: script
script: turns.yaml
tools:
  - name: step
    input_schema: { type: object, properties: { n: { type: string } }, required: [n] }
    command: [sh, -c, 'echo "$1" >> "$STEPS"; if [ "$1" = 1 ]; then while [ ! -e "$GO" ]; do sleep 0.05; done; fi; echo "step $1"', sh, '{{n}}']
    env: { STEPS: "\${STEPS}", GO: "\${GO}" }
`,
);

describe('a journal that disappears under a running writer (file store)', () => {
  it.each([
    ['removed', (path: string) => rmSync(path)],
    [
      'replaced by another file',
      (path: string) => {
        writeFileSync(`${path}.new`, readFileSync(path));
        renameSync(`${path}.new`, path);
      },
    ],
  ] as const)('%s: the run fails at its next append in one line, exit 1, and runs nothing more', async (how, act) => {
    const id = how.split(' ')[0]!;
    const steps = join(dir, `${id}.steps`);
    const go = join(dir, `${id}.go`);
    const child = spawnCli(['run', '--config', join(dir, 'agent.yaml'), '--state-dir', stateDir, '--name', id, 'two steps'], {
      cwd: dir,
      env: { STEPS: steps, GO: go },
    });
    const done = finished(child);
    for (let i = 0; i < 400 && !existsSync(steps); i++) await new Promise((r) => setTimeout(r, 25));
    act(journal(id));
    writeFileSync(go, '');
    const r = await done;
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('Step one.\n'); // the words of the turn before the journal went
    const line = r.stderr.split('\n').filter((l) => l.startsWith('logbook:'));
    expect(line).toEqual([
      `logbook: the journal ${journal(id)} was ${how} while this run was writing it; seq 3 and what follows are not kept. Restore the journal from a copy, or start a new run`,
    ]);
    expect(readFileSync(steps, 'utf8')).toBe('1\n');
  });
});
