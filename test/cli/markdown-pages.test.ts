/**
 * A model's Markdown on the two pages that render it, through the binary in a
 * real headless Chromium: the HTML export (`session export --format html`) and
 * the web view (`logbook ui`). Under each page's strict content security
 * policy, not one console error (an inline style would be one: a refused
 * style attribute); a table's right-aligned column shows right-aligned; the
 * model's headings are styled apart from the page's own section titles.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useChromium } from '../helpers/chromium.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { completed } from '../helpers/records.js';
import { text, turn, writeRun } from '../helpers/runs.js';
import { tempDir } from '../helpers/tmp.js';

const { enabled, browser } = useChromium();
const dir = tempDir('logbook-md-pages-');
const stateDir = join(dir, 'state');

const ANSWER = ['## Totals', '', 'By month:', '', '| Month | Amount |', '|:------|-------:|', '| January | 7 |', '| February | 1,234,567 |', '', 'That is all.'].join('\n');

beforeAll(async () => {
  await writeRun(stateDir, 'tables', [turn(0, [text(ANSWER)], [10, 40]), completed], 'What are the totals?');
});

/** A fresh page whose console errors (a refused inline style among them) and page errors are kept. */
async function open(): Promise<{ page: Page; errors: string[]; close: () => Promise<void> }> {
  const context = await browser().newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  return { page, errors, close: () => context.close() };
}

/** The right edges of the text in the second column's body cells, and their left edges. */
async function amountEdges(page: Page): Promise<{ right: number[]; left: number[]; align: string[] }> {
  return page.evaluate(`(() => {
    const cells = [...document.querySelectorAll('.md table tbody tr td:nth-child(2)')];
    const boxes = cells.map((td) => { const r = document.createRange(); r.selectNodeContents(td); return r.getBoundingClientRect(); });
    return { right: boxes.map((b) => Math.round(b.right)), left: boxes.map((b) => Math.round(b.left)), align: cells.map((td) => getComputedStyle(td).textAlign) };
  })()`);
}

async function expectAligned(page: Page): Promise<void> {
  const edges = await amountEdges(page);
  expect(edges.align).toEqual(['right', 'right']);
  // Right-aligned: "7" and "1,234,567" end at the same x, and so start at different ones.
  expect(Math.abs(edges.right[0]! - edges.right[1]!)).toBeLessThanOrEqual(1);
  expect(edges.left[0]! - edges.left[1]!).toBeGreaterThan(20);
  expect(await page.locator('.md [style]').count()).toBe(0);
}

/** The model's `## Totals` is not styled as the page's own section titles. */
async function expectHeadingApart(page: Page, chrome: string): Promise<void> {
  // In the page, globalThis is its window (this project's TypeScript knows no DOM).
  type InPage = { getComputedStyle(e: unknown): { textTransform: string; color: string } };
  const style = (selector: string): Promise<string> =>
    page
      .locator(selector)
      .first()
      .evaluate((e) => {
        const s = (globalThis as unknown as InPage).getComputedStyle(e);
        return `${s.textTransform} ${s.color}`;
      });
  await expect(page.locator('.md h2').innerText()).resolves.toBe('Totals');
  expect(await style('.md h2')).not.toBe(await style(chrome));
}

describe.runIf(enabled)("a model's Markdown on a page", () => {
  it('renders in the HTML export with no console error, its right-aligned column right-aligned', async () => {
    const file = join(dir, 'tables.html');
    const r = await runCli(['session', 'export', 'tables', '--format', 'html', '-o', file, '--state-dir', stateDir], { cwd: dir });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).not.toMatch(/style="/);
    const { page, errors, close } = await open();
    await page.goto(pathToFileURL(file).href);
    await expectAligned(page);
    await expectHeadingApart(page, 'section > h2');
    expect(errors).toEqual([]);
    await close();
  });

  describe('in the web view', () => {
    let child: ReturnType<typeof spawnCli>;
    let url: URL;
    beforeAll(async () => {
      child = spawnCli(['ui', '--state-dir', stateDir], { cwd: dir });
      url = new URL(
        await new Promise<string>((res, rej) => {
          createInterface({ input: child.stdout! }).once('line', res);
          child.once('exit', (code) => rej(new Error(`logbook ui exited ${code}`)));
        }),
      );
    });
    afterAll(async () => {
      await new Promise((res) => {
        child.once('exit', res);
        child.kill('SIGINT');
      });
    });

    it('renders with no console error, its right-aligned column right-aligned', async () => {
      const { page, errors, close } = await open();
      await page.goto(`${url.origin}/runs/tables?token=${url.searchParams.get('token')}`);
      await page.locator('.md table').waitFor();
      await expectAligned(page);
      await expectHeadingApart(page, 'main > h2');
      expect(errors).toEqual([]);
      await close();
    });
  });
});
