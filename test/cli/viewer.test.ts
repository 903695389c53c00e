/**
 * The full-screen transcript viewer, driven through the real binary on a real
 * terminal (tmux, fixed size): what a person sees and what their keys do.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Payload } from '../../src/index.js';
import { BIN } from '../helpers/cli.js';
import { HOSTILE, call, commandResult, hostileRun, thinking, text, turn, writeRun } from '../helpers/runs.js';
import { tempDir } from '../helpers/tmp.js';
import { Tmux } from '../helpers/tmux.js';
import { plainTheme, renderMarkdown } from '../../src/render/markdown.js';

/** Twelve turns, each a call with one line of output; a needle in turn 9's output. */
function longRun(): Payload[] {
  const out: Payload[] = [turn(0, [thinking('weigh the options\nthen act'), text('Starting.'), call('c0', 'sh', { cmd: 'step 0' })]), commandResult('c0', ['sh', 'step 0'], 0, 'out 0\n')];
  for (let i = 1; i < 12; i++) {
    out.push(turn(i, [text(`Step ${i}.`), call(`c${i}`, 'sh', { cmd: `step ${i}` })]));
    out.push(commandResult(`c${i}`, ['sh', `step ${i}`], i === 5 ? 2 : 0, i === 9 ? 'hay\nneedle-in-output\nhay\n' : `out ${i}\n`));
  }
  out.push(turn(12, [text('All done.')]), { terminal: { reason: 'completed' } });
  return out;
}

const state = tempDir();
await writeRun(state, 'demo', longRun(), 'Look around');
await writeRun(state, 'hostile', hostileRun(), `prompt ${HOSTILE}`);

const env: Record<string, string> = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '/tmp',
  TERM: 'xterm-256color',
  LANG: 'C.UTF-8',
  NO_COLOR: '1',
  // Under CI the viewer must still draw every frame.
  ...(process.env.CI !== undefined ? { CI: process.env.CI } : {}),
};

let open: Tmux[] = [];
afterEach(() => {
  open.forEach((t) => t.kill());
  open = [];
});

function show(id: string, ...flags: string[]): Tmux {
  const t = Tmux.start([process.execPath, BIN, 'session', 'show', id, '--transcript', '--state-dir', state, ...flags], { env, width: 100, height: 24 });
  open.push(t);
  return t;
}

const HELP = 'q quit';

describe('transcript viewer', () => {
  it('shows a header and the transcript with thinking and tool output folded; scrolls, unfolds, searches and quits', async () => {
    const t = show('demo');
    let screen = await t.waitFor(HELP);
    const rows = t.screen();
    expect(rows[0]).toMatch(/^ demo \u00b7 test-model \u00b7 completed \u00b7 13 model calls \u00b7 tokens 130 in, 65 out/);
    expect(rows[1]).toBe('\u203a > Look around');
    expect(screen).toContain('  \u25b8 thinking (2 lines)');
    expect(screen).toContain('  \u00bb sh {"cmd":"step 0"}');
    expect(screen).toContain('    \u25b8 output (1 line)');
    expect(screen).not.toContain('out 0');
    expect(screen).not.toContain('run completed'); // below the fold
    expect(rows).toHaveLength(24);

    t.keys('G');
    screen = await t.waitFor('\u203a \u2500\u2500 run completed');
    expect(screen).toContain('All done.');
    expect(screen).not.toContain('Look around');
    t.keys('g');
    await t.waitFor('\u203a > Look around');
    t.keys('NPage');
    await t.waitFor((s) => !s.includes('Look around'), 'the next page');
    t.keys('PPage');
    await t.waitFor('\u203a > Look around');

    t.keys('j');
    await t.waitFor(/\n\u203a\s*\n/, 'the cursor on the blank row');
    t.keys('Down');
    await t.waitFor('\u203a \u25b8 thinking (2 lines)');
    t.keys('Enter');
    screen = await t.waitFor('\u203a \u25be thinking');
    expect(screen).toContain('    weigh the options\n    then act');
    t.keys('t');
    await t.waitFor('\u25b8 thinking (2 lines)');

    t.keys('o');
    screen = await t.waitFor('      out 0');
    expect(screen).toContain('    \u25be output (1 line)');

    t.keys('/');
    await t.waitFor(/^\/\u2588/m, 'the search prompt');
    t.type('NEEDLE');
    await t.waitFor('/NEEDLE\u2588');
    t.keys('Enter');
    screen = await t.waitFor('match 1 of 1 for "NEEDLE"');
    expect(screen).toContain('\u203a     needle-in-output');
    expect(screen).not.toContain('Look around'); // scrolled to it
    t.keys('/');
    t.type('zzz');
    t.keys('Enter');
    await t.waitFor('no match for "zzz"');

    t.keys('q');
    expect(await t.exitStatus()).toBe(0);
    // The alternate screen is left: the viewer's frame is gone from the terminal.
    expect(t.text()).not.toContain(HELP);
  });

  it('opens with tool output unfolded under --tool-output', async () => {
    const t = show('demo', '--tool-output');
    const screen = await t.waitFor(HELP);
    expect(screen).toContain('    \u25be output (1 line)\n      out 0');
    t.keys('C-c');
    expect(await t.exitStatus()).toBe(0);
  });

  it('closes as Ctrl-C does when SIGINT comes as a signal (before the terminal is in raw mode, a Ctrl-C is one)', async () => {
    const t = show('demo');
    await t.waitFor(HELP);
    process.kill(-Number(t.format('#{pane_pid}')), 'SIGINT'); // to the terminal's foreground group, as the key sends it
    expect(await t.exitStatus()).toBe(0);
  });

  it('prints the plain transcript on a terminal under --no-tui', async () => {
    const t = show('demo', '--no-tui');
    expect(await t.exitStatus()).toBe(0);
    const screen = t.text();
    expect(screen).toContain('\u00bb sh {"cmd":"step 11"}');
    expect(screen).not.toContain(HELP);
  });

  it('lets no sequence from a hostile journal reach the terminal', async () => {
    // Control: the same title sequence, printed raw, does retitle a pane.
    // (The program stays a while: tmux applies a title only while the pane's program runs.)
    const control = Tmux.start(['sh', '-c', "printf '\\033]2;PWNED\\007'; sleep 5"], { env, width: 100, height: 24 });
    open.push(control);
    const deadline = Date.now() + 10_000;
    while (control.format('#{pane_title}') !== 'PWNED' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    expect(control.format('#{pane_title}')).toBe('PWNED');

    const t = show('hostile');
    await t.waitFor(HELP);
    t.keys('t');
    await t.waitFor('\u25be thinking');
    t.keys('o');
    const screen = await t.waitFor('\u25be output');
    expect(t.format('#{pane_title}')).not.toBe('PWNED');
    const rows = t.screen();
    expect(rows[0]).toMatch(/^ hostile \u00b7 test-model \u00b7 error: failed A/); // not cleared or overwritten
    expect(rows[1]).toMatch(/^\u203a > prompt Aclear title hidden red dcs over$/);
    expect(screen).toContain('    write back\u2408space bell\u2407 esrever iso Z');
    expect(screen).toMatch(/\u00bb shAclear title hidden/);
    expect(rows[22]).toContain(HELP); // the status line, above the spare row
    t.keys('q');
    expect(await t.exitStatus()).toBe(0);
  });

  it("renders the model's Markdown as the chat renders an answer, on a color terminal", async () => {
    const answer = ['## Totals', '', 'The **sum** by month:', '', '| Month | Amount |', '|:--|--:|', '| January | 7 |', '| February | 1,234,567 |', '', '- checked', '- signed'].join('\n');
    await writeRun(state, 'markdown', [turn(0, [text(answer)]), { terminal: { reason: 'completed' } }], 'Totals?');
    const colored = Object.fromEntries(Object.entries(env).filter(([k]) => k !== 'NO_COLOR'));
    const t = Tmux.start([process.execPath, BIN, 'session', 'show', 'markdown', '--transcript', '--state-dir', state], { env: colored, width: 100, height: 24 });
    open.push(t);
    const screen = await t.waitFor(HELP);
    // The rows are the chat's lines for the viewer's width (two columns of gutter), styled on the terminal.
    for (const line of renderMarkdown(answer, { width: 98, theme: plainTheme }).split('\n')) if (line.trim() !== '') expect(screen).toContain(`  ${line}`.trimEnd());
    expect(screen).toContain('January  \u2502         7');
    expect(screen).not.toContain('**sum**');
    expect(screen).not.toContain('| Month');
  });
});

