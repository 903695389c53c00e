/**
 * The web view of a long run, in a real headless Chromium through the binary:
 * a run's page holds its last part (bounded elements and bytes, whatever the
 * run's length), earlier parts come on demand, and a record appended while
 * the page follows the run sends what changed, the same bytes for a run of
 * 20,000 records as for one of a few.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { BrowserContext, CDPSession, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeRecord, FileStore, RawJson, type Journal, type JournalRecord, type Payload } from '../../src/index.js';
import { useChromium } from '../helpers/chromium.js';
import { spawnCli } from '../helpers/cli.js';
import { meta } from '../helpers/records.js';
import { tempDir } from '../helpers/tmp.js';

const { enabled, browser } = useChromium();
const dir = tempDir('logbook-ui-large-');
const stateDir = join(dir, 'state');
const runsDir = join(stateDir, 'runs');
/** Turns of the long run: an assistant record and its tool result each, after the meta. */
const TURNS = 10_000;

const turnText = (i: number): string => `Turn ${i}: reading the next part of the ledger, which holds the entries of day ${i}.`;
const assistantAt = (i: number): Payload => ({
  assistant: {
    iteration: i,
    message: { role: 'assistant', content: [{ text: { text: turnText(i) } }, { tool_use: { id: `toolu_${i}`, name: 'read', input: RawJson.fromValue({ day: i }) } }] },
    stop_reason: 'tool_use',
    in_tokens: 100 + i,
    out_tokens: 20,
  },
});
const resultAt = (i: number): Payload => ({
  tool_result: { tool_use_id: `toolu_${i}`, result: { tool_use_id: `toolu_${i}`, content: `entries of day ${i}: ${'opening balance, transfers, closing balance; '.repeat(6)}` } },
});

/** A run of `turns` turns, held open (a writer holds it: the page follows it live). */
async function heldRun(store: FileStore, id: string, turns: number): Promise<Journal> {
  const lines = [encodeRecord({ seq: 1, meta: meta(id, { prompt: 'Go through the ledger.' }) } as JournalRecord)];
  for (let i = 0; i < turns; i++) {
    lines.push(encodeRecord({ seq: lines.length + 1, ...assistantAt(i) } as JournalRecord));
    lines.push(encodeRecord({ seq: lines.length + 1, ...resultAt(i) } as JournalRecord));
  }
  // Written as the file store writes a journal, at once: a test need not wait for 20,000 fsyncs.
  writeFileSync(join(runsDir, `${id}.jsonl`), `${lines.join('\n')}\n`, { mode: 0o600 });
  return store.open(id);
}

let child: ReturnType<typeof spawnCli> | undefined;
let url: URL;
const store = new FileStore(runsDir);
const journals: Record<string, Journal> = {};

beforeAll(async () => {
  if (!enabled) return;
  mkdirSync(runsDir, { recursive: true });
  journals.big = await heldRun(store, 'big', TURNS);
  journals.small = await heldRun(store, 'small', 1);
  child = spawnCli(['ui', '--state-dir', stateDir], { cwd: dir });
  url = new URL(
    await new Promise<string>((res, rej) => {
      createInterface({ input: child!.stdout! }).once('line', res);
      child!.once('exit', (code) => rej(new Error(`logbook ui exited ${code}`)));
    }),
  );
}, 60_000);

afterAll(async () => {
  for (const j of Object.values(journals)) await j.close();
  await store.close();
  if (child !== undefined) {
    await new Promise((res) => {
      child!.once('exit', res);
      child!.kill('SIGINT');
    });
  }
});

interface Watched {
  context: BrowserContext;
  page: Page;
  /** Bytes of every response body the page received, event streams included. */
  received: () => number;
  /** The data of every event-stream message, as received. */
  messages: { event: string; bytes: number }[];
  errors: string[];
}

/** A page whose received bytes and event-stream messages are counted (through the DevTools protocol). */
async function watched(): Promise<Watched> {
  const context = await browser().newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(20_000);
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  const cdp: CDPSession = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  let bytes = 0;
  const messages: { event: string; bytes: number }[] = [];
  cdp.on('Network.dataReceived', (e) => (bytes += e.dataLength));
  cdp.on('Network.eventSourceMessageReceived', (e) => messages.push({ event: e.eventName, bytes: Buffer.byteLength(e.data) }));
  return { context, page, received: () => bytes, messages, errors };
}

const runUrl = (id: string): string => `${url.origin}/runs/${id}?token=${url.searchParams.get('token')}`;

/** Resolves once no event-stream message has come for `quiet` ms. */
async function settled(w: Watched, quiet = 400): Promise<void> {
  let seen = -1;
  while (seen !== w.messages.length) {
    seen = w.messages.length;
    await new Promise((res) => setTimeout(res, quiet));
  }
}

describe.runIf(enabled)('a long run on its page', () => {
  it('shows the last part of a 20,000-record run, bounded in elements and bytes, and earlier parts on demand', async () => {
    const w = await watched();
    await w.page.goto(runUrl('big'));
    await w.page.locator('#transcript', { hasText: turnText(TURNS - 1) }).waitFor();
    await settled(w);
    const elements = await w.page.evaluate<number>("document.querySelectorAll('*').length");
    // The whole run is some 10 MB as one view and 100,000 elements; its page holds the last part.
    expect(elements).toBeLessThan(3_000);
    expect(w.received()).toBeLessThan(400_000);
    const shown = await w.page.locator('#transcript .group').count();
    expect(shown).toBeGreaterThan(10);
    expect(await w.page.locator('#transcript', { hasText: turnText(TURNS - 100) }).count()).toBe(0);

    // More on demand: the messages before those shown, then the steps before those on the timeline.
    const steps = await w.page.locator('#timeline .label').count();
    await w.page.locator('#earlier-messages').click();
    await w.page.locator('#transcript', { hasText: turnText(TURNS - 40) }).waitFor();
    expect(await w.page.locator('#transcript .group').count()).toBeGreaterThan(shown);
    await w.page.locator('#earlier-steps').click();
    // Polled from here: a predicate evaluated in the page would be a string eval the page's CSP refuses.
    await expect.poll(() => w.page.locator('#timeline .label').count(), { timeout: 20_000 }).toBeGreaterThan(steps);
    expect(await w.page.evaluate<number>("document.querySelectorAll('*').length")).toBeLessThan(6_000);
    expect(w.errors).toEqual([]);
    await w.context.close();
  });

  it('sends, for a record appended while the page follows, what changed: as many bytes for 20,000 records as for three', async () => {
    const perChange: Record<string, number> = {};
    for (const id of ['small', 'big']) {
      const w = await watched();
      await w.page.goto(runUrl(id));
      await w.page.locator('.status', { hasText: 'running' }).first().waitFor();
      await w.page.locator('#transcript .group').first().waitFor();
      await settled(w);
      const before = w.messages.length;
      const turn = TURNS + 1;
      const j = journals[id]!;
      await j.append({ seq: j.lastSeq + 1, ...assistantAt(turn) } as JournalRecord);
      await j.append({ seq: j.lastSeq + 1, ...resultAt(turn) } as JournalRecord);
      await w.page.locator('#transcript', { hasText: turnText(turn) }).waitFor();
      await w.page.locator('#transcript', { hasText: `entries of day ${turn}` }).waitFor({ state: 'attached' });
      await settled(w);
      const sent = w.messages.slice(before);
      expect(sent.length, id).toBeGreaterThan(0);
      perChange[id] = sent.reduce((n, m) => n + m.bytes, 0);
      expect(w.errors).toEqual([]);
      await w.context.close();
    }
    // Bounded: a few kilobytes for two records, and not more for the long run (its whole view is megabytes).
    expect(perChange.big!).toBeLessThan(16_000);
    expect(perChange.big!).toBeLessThan(perChange.small! + 2_000);
  });
});
