/**
 * Journal text on the screen, through the real binary: what docs/guide/runs-and-sessions.md says
 * sanitizing does (escape sequences removed whole, carriage returns made line
 * breaks, other controls shown as symbols, bidi controls dropped) is what
 * `session ls`, `session show --transcript`, `session watch` and both exports
 * show for a prompt and a tool's colored output.
 */
import { describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { completed } from '../helpers/records.js';
import { call, commandResult, text, turn, writeRun } from '../helpers/runs.js';
import { tempDir } from '../helpers/tmp.js';

/** A prompt with a color, a window title, a bell, a carriage return, a C1 control and a bidi override. */
const PROMPT = 'a \u001b[31mred\u001b[0m \u001b]0;TITLE\u0007word \u0007bell 10%\r90% next\u0085line \u202eevil\u202c z';
/** Colored output as a test runner writes it, with a cursor move and a hyperlink. */
const OUTPUT = '\u001b[32m✓ passed\u001b[39m \u001b[2K\u001b[1G\u001b]8;;http://example.com\u001b\\docs\u001b]8;;\u001b\\ \u001bc\u007fdone';

const state = tempDir();
const ready = writeRun(state, 'colors', [turn(0, [call('t1', 'test', {})]), commandResult('t1', ['npm', 'test'], 0, OUTPUT), turn(1, [text('Tests pass.')]), completed], PROMPT);
const cli = async (args: string[]): Promise<CliResult> => {
  await ready;
  return runCli([...args, '--state-dir', state], { env: { TZ: 'UTC' } });
};

describe('journal text on the screen', () => {
  it('removes escape sequences whole, shows other controls as symbols and drops bidi controls, everywhere', async () => {
    // The prompt: each sequence gone with its parameters, BEL as ␇, the carriage return a line break, NEL (C1) as �, no bidi override.
    const prompt = ['a red word ␇bell 10%', '90% next�line evil z'];
    // The output: colors, a line erase, a cursor move, a hyperlink and a reset gone; its words kept; DEL as ␡.
    const output = '✓ passed docs ␡done';
    const ls = await cli(['session', 'ls']);
    expect(ls.stdout.split('\n')[1]).toMatch(/ a red word ␇bell 10% 90% next�line evil z$/); // one line: the break is a space
    const shown = await cli(['session', 'show', 'colors', '--transcript', '--tool-output']);
    expect(shown.stdout).toContain(`> ${prompt[0]}\n  ${prompt[1]}\n`);
    expect(shown.stdout).toContain(`  ${output}\n`);
    const watched = await cli(['session', 'watch', 'colors', '--tool-output']);
    expect(watched.stdout).toContain(`> ${prompt[0]}\n  ${prompt[1]}\n`);
    expect(watched.stdout).toContain(`  ${output}\n`);
    const md = await cli(['session', 'export', 'colors']);
    expect(md.stdout).toContain(`> ${prompt[0]}\n> ${prompt[1]}\n`);
    expect(md.stdout).toContain(`\n${output}\n`);
    const html = await cli(['session', 'export', 'colors', '--format', 'html']);
    expect(html.stdout).toContain(`${prompt[0]}\n${prompt[1]}`);
    expect(html.stdout).toContain(output);
    for (const r of [ls, shown, watched, md, html]) {
      expect(r.code).toBe(0);
      expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|TITLE|example\.com/);
    }
  });
});
