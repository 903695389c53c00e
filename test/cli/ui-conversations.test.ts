/**
 * A conversation in the web view, through the binary in a real headless
 * Chromium: a run compacted into a continuation is one row of the runs page,
 * its newest run with `+1 earlier` (as `session ls` lists it); the run's page
 * shows what it spent, links the run it continues and the continuation of a
 * compacted run, and lists the conversation's runs with links.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useChromium } from '../helpers/chromium.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { NOTE_TOOL, anthropicNoteTaker } from '../helpers/note-taker.js';
import { tempDir } from '../helpers/tmp.js';

const { enabled, browser } = useChromium();
const anthropic = useFakeAnthropic();
const dir = tempDir('logbook-ui-conversations-');
const stateDir = join(dir, 'state');
const cfg = join(dir, 'agent.yaml');
const env = () => ({ ANTHROPIC_BASE_URL: anthropic.origin, ANTHROPIC_API_KEY: 'test-key', LOGBOOK_PROVIDER_MAX_RETRIES: '0' });

let into = '';
let child: ReturnType<typeof spawnCli> | undefined;
let url: URL;

beforeAll(async () => {
  if (!enabled) return;
  writeFileSync(cfg, `provider: anthropic\nmodel: claude-test\nmax_tokens: 200\nmax_iterations: 3\nsystem: You take notes.\nprices: { claude-test: { input: 1, output: 1 } }\n${NOTE_TOOL}`);
  anthropic.handler = anthropicNoteTaker(5).handler;
  const cli = (args: string[]) => runCli([...args, '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: env() });
  expect((await cli(['run', '--name', 'talk', 'Take 5 notes.'])).code).toBe(5);
  const compacted = await cli(['session', 'compact', 'talk']);
  expect(compacted.code, compacted.stderr).toBe(0);
  into = compacted.stdout.trim();
  child = spawnCli(['ui', '--config', cfg, '--state-dir', stateDir], { cwd: dir, env: env() });
  url = new URL(
    await new Promise<string>((res, rej) => {
      createInterface({ input: child!.stdout! }).once('line', res);
      child!.once('exit', (code) => rej(new Error(`logbook ui exited ${code}`)));
    }),
  );
}, 60_000);

afterAll(async () => {
  if (child === undefined) return;
  await new Promise((res) => {
    child!.once('exit', res);
    child!.kill('SIGINT');
  });
});

describe.runIf(enabled)('a conversation in the web view', () => {
  it('is one row, its newest run with +1 earlier; its page links the runs of the conversation, their compaction and what they spent', async () => {
    const context = await browser().newContext();
    const page = await context.newPage();
    page.setDefaultTimeout(10_000);
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(String(e)));

    await page.goto(url.href);
    const row = page.locator(`tr[data-run="${into}"]`);
    await expect(row.locator('td').first().innerText()).resolves.toContain(`${into} +1 earlier`);
    expect(await page.locator('tr[data-run="talk"]').count()).toBe(0);

    await row.locator('a').click();
    await page.locator('#conversation').waitFor();
    expect(await page.locator('#conversation li').evaluateAll((items) => items.map((li) => (li as unknown as { dataset: { run: string } }).dataset.run))).toEqual(['talk', into]);
    await expect(page.locator('#conversation h2').innerText()).resolves.toMatch(/^Conversation: 2 runs, \$\d/i);
    const facts = page.locator('dl.facts');
    await expect(facts.innerText()).resolves.toMatch(/spent\s+\$\d/);
    await expect(facts.innerText()).resolves.toMatch(/continues\s+run talk, compacted at seq \d+/);

    // The run it continues, by its link: compacted into this one, linked back.
    await facts.locator('a', { hasText: 'talk' }).click();
    await page.waitForURL(/\/runs\/talk\?/);
    await page.locator('dl.facts a', { hasText: into }).waitFor();
    await expect(page.locator('dl.facts').innerText()).resolves.toMatch(new RegExp(`compacted\\s+at seq \\d+, into run ${into}`));
    expect(errors).toEqual([]);
    await context.close();
  });
});
