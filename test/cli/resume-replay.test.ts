/**
 * What a resume replays of a run is what its journal says: a call that ran is
 * shown with the command its result records, not the one the config would run
 * now; and `session show`'s next step names the config the run was started with.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const tools = (word: string) => `tools:
  - name: say
    description: Say a word
    input_schema: { type: object, properties: {} }
    command: [echo, ${word}]
`;

describe('the replay of a resumed run', () => {
  it('shows a call that ran as its result records it, though the config now runs another command', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'turns.yaml'), 'turns:\n  - text: Saying it.\n    tool_calls: [{ name: say, input: {} }]\n  - text: Said.\n  - text: Again.\n');
    const cfg = join(dir, 'chat.yaml');
    writeFileSync(cfg, `provider: script\nscript: turns.yaml\n${tools('first-word')}`);
    const state = join(dir, 'state');
    const chat = await runCli(['run', '--chat', '--config', cfg, '--state-dir', state, '--name', 'talk', 'say it'], { cwd: dir, input: '' });
    expect(chat.code).toBe(0);
    writeFileSync(cfg, `provider: script\nscript: turns.yaml\n${tools('second-word')}`);
    const resumed = await runCli(['run', '--resume', 'talk', '--config', cfg, '--state-dir', state], { cwd: dir, input: 'once more\n' });
    expect(resumed.stderr).toContain('\u00bb echo first-word\n');
    expect(resumed.stderr).not.toContain('second-word');
    expect(resumed.code).toBe(0);

    // session show, given no --config, names the one the run was started with in its next step.
    const show = await runCli(['session', 'show', 'talk', '--state-dir', state], { cwd: dir });
    expect(show.stdout).toMatch(new RegExp(`^next +.*logbook run --resume talk --config ${cfg.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} --state-dir `, 'm'));
  });
});
