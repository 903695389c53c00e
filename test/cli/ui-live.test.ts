/**
 * Live text on `logbook ui`'s run page, through the binary in headless
 * Chromium against the local Messages server streaming slowly: a page that
 * opens on a run mid-answer shows the answer from its start, marked as not yet
 * journaled, before its record exists; once the record is journaled the page
 * shows the answer once, as the record, and the streaming block is gone. The
 * text is shown as text, markup and all.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { FileStore, textOf, type JournalRecord } from '../../src/index.js';
import { BIN } from '../helpers/cli.js';
import { useChromium } from '../helpers/chromium.js';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { tempDir } from '../helpers/tmp.js';

const { enabled, browser } = useChromium();
const anthropic = useFakeAnthropic();
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  anthropic.reset();
});

/** The first line carries markup: the model's text is shown as the literal text it is. */
const LINES = Array.from({ length: 6 }, (_, i) => `Line ${i + 1}${i === 0 ? ' <img src=x>' : ''} of the answer, streamed slowly.`);
const ANSWER = LINES.join('\n');

describe.runIf(enabled)('logbook ui, an answer as it streams', () => {
  it('shows its words before its record exists, marked not yet journaled, then the record once in their place', async () => {
    const dir = tempDir('logbook-ui-live-');
    writeFileSync(join(dir, 'agent.yaml'), `provider: anthropic\nmodel: claude-test\nbase_url: ${anthropic.url}\n`);
    const state = join(dir, 'state');
    const env = { PATH: process.env.PATH ?? '', HOME: dir, ANTHROPIC_API_KEY: 'sk-test', NO_COLOR: '1' };
    const store = new FileStore(join(state, 'runs'));
    const answers = async (): Promise<string[]> => (await store.load('one')).records.flatMap((r: JournalRecord) => ('assistant' in r ? [textOf(r.assistant.message)] : []));
    anthropic.reply({ message: { content: [{ type: 'text', text: ANSWER }], chunkSize: 6 }, delayMs: 100 });

    const writer = spawn(process.execPath, [BIN, 'run', '--name', 'one', '--state-dir', state, 'tell me'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(writer);
    const exited = new Promise<number | null>((resolve) => writer.on('close', resolve));
    let out = '';
    await new Promise<void>((resolve) =>
      writer.stdout!.setEncoding('utf8').on('data', (c: string) => {
        out += c;
        if (out.includes(LINES[0]!)) resolve();
      }),
    );

    const ui = spawn(process.execPath, [BIN, 'ui', '--state-dir', state], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(ui);
    const url = new URL(await new Promise<string>((resolve) => createInterface({ input: ui.stdout! }).once('line', resolve)));
    const context = await browser().newContext();
    const errors: string[] = [];
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(15_000);
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`${url.origin}/runs/one?token=${url.searchParams.get('token')}`);

      const live = page.locator('#live');
      await live.getByText(LINES[0]!).waitFor(); // from its start, though the page opened mid-answer
      expect(await live.textContent()).toContain('streaming, not yet journaled');
      expect(await page.locator('main img').count()).toBe(0);
      expect(anthropic.requests[0]!.answered).toBe(false); // the answer is still streaming: its record cannot exist
      expect(await answers()).toEqual([]);

      expect(await exited).toBe(0);
      await live.waitFor({ state: 'detached' });
      await page.locator('#transcript').getByText(LINES[5]!).waitFor();
      const shown = await page.locator('main').innerText();
      expect(shown.split(LINES[0]!)).toHaveLength(2); // the record's text, once
      expect(await answers()).toEqual([ANSWER]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
