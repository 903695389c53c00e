/**
 * The runs page over a store of many runs, in a real headless Chromium: every
 * run is listed, in order, though the rows beyond the first screen are added
 * after the first paint; a filter typed while they are being added lists only
 * what matches; and the page's first load and its event stream's first
 * listing share one listing of the store (RunsList).
 */
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileStore, type Store } from '../../src/index.js';
import { computeFingerprint } from '../../src/core/index.js';
import { RunsList } from '../../src/cli/ui/runs.js';
import { useChromium } from '../helpers/chromium.js';
import { spawnCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/tmp.js';

const RUNS = 700;
const { enabled, browser } = useChromium();
const dir = tempDir('logbook-ui-long-');
const stateDir = join(dir, 'state');
const fingerprint = computeFingerprint({ provider: 'script', model: 'm', systemPrompt: '', tools: [], thinkingMode: 'off', maxTokens: 1, maxIterations: 1 });
const idOf = (i: number): string => `run-${String(i).padStart(4, '0')}`;

beforeAll(async () => {
  const store = new FileStore(join(stateDir, 'runs'));
  for (let i = 0; i < RUNS; i++) {
    // Older runs first: the page lists the newest first.
    const created = new Date(Date.UTC(2026, 10, 1) + i * 60_000).toISOString().replace('.000', '');
    const j = await store.create(idOf(i), { version: 3, run_id: idOf(i), created, fingerprint, prompt: i % 7 === 0 ? `seventh ${i}` : `question ${i}` });
    await j.close();
  }
});

describe('the runs of a store, listed for the web view', () => {
  it('makes one listing for the calls that come while it is being made', async () => {
    const real = new FileStore(join(stateDir, 'runs'));
    let listings = 0;
    const store = new Proxy(real, {
      get(target, key, receiver) {
        if (key === 'list') {
          return (...args: Parameters<Store['list']>) => {
            listings++;
            return target.list(...args);
          };
        }
        const value = Reflect.get(target, key, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const runs = new RunsList(store, dir);
    const [a, b] = await Promise.all([runs.list(), runs.list()]);
    expect(listings).toBe(1);
    expect(a).toBe(b);
    expect(a).toHaveLength(RUNS);
    await runs.list();
    expect(listings).toBe(2); // a call after it was made lists the store again
  });
});

describe.runIf(enabled)('the runs page of a long list in Chromium', () => {
  let child: ReturnType<typeof spawnCli>;
  let url: string;
  beforeAll(async () => {
    child = spawnCli(['ui', '--state-dir', stateDir], { cwd: dir });
    url = await new Promise<string>((res, rej) => {
      createInterface({ input: child.stdout! }).once('line', res);
      child.once('exit', (code) => rej(new Error(`logbook ui exited ${code}`)));
    });
  });
  afterAll(async () => {
    await new Promise((res) => {
      child.once('exit', res);
      child.kill('SIGINT');
    });
  });

  it('lists every run, newest first, the rows past the first screen added after it is shown', async () => {
    const context = await browser().newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(url);
    await page.getByText(`${RUNS.toLocaleString('en-US')} of ${RUNS.toLocaleString('en-US')} runs`).waitFor();
    await page.locator(`tr[data-run="${idOf(0)}"]`).waitFor({ state: 'attached' });
    const ids = await page.locator('tr[data-run]').evaluateAll((rows) => rows.map((r) => (r as unknown as { dataset: { run: string } }).dataset.run));
    expect(ids).toEqual(Array.from({ length: RUNS }, (_, i) => idOf(RUNS - 1 - i)));
    await context.close();
  });

  it('lists only the runs a filter matches, though it was typed while the rows were being added', async () => {
    const context = await browser().newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    await page.goto(url);
    await page.locator('tr[data-run]').first().waitFor();
    await page.locator('#filter').fill('seventh');
    const matching = Array.from({ length: RUNS }, (_, i) => i)
      .filter((i) => i % 7 === 0)
      .reverse()
      .map(idOf);
    await page.getByText(`${matching.length} of ${RUNS.toLocaleString('en-US')} runs`).waitFor();
    await page.locator(`tr[data-run="${idOf(0)}"]`).waitFor({ state: 'attached' });
    // Whatever was still to be added for the unfiltered list has stopped.
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50)))');
    const ids = await page.locator('tr[data-run]').evaluateAll((rows) => rows.map((r) => (r as unknown as { dataset: { run: string } }).dataset.run));
    expect(ids).toEqual(matching);
    await context.close();
  });
});
