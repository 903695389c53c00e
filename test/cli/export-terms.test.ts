/**
 * An export says what `session ls` and `show` say: the status they list (a
 * chat's own /export of itself: `running`, not the folded `open`), "model
 * calls" as show and /status count them, and how the run ended as code rather
 * than with backslash escapes. Through the binary, on a real file store.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

function scripted(turns: string, extra = '') {
  const dir = tempDir();
  writeFileSync(join(dir, 'turns.yaml'), turns);
  writeFileSync(join(dir, 'agent.yaml'), `provider: script\nscript: turns.yaml\n${extra}`);
  return { dir, state: join(dir, 'state') };
}

describe('the words of an export', () => {
  it("are a chat's status as listed while it runs, and model calls, in its /export", async () => {
    const { dir, state } = scripted('turns:\n  - text: Hi there.\n');
    const file = join(dir, 'chat.md');
    const r = await runCli(['run', '--chat', '--state-dir', state, '--name', 'talk', 'hello'], { cwd: dir, input: `/export ${file}\n` });
    expect(r.code).toBe(0);
    const md = readFileSync(file, 'utf8');
    expect(md).toContain('- Status: `running`\n');
    expect(md).toContain('- Model calls: 1\n');
    expect(md).not.toContain('LLM');

    const resumed = await runCli(['run', '--resume', 'talk', '--state-dir', state], { cwd: dir, input: '' });
    expect(resumed.stderr).toContain('(1 model call so far)');
    expect(resumed.stderr).not.toContain('LLM');
  });

  it('are the status show lists and the end as code, in session export of a run stopped at max_iterations', async () => {
    const tool = 'tools:\n  - name: say\n    description: Say a word\n    input_schema: { type: object, properties: {} }\n    command: [echo, hi]\n';
    const { dir, state } = scripted('turns:\n  - text: Saying it.\n    tool_calls: [{ name: say, input: {} }]\n  - text: Said.\n', `max_iterations: 1\n${tool}`);
    const run = await runCli(['run', '--state-dir', state, '--name', 'capped', 'say it'], { cwd: dir });
    expect(run.stderr).toContain('max_iterations');
    const show = await runCli(['session', 'show', 'capped', '--state-dir', state], { cwd: dir });
    expect(show.stdout).toMatch(/^status +max_iterations$/m);
    const md = (await runCli(['session', 'export', 'capped', '--state-dir', state], { cwd: dir })).stdout;
    expect(md).toContain('- Status: `max_iterations`\n');
    expect(md).toContain('**Run `max_iterations`**');
    expect(md).not.toContain('max\\_iterations');
    const html = (await runCli(['session', 'export', 'capped', '--format', 'html', '--state-dir', state], { cwd: dir })).stdout;
    expect(html).toContain('<dt>Model calls</dt><dd>1</dd>');
    expect(html).toContain('<dt>Status</dt><dd><code>max_iterations</code></dd>');
  });
});
