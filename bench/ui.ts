/**
 * `logbook ui`: how long the runs page of a store of 1k runs, and of 10k, takes to show them
 * in headless Chromium (playwright-core driving the system's /usr/bin/chromium),
 * from navigation to the paint that shows the listed runs, against the same
 * page over an empty store, rounds alternating. Each round starts `logbook ui`
 * afresh, as a person does, and loads the page in a fresh browser context
 * (nothing cached), then once more in another: the second load finds the
 * newest runs' counters read (it still lists the store).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { writeJournal } from './lib/content.js';
import { BIN, tempDir, type BenchOptions } from './lib/env.js';
import { skipped, type Section } from './lib/report.js';
import { median, ms } from './lib/stats.js';

const RECORDS = 21;
/** The browser as the tests start it: headless, offline, nothing in the background. */
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

function chromiumPath(): string | null {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    try {
      accessSync(join(dir, 'chromium'), constants.X_OK);
      return join(dir, 'chromium');
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * Notes, as the page loads, its first contentful paint (Paint Timing) and the
 * render time of the element the runs page marks `elementtiming="runs-listed"`
 * (Element Timing: its line "N of N runs", drawn in the same frame as the first
 * rows; the page adds the rest once that frame is painted).
 */
const OBSERVE_PAINTS = `
window.__paints = {};
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (e.name === 'first-contentful-paint') window.__paints.fcp = e.startTime;
}).observe({ type: 'paint', buffered: true });
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) if (e.identifier === 'runs-listed') window.__paints.listed = e.renderTime || e.loadTime;
}).observe({ type: 'element', buffered: true });
`;

function stateDir(runs: number): string {
  const dir = tempDir(`ui-${runs}`);
  mkdirSync(join(dir, 'runs'));
  for (let i = 0; i < runs; i++) {
    const id = `run-${String(i).padStart(5, '0')}`;
    writeJournal(join(dir, 'runs', `${id}.jsonl`), id, RECORDS);
  }
  return dir;
}

/** `logbook ui` over state dir `dir`, and the address it printed. */
async function startUi(dir: string): Promise<{ child: ChildProcessWithoutNullStreams; url: string }> {
  const child = spawn(process.execPath, [BIN, 'ui', '--state-dir', dir], { cwd: dir, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`logbook ui printed no address: ${err}`)), 60_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const line = /^(http:\/\/127\.0\.0\.1:\d+\/\?token=\S+)$/m.exec(out)?.[1];
      if (line !== undefined) {
        clearTimeout(timer);
        resolve(line);
      }
    });
    child.on('exit', (code) => reject(new Error(`logbook ui exited ${code}: ${err}`)));
  });
  return { child, url };
}

function stopUi(child: ChildProcessWithoutNullStreams): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGINT');
  });
}

interface Paints {
  fcp: number;
  listed: number;
  /** When every run's row was in the page (the first animation frame that found them all). */
  all: number;
}

/** One load of the runs page in a fresh context: its paints, the rows checked. */
async function load(browser: Browser, url: string, runs: number): Promise<Paints> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.addInitScript(OBSERVE_PAINTS);
    await page.goto(url);
    // In the page, globalThis is its window (this project's TypeScript knows no DOM); the page's policy allows no eval of text.
    type InPage = { __paints: Partial<Paints>; document: { querySelectorAll(s: string): { length: number } } };
    type Rows = { document: { querySelectorAll(s: string): { length: number } }; performance: { now(): number } };
    await page.waitForFunction(() => (globalThis as unknown as InPage).__paints.listed !== undefined, null, { timeout: 60_000 });
    // The rows past the first screen come after that paint: every run must be listed all the same.
    const all = await page
      .waitForFunction((n) => ((globalThis as unknown as Rows).document.querySelectorAll('table.runs tbody tr').length === n ? (globalThis as unknown as Rows).performance.now() : false), runs, { timeout: 60_000, polling: 'raf' })
      .then((h) => h.jsonValue() as Promise<number>)
      .catch(() => NaN);
    const got = await page.evaluate(() => {
      const w = globalThis as unknown as InPage;
      return { fcp: w.__paints.fcp ?? NaN, listed: w.__paints.listed ?? NaN, rows: w.document.querySelectorAll('table.runs tbody tr').length };
    });
    if (got.rows !== runs) throw new Error(`the runs page listed ${got.rows} of ${runs} runs`);
    return { fcp: got.fcp, listed: got.listed, all };
  } finally {
    await context.close();
  }
}

/** The stores measured, and the first paint each must come under. */
const SIZES = [
  { runs: 1_000, quick: 300, rounds: 7, quickRounds: 3, target: 500 },
  { runs: 10_000, quick: 3_000, rounds: 3, quickRounds: 2, target: 1_000 },
] as const;

interface Rounds {
  full: { cold: Paints[]; warm: Paints[] };
  empty: { cold: Paints[]; warm: Paints[] };
}

/** Rounds of the runs page over a store of `runs` runs and over an empty one, alternating, each `logbook ui` started afresh. */
async function measure(browser: Browser, runs: number, rounds: number): Promise<Rounds> {
  const full = stateDir(runs);
  const empty = stateDir(0);
  const got: Rounds = { full: { cold: [], warm: [] }, empty: { cold: [], warm: [] } };
  // A first load of each, unmeasured: the browser's own first start (its caches, its processes) is no page's.
  for (const [dir, n] of [[full, runs], [empty, 0]] as const) {
    const ui = await startUi(dir);
    await load(browser, ui.url, n).finally(() => stopUi(ui.child));
  }
  for (let r = 0; r < rounds; r++) {
    for (const side of r % 2 === 0 ? (['full', 'empty'] as const) : (['empty', 'full'] as const)) {
      const ui = await startUi(side === 'full' ? full : empty);
      try {
        got[side].cold.push(await load(browser, ui.url, side === 'full' ? runs : 0));
        got[side].warm.push(await load(browser, ui.url, side === 'full' ? runs : 0));
      } finally {
        await stopUi(ui.child);
      }
    }
  }
  return got;
}

export async function benchUi(opts: BenchOptions): Promise<Section> {
  const executablePath = chromiumPath();
  if (executablePath === null) return skipped('`logbook ui` runs page, 1k and 10k runs, first paint', '< 500 ms, < 1 s', 'chromium is not installed (`apt-get install -y chromium`)');
  const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS, timeout: 60_000 });
  // Chromium leaves processes of its own to the system to reap, so their CPU time is counted with everything else's.
  const section: Section = { rows: [], notes: [], loadUnknown: "Chromium's own processes are reaped by the system, not by the benchmark, so their time cannot be told from others'" };
  try {
    for (const size of SIZES) {
      const runs = opts.quick ? size.quick : size.runs;
      const rounds = opts.quick ? size.quickRounds : size.rounds;
      const got = await measure(browser, runs, rounds);
      const med = (xs: Paints[], k: keyof Paints): number => median(xs.map((p) => p[k]));
      const listed = med(got.full.cold, 'listed');
      section.rows.push({
        what: `\`logbook ui\` runs page over ${runs.toLocaleString('en-US')} runs in headless Chromium: navigation to the paint showing them (first contentful paint)`,
        measured: `${ms(listed)} (${ms(med(got.full.cold, 'fcp'))})`,
        baseline: `the same page over an empty store: ${ms(med(got.empty.cold, 'listed'))} (${ms(med(got.empty.cold, 'fcp'))})`,
        figure: `${ms(listed)}; ${ms(listed - med(got.empty.cold, 'listed'))} more than an empty store's`,
        target: `< ${ms(size.target)}`,
        verdict: opts.quick ? '—' : listed < size.target ? 'met' : 'missed',
        growth: '—',
      });
      section.notes.push(
        `Web view over ${runs.toLocaleString('en-US')} runs: \`node bin/logbook ui --state-dir D\` started afresh each round over ${runs.toLocaleString('en-US')} runs of ${RECORDS} records (and over an empty store, the two alternating, ${rounds} rounds), its runs page loaded in a fresh context of headless Chromium (playwright-core, /usr/bin/chromium). Times run from navigation start (performance.timeOrigin) to the render time Element Timing gives the page's line "N of N runs" (marked \`elementtiming="runs-listed"\`, drawn in the same frame as the first 60 rows, once the page has fetched the listing; the page adds the other rows 300 at a time after that frame) and, in brackets, to the first contentful paint (Paint Timing: the page's header, before the listing comes). Loaded again in another fresh context while the same \`logbook ui\` runs, which has read the newest runs' counters once (each load still lists the store): ${ms(med(got.full.warm, 'listed'))} (${ms(med(got.empty.warm, 'listed'))} over the empty store). Every row was in the page at ${ms(med(got.full.cold, 'all'))} (median, the first animation frame that found them all). The first load of each store, before the rounds, is not counted: the browser's first start is no page's.`,
      );
    }
  } finally {
    await browser.close();
  }
  return section;
}
