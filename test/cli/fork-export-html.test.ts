/**
 * The HTML export of a fork, through the binary and opened in a real headless
 * Chromium: it says the run was forked and from where (as `session show`
 * does), and a code block keeps its language label (as the terminal shows it).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { useChromium } from '../helpers/chromium.js';
import { tempDir } from '../helpers/tmp.js';

const { enabled, browser } = useChromium();

const ANSWER = 'Run this:\n\n```sh\nls   -l\n```\n';

describe.runIf(enabled)('the HTML export of a fork', () => {
  it('says which run it was forked from and up to which seq, and labels a code block with its language', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'turns.yaml'), `turns:\n  - text: ${JSON.stringify(ANSWER)}\n  - text: Again.\n`);
    writeFileSync(join(dir, 'agent.yaml'), 'provider: script\nscript: turns.yaml\n');
    const state = join(dir, 'state');
    expect((await runCli(['run', '--chat', '--state-dir', state, '--name', 'talk', 'how?'], { cwd: dir, input: 'more\n' })).code).toBe(0);
    expect((await runCli(['session', 'fork', 'talk', '--turn', '1', '--name', 'branch', '--state-dir', state], { cwd: dir })).code).toBe(0);
    const show = await runCli(['session', 'show', 'branch', '--state-dir', state], { cwd: dir });
    const [, origin] = /^forked from +(run talk, up to seq \d+)$/m.exec(show.stdout) ?? [];
    expect(origin).toBeDefined();

    const file = join(dir, 'branch.html');
    expect((await runCli(['session', 'export', 'branch', '-o', file, '--state-dir', state], { cwd: dir })).code).toBe(0);
    const page = await (await browser().newContext({ javaScriptEnabled: false })).newPage();
    await page.goto(pathToFileURL(file).href);
    const summary = await page.locator('header dl').innerText();
    expect(summary).toMatch(new RegExp(`Forked from\\s+${origin!}`));
    const label = page.locator('.md .lang');
    expect(await label.innerText()).toBe('sh');
    // Shown, just above its block.
    const [labelBox, blockBox] = [await label.boundingBox(), await page.locator('.md pre').first().boundingBox()];
    expect(labelBox!.height).toBeGreaterThan(0);
    expect(labelBox!.y + labelBox!.height).toBeLessThanOrEqual(blockBox!.y + 1);
    expect((await page.locator('.md pre').first().innerText()).trimEnd()).toBe('ls   -l');
  });
});
