/**
 * `logbook ui` in a real headless Chromium: the binary serves the page, the
 * page is driven as a person would. The runs page and a run's page render
 * (screenshots attached to the tests, and kept in test-output/ui/); a record a
 * writer in another process appends appears on the page within a second; an
 * approval and a denial given on the page continue the run in the ui process,
 * and the model receives the result (or the reason); a request without the
 * token is refused; the page asks nothing of any other origin; a hostile
 * journal shows as the literal text it is.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileStore, RawJson } from '../../src/index.js';
import { computeFingerprint } from '../../src/core/index.js';
import { useChromium } from '../helpers/chromium.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { useFakeAnthropic } from '../helpers/fake-anthropic.js';
import { tempDir } from '../helpers/tmp.js';

const { enabled, browser } = useChromium();
const dir = tempDir('logbook-ui-');
const stateDir = join(dir, 'state');
const runsDir = join(stateDir, 'runs');
const SHOTS = resolve(import.meta.dirname, '../../test-output/ui');
const WRITER = resolve(import.meta.dirname, '../helpers/journal-writer.mjs');
const anthropic = useFakeAnthropic();

const config = join(dir, 'agent.yaml');
writeFileSync(
  config,
  `provider: anthropic
model: claude-test
max_tokens: 1024
tools:
  - name: deploy
    description: Deploys a service
    input_schema: { type: object, properties: { service: { type: string } }, required: [service] }
    command: [echo, deployed, "{{service}}"]
    confirm: true
    side_effects: true
`,
);
const env = () => ({ ANTHROPIC_BASE_URL: anthropic.origin, ANTHROPIC_API_KEY: 'test-key', LOGBOOK_PROVIDER_MAX_RETRIES: '0' });

interface Ui {
  child: ChildProcess;
  url: string;
  origin: string;
  token: string;
  stop(): Promise<number | null>;
}

/** Starts `logbook ui` and reads the address it prints. */
async function startUi(): Promise<Ui> {
  const child = spawnCli(['ui', '--config', config, '--state-dir', stateDir], { cwd: dir, env: env() });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const line = await new Promise<string>((res, rej) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', res);
    child.once('exit', () => rej(new Error(`logbook ui exited: ${stderr}`)));
  });
  const url = new URL(line);
  return {
    child,
    url: line,
    origin: url.origin,
    token: url.searchParams.get('token')!,
    stop: () =>
      new Promise((res) => {
        child.once('exit', (code) => res(code));
        child.kill('SIGINT');
      }),
  };
}

let ui: Ui;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  if (enabled) ui = await startUi();
});
afterAll(async () => {
  if (ui !== undefined) expect(await ui.stop()).toBe(130);
});

/** A fresh context whose every request is recorded; any to another origin is refused (the tests run offline). */
async function openContext(): Promise<{ context: BrowserContext; page: Page; requests: string[]; errors: string[] }> {
  const context = await browser().newContext();
  const requests: string[] = [];
  const errors: string[] = [];
  context.on('request', (r) => requests.push(r.url()));
  await context.route((url) => url.origin !== ui.origin, (route) => route.abort());
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  return { context, page, requests, errors };
}

const runUrl = (id: string): string => `${ui.origin}/runs/${id}?token=${ui.token}`;

async function screenshot(page: Page, name: string, annotate: (message: string, attachment: { path: string; contentType: string }) => Promise<unknown>): Promise<void> {
  const path = join(SHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await annotate(`screenshot ${name}`, { path, contentType: 'image/png' });
}

/** Runs the agent until it stops before the deploy call for an approval (exit 3). */
async function awaitingRun(id: string, service: string): Promise<void> {
  anthropic.reset();
  anthropic.reply({
    message: { content: [{ type: 'text', text: `Deploying ${service}.` }, { type: 'tool_use', id: `toolu_${service}`, name: 'deploy', input: { service } }], usage: { input_tokens: 30, output_tokens: 9 } },
  });
  const r = await runCli(['run', '--config', config, '--state-dir', stateDir, '--name', id, `deploy ${service}`], { cwd: dir, env: env() });
  expect(r.code).toBe(3);
}

describe.runIf(enabled)('logbook ui in Chromium', () => {
  it('renders the runs page and a run\'s page, asking nothing of any other origin', async ({ annotate }) => {
    await awaitingRun('shown', 'web');
    const { context, page, requests, errors } = await openContext();
    await page.goto(ui.url);
    await page.locator('tr[data-run="shown"]').waitFor();
    await expect(page.locator('tr[data-run="shown"] .status').textContent()).resolves.toBe('suspended');
    await expect(page.locator('tr[data-run="shown"] td').first().textContent()).resolves.toBe('shown · here'); // started in the ui's directory
    // Its tokens, read after the list is shown, come with the next listing.
    await page.locator('tr[data-run="shown"] td.num', { hasText: '30 in · 9 out' }).waitFor();
    await screenshot(page, 'runs', annotate);
    await page.locator('tr[data-run="shown"] a').click();
    await page.locator('#approval').waitFor();
    expect(page.url()).toBe(runUrl('shown'));
    await expect(page.locator('#timeline .label').first().textContent()).resolves.toBe('model call 1');
    await expect(page.locator('#approval').textContent()).resolves.toContain('runs echo deployed web');
    await screenshot(page, 'run', annotate);
    expect(errors).toEqual([]);
    expect(requests.length).toBeGreaterThan(3);
    expect(requests.filter((u) => !u.startsWith(`${ui.origin}/`))).toEqual([]);
    for (const u of requests) expect(new URL(u).searchParams.get('token'), u).toBe(ui.token);
    await context.close();
  });

  it('shows a record that a writer in another process appends within a second', async ({ annotate }) => {
    const writer = spawn(process.execPath, [WRITER, runsDir, 'followed'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: writer.stdout! })[Symbol.asyncIterator]();
    expect((await lines.next()).value).toBe('ready');
    const { context, page } = await openContext();
    await page.goto(runUrl('followed'));
    await page.locator('#transcript').waitFor();
    await expect(page.locator('.status').first().textContent()).resolves.toBe('running');
    const text = 'appended by another process';
    writer.stdin!.write(
      `append ${JSON.stringify({ assistant: { iteration: 0, message: { role: 'assistant', content: [{ text: { text } }, { tool_use: { id: 'toolu_x', name: 'slow', input: { $raw: '{}' } } }] }, stop_reason: 'tool_use', in_tokens: 5, out_tokens: 2 } })}\n`,
    );
    expect((await lines.next()).value).toBe('appended 2');
    // Durable in the other process: on the page within a second.
    await page.locator('#transcript', { hasText: text }).waitFor({ timeout: 1000 });
    await page.locator('#timeline .label', { hasText: 'slow (running)' }).waitFor({ timeout: 1000 });
    // Its writer holds it: the turn in flight is running, not waiting for a resume.
    await expect(page.locator('#transcript .marker').textContent()).resolves.toBe('In-flight turn: 0 of 1 tool calls answered; running');
    await screenshot(page, 'followed', annotate);
    writer.stdin!.end();
    await new Promise((res) => writer.once('exit', res));
    await context.close();
  });

  it('continues a run approved on the page in the ui process, the model receiving the tool\'s result', async ({ annotate }) => {
    await awaitingRun('approved', 'api');
    anthropic.reply({ message: { content: [{ type: 'text', text: 'The api is deployed.' }], usage: { input_tokens: 50, output_tokens: 6 } } });
    const { context, page } = await openContext();
    await page.goto(runUrl('approved'));
    await page.locator('#approve').click();
    await page.locator('.status', { hasText: 'completed' }).waitFor();
    await page.locator('#transcript', { hasText: 'The api is deployed.' }).waitFor();
    await page.locator('#continuation', { hasText: 'done, exit 0' }).waitFor();
    await expect(page.locator('#approval').count()).resolves.toBe(0);
    await screenshot(page, 'approved', annotate);
    // What the model received: the call's result, run by the tool.
    expect(anthropic.requests).toHaveLength(2);
    const last = (anthropic.requests[1]!.json as { messages: { content: { type: string; content: unknown }[] }[] }).messages.at(-1)!;
    expect(JSON.stringify(last.content)).toContain('deployed api');
    const shown = await runCli(['session', 'show', 'approved', '--state-dir', stateDir], { cwd: dir });
    expect(shown.stdout).toMatch(/^status\s+completed$/m);
    await context.close();
  });

  it('continues a run denied on the page with a reason, which the model reads', async () => {
    await awaitingRun('denied', 'db');
    anthropic.reply({ message: { content: [{ type: 'text', text: 'I will not deploy the db.' }], usage: { input_tokens: 50, output_tokens: 6 } } });
    const { context, page } = await openContext();
    await page.goto(runUrl('denied'));
    await page.locator('#reason').fill('not on Fridays');
    await page.locator('#deny').click();
    await page.locator('#transcript', { hasText: 'I will not deploy the db.' }).waitFor();
    const last = JSON.stringify((anthropic.requests[1]!.json as { messages: unknown[] }).messages.at(-1));
    expect(last).toContain('not on Fridays');
    expect(last).not.toContain('deployed db');
    await context.close();
  });

  it('refuses every request without the token, a wrong Host, and an answer without the token header', async () => {
    for (const path of ['/', '/runs/shown', '/assets/app.js', '/assets/app.css', '/api/runs', '/api/runs/shown', '/api/runs/events', '/api/runs/shown/events']) {
      const bare = await fetch(`${ui.origin}${path}`);
      expect(bare.status, path).toBe(401);
      expect(await bare.text()).not.toContain('shown');
      expect((await fetch(`${ui.origin}${path}?token=${ui.token.slice(1)}x`)).status, path).toBe(401);
    }
    const page = await fetch(`${ui.origin}/?token=${ui.token}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    const rebound = await new Promise<number>((res) => {
      // fetch will not send another Host; node:http will.
      void import('node:http').then(({ request }) => {
        const req = request(`${ui.origin}/api/runs?token=${ui.token}`, { headers: { host: `evil.example:${new URL(ui.origin).port}` } }, (r) => res(r.statusCode!));
        req.end();
      });
    });
    expect(rebound).toBe(421);
    const answer = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ callId: 'toolu_web', action: 'approve' }) };
    expect((await fetch(`${ui.origin}/api/runs/shown/answer?token=${ui.token}`, answer)).status).toBe(403);
    const wrongCall = await fetch(`${ui.origin}/api/runs/shown/answer`, { ...answer, headers: { ...answer.headers, 'x-logbook-token': ui.token }, body: JSON.stringify({ callId: 'toolu_nope', action: 'approve' }) });
    expect(wrongCall.status).toBe(409);
    expect(((await wrongCall.json()) as { error: string }).error).toBe('run shown has no call toolu_nope awaiting an approval: it awaits an approval of call toolu_web');
  });

  it('shows a hostile journal as the literal text it is: no markup, no script, no link, no bidi control', async ({ annotate }) => {
    const store = new FileStore(runsDir);
    const hostile = [
      '<script>window.__pwned = 1</script>',
      '<img src="http://evil.example/x.png" onerror="window.__pwned = 2">',
      '[click me](javascript:window.__pwned=3) ![tracker](http://evil.example/t.png)',
      'bidi: \u202Eevil\u202C and <b>bold</b> &amp; &lt;',
    ].join('\n');
    const fingerprint = computeFingerprint({ provider: 'script', model: '<i>model</i>', systemPrompt: '', tools: [], thinkingMode: 'off', maxTokens: 1, maxIterations: 1 });
    const j = await store.create('hostile', { version: 3, run_id: 'hostile', created: '2026-11-30T01:02:03Z', fingerprint, prompt: hostile });
    await j.append({
      seq: 2,
      assistant: {
        iteration: 0,
        message: { role: 'assistant', content: [{ text: { text: hostile } }, { tool_use: { id: '"><svg onload=alert(1)>', name: '<b>tool</b>', input: RawJson.fromText('{"x":"</pre><script>window.__pwned=4</script>"}') } }] },
        stop_reason: 'tool_use',
        in_tokens: 1,
        out_tokens: 1,
      },
    });
    await j.append({ seq: 3, tool_result: { tool_use_id: '"><svg onload=alert(1)>', result: { tool_use_id: '"><svg onload=alert(1)>', content: hostile, is_error: true } } });
    await j.append({ seq: 4, terminal: { reason: 'error', message: hostile } });
    await j.close();
    const { context, page, requests } = await openContext();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(d.message());
      void d.dismiss();
    });
    await page.goto(runUrl('hostile'));
    await page.locator('#transcript .marker').waitFor();
    for (const d of await page.locator('details').all()) await d.evaluate('(e) => { e.open = true; }');
    await screenshot(page, 'hostile', annotate);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(dialogs).toEqual([]);
    const tags = await page.evaluate<string[]>("[...document.body.querySelectorAll('script, img, svg, b, i, iframe, object')].map((e) => e.tagName)");
    expect(tags).toEqual([]);
    // The model's Markdown is rendered as the HTML export renders it: its one link is the image's, shown as a link, never loaded.
    expect(await page.evaluate<string[]>("[...document.querySelectorAll('a')].map((a) => a.getAttribute('href')).filter((h) => !h || !h.startsWith('/'))")).toEqual(['http://evil.example/t.png']);
    await expect(page.locator('#transcript .md a').textContent()).resolves.toBe('[image: tracker]');
    const text = (await page.locator('main').textContent())!;
    expect(text).toContain('<script>window.__pwned = 1</script>');
    expect(text).toContain('[click me](javascript:window.__pwned=3)');
    expect(text).toContain('<b>tool</b>');
    expect(text).toContain('bidi: evil and <b>bold</b> &amp; &lt;');
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/);
    expect(requests.filter((u) => !u.startsWith(`${ui.origin}/`))).toEqual([]);
    await context.close();
  });

  it("shows each turn's workspace changes as session diff finds them, escaped, a turn's diff fetched when asked for", async ({ annotate }) => {
    // A run of three tool turns in a workspace of its own: it writes files (one named with markup), edits one, deletes one.
    const ws = join(dir, 'ws');
    mkdirSync(ws);
    writeFileSync(join(ws, 'b.txt'), 'keep\n');
    const sh = (cmd: string) => ({ name: 'sh', input: { cmd } });
    writeFileSync(
      join(dir, 'ws-script.json'),
      JSON.stringify({
        turns: [
          { text: 'write', tool_calls: [sh("printf 'one\\ntwo\\n' > a.txt; printf '<img src=x onerror=window.__pwned=5>\\nok\\033]0;; rm -rf ~ ;\\007\\n' > '<script>window.__pwned=6<script>.txt'")] },
          { text: 'edit', tool_calls: [sh('sed -i s/two/TWO/ a.txt')] },
          { text: 'delete', tool_calls: [sh('rm b.txt')] },
          { text: 'done' },
        ],
      }),
    );
    const wsConfig = join(dir, 'ws-agent.yaml');
    writeFileSync(
      wsConfig,
      `provider: script
script: ws-script.json
tools:
  - name: sh
    description: run a command
    input_schema: { type: object, properties: { cmd: { type: string } }, required: [cmd] }
    command: [sh, -c, '{{cmd}}']
`,
    );
    const ran = await runCli(['run', '--config', wsConfig, '--state-dir', stateDir, '--name', 'edits', 'go'], { cwd: ws });
    expect(ran.code, ran.stderr).toBe(0);
    const cliDiff = JSON.parse((await runCli(['session', 'diff', 'edits', '--json', '--state-dir', stateDir], { cwd: ws })).stdout) as { changes: { files: { path: string }[] }[] };

    const { context, page, errors } = await openContext();
    await page.goto(runUrl('edits'));
    const changes = page.locator('#workspace .change');
    await changes.nth(2).waitFor();
    expect(await changes.count()).toBe(cliDiff.changes.length);
    expect(await changes.locator('.heading').allTextContents()).toEqual([
      'turn 1 (seq 2), by sh (toolu_0_0)',
      'turn 2 (seq 4), by sh (toolu_1_0)',
      'turn 3 (seq 6), by sh (toolu_2_0)',
    ]);
    expect(await changes.nth(0).locator('li').allTextContents()).toEqual(['added <script>window.__pwned=6<script>.txt +2 -0', 'added a.txt +2 -0']);
    expect(await changes.nth(1).locator('li').allTextContents()).toEqual(['changed a.txt +1 -1']);
    expect(await changes.nth(2).locator('li').allTextContents()).toEqual(['removed b.txt +0 -1']);
    // Contents only on demand: the first turn's diff is fetched when asked for, shown as the text it is.
    expect(await page.locator('#workspace pre.diff').count()).toBe(0);
    await changes.nth(0).locator('button.show-diff').click();
    const diff = changes.nth(0).locator('pre.diff');
    await diff.waitFor();
    expect(await diff.textContent()).toContain('+<img src=x onerror=window.__pwned=5>');
    await screenshot(page, 'workspace-changes', annotate);
    expect(await page.evaluate('window.__pwned')).toBeUndefined();
    expect(await page.evaluate<string[]>("[...document.body.querySelectorAll('script, img')].map((e) => e.tagName)")).toEqual([]);
    expect(errors).toEqual([]);
    // A long run's page is sent a window of its changes: those before a span on demand; a span it lacks is not found.
    const api = (path: string) => fetch(`${ui.origin}/api/runs/edits/${path}${path.includes('?') ? '&' : '?'}token=${ui.token}`);
    const earlier = (await (await api('changes?before=1')).json()) as { total: number; from: number; spans: { index: number }[] };
    expect(earlier).toMatchObject({ total: 3, from: 0 });
    expect(earlier.spans.map((x) => x.index)).toEqual([0]);
    expect((await api('changes/9')).status).toBe(404);
    // A diff is reviewed: an escape sequence in a line is shown, never removed with what it wraps.
    expect(((await (await api('changes/0')).json()) as { diff: string }).diff).toContain('+ok\u241b]0;; rm -rf ~ ;\u2407\n');
    // The head holds what it shows and nothing else (a left-out part once showed as the text "null").
    expect(await page.locator('h1').locator('xpath=..').textContent()).not.toMatch(/null$/);

    // A run whose workspace was not tracked says so where its changes would be, and why.
    writeFileSync(wsConfig, `${readFileSync(wsConfig, 'utf8')}workspace: { max_files: 1 }\n`);
    writeFileSync(join(dir, 'ws-script.json'), JSON.stringify({ turns: [{ text: 'look', tool_calls: [sh('true')] }, { text: 'done' }] }));
    const untracked = await runCli(['run', '--config', wsConfig, '--state-dir', stateDir, '--name', 'untracked', 'go'], { cwd: ws });
    expect(untracked.code, untracked.stderr).toBe(0);
    await page.goto(runUrl('untracked'));
    const missing = page.locator('#workspace .missing').first();
    await missing.waitFor();
    expect(await missing.textContent()).toMatch(/^No snapshot after seq 2 \(turn 1, tools\): the workspace .* is not tracked: it holds more than 1 file/);
    expect(errors).toEqual([]);
    await context.close();
  });
});
