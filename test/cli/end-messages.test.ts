/**
 * How a run's end is said, through the binary: each fact once, where a label
 * and a journaled message would otherwise say it twice.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

describe('a run stopped at max_iterations', () => {
  it('session show says the stop once: stopped at max_iterations (after N model calls)', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'turns.yaml'), 'turns:\n  - text: Looking.\n    tool_calls: [{ name: say, input: {} }]\n  - text: Never.\n');
    writeFileSync(
      join(dir, 'agent.yaml'),
      'provider: script\nscript: turns.yaml\nmax_iterations: 1\ntools:\n  - name: say\n    description: Say\n    input_schema: { type: object, properties: {} }\n    command: [echo, hi]\n',
    );
    const state = join(dir, 'state');
    const r = await runCli(['run', '--name', 'capped', '--state-dir', state, 'look'], { cwd: dir });
    expect(r.code).toBe(5);
    const show = await runCli(['session', 'show', 'capped', '--state-dir', state], { cwd: dir });
    expect(show.stdout).toMatch(/^where +stopped at max_iterations \(after 1 model calls\)$/m);
  });
});
