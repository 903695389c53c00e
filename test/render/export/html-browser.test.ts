/**
 * The HTML export of a hostile journal, opened in a real headless Chromium from
 * a file, the way a person opens it: what is checked is the page the browser
 * made (its DOM, its computed styles, what it ran and requested), not the HTML
 * text. Script is enabled in the browser, so markup that got through would run.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { exportHtml } from '../../../src/render/export/index.js';
import { callLine, sanitize, sanitizeLine } from '../../../src/render/index.js';
import { useChromium } from '../../helpers/chromium.js';
import { HOSTILE, HOSTILE_MARKUP, UNSAFE_CHARS, hostileRun, runOf, text, turn } from '../../helpers/runs.js';
import { tempDir } from '../../helpers/tmp.js';

const { enabled, browser } = useChromium();

const hostile = `${HOSTILE} ${HOSTILE_MARKUP}`;
const hostilePage = (): string => exportHtml(runOf(hostileRun(hostile), `prompt ${hostile}`), { times: { created: `2026 ${HOSTILE_MARKUP}` } });

interface Opened {
  page: Page;
  /** What the page's script set, if any ran. */
  pwned: () => Promise<unknown>;
  dialogs: string[];
  /** Every URL the page asked for but its own, whether or not the request was allowed out. */
  requests: string[];
  /** Those that got past the page's own policy to the network (where they are refused). */
  sent: string[];
  /** Why each failed request failed. */
  failures: string[];
  /** The tag names of every element in the DOM. */
  tags: () => Promise<string[]>;
}

/**
 * One tab for the file, reused: each open() loads a new file into it (a new
 * document, with nothing kept from the one before), which is much cheaper
 * than a new renderer per test. Requests off the machine are recorded and refused.
 */
let tab: Promise<{ page: Page; listen: (url: string) => Omit<Opened, 'page' | 'pwned' | 'tags'> }> | undefined;

function sharedTab(): NonNullable<typeof tab> {
  tab ??= (async () => {
    const context = await browser().newContext({ javaScriptEnabled: true });
    const page = await context.newPage();
    page.setDefaultTimeout(10_000); // a page that hides what a test waits for fails in bounded time
    let current = { url: '', dialogs: [] as string[], requests: [] as string[], sent: [] as string[], failures: [] as string[] };
    await context.route(/^(?!file:)/, (route) => {
      current.sent.push(route.request().url());
      return route.abort();
    });
    page.on('dialog', (d) => {
      current.dialogs.push(d.message());
      void d.dismiss();
    });
    page.on('request', (r) => {
      if (r.url() !== current.url) current.requests.push(r.url());
    });
    page.on('requestfailed', (r) => current.failures.push(`${r.url()} ${r.failure()?.errorText ?? ''}`));
    const listen = (url: string) => {
      current = { url, dialogs: [], requests: [], sent: [], failures: [] };
      return current;
    };
    return { page, listen };
  })();
  return tab;
}

/** Writes `html` to a file and opens it in the shared tab, in the given color scheme. */
async function open(html: string, colorScheme: 'light' | 'dark' = 'light'): Promise<Opened> {
  const file = join(tempDir(), 'run.html');
  writeFileSync(file, html);
  const url = pathToFileURL(file).href;
  const { page, listen } = await sharedTab();
  const seen = listen(url);
  await page.emulateMedia({ colorScheme });
  await page.goto(url, { waitUntil: 'load' });
  return {
    page,
    ...seen,
    pwned: () => page.evaluate<unknown>('window.__pwned'),
    tags: () => page.evaluate<string[]>("[...document.querySelectorAll('*')].map((e) => e.tagName.toLowerCase())"),
  };
}

/** WCAG contrast ratio of two computed `rgb(...)` colors. */
function contrast(a: string, b: string): number {
  const luminance = (css: string): number => {
    const [r, g, bl] = css.match(/\d+(\.\d+)?/g)!.slice(0, 3).map(Number).map((v) => {
      const c = v / 255;
      return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
    }) as [number, number, number];
    return 0.2126 * r + 0.7152 * g + 0.0722 * bl;
  };
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

const PAGE_TAGS = ['body', 'br', 'code', 'dd', 'details', 'div', 'dl', 'dt', 'h1', 'h2', 'head', 'header', 'html', 'main', 'meta', 'p', 'pre', 'section', 'span', 'style', 'summary', 'title'];

describe.runIf(enabled)('the HTML export in Chromium', () => {
  it('the probe sees script run and requests made on a page that does not escape (so it can fail)', async () => {
    const naive = await open(`<!DOCTYPE html><title>naive</title><p>${HOSTILE_MARKUP}</p>`);
    expect(await naive.pwned()).toBeDefined();
    expect(naive.dialogs).toEqual(['1']);
    expect(naive.sent).toEqual(['http://127.0.0.1:9/x.css']);
    expect(await naive.tags()).toEqual(expect.arrayContaining(['script', 'img', 'a', 'link']));
  });

  it('runs no script, makes no request and builds no element from a hostile journal', async () => {
    const opened = await open(hostilePage());
    expect(await opened.pwned()).toBeUndefined();
    expect(opened.dialogs).toEqual([]);
    expect(opened.requests).toEqual([]);
    expect([...new Set(await opened.tags())].sort()).toEqual(PAGE_TAGS);
    expect(await opened.page.locator('style').count()).toBe(1);
  });

  it("renders the model's Markdown with no request and no link but http(s) and mailto: an image is a link to it", async () => {
    const answer = [
      '# Heading **bold**',
      '',
      '![tracker](http://127.0.0.1:9/pixel.png?secret) ![ref][r] [ok](https://example.com/a) [mail](mailto:a@b.c)',
      '[js](javascript:window.__pwned=1) [data](data:text/html,x) <img src="http://127.0.0.1:9/raw.png"> &lt;script&gt;',
      '',
      '[r]: http://127.0.0.1:9/ref.png',
      '',
      '```html',
      `<script>window.__pwned="fence"</script>`,
      '```',
    ].join('\n');
    const opened = await open(exportHtml(runOf([turn(0, [text(answer)])])));
    expect(await opened.pwned()).toBeUndefined();
    expect(opened.requests).toEqual([]);
    const tags = new Set(await opened.tags());
    for (const tag of ['img', 'script', 'iframe', 'link', 'object']) expect(tags.has(tag)).toBe(false);
    const hrefs = await opened.page.locator('a').evaluateAll((as) => as.map((a) => (a as unknown as { href: string }).href));
    expect(hrefs).toEqual(['http://127.0.0.1:9/pixel.png?secret', 'http://127.0.0.1:9/ref.png', 'https://example.com/a', 'mailto:a@b.c']);
    expect(await opened.page.locator('.md h1 strong').innerText()).toBe('bold');
    const shown = await opened.page.locator('.md').innerText();
    expect(shown).toContain('[image: tracker]');
    expect(shown).toContain('[js](javascript:window.__pwned=1) [data](data:text/html,x) <img src="http://127.0.0.1:9/raw.png"> &lt;script&gt;');
    expect(shown).toContain('<script>window.__pwned="fence"</script>');
  });

  it('shows every hostile string literally, controls as visible symbols and bidi controls dropped', async () => {
    const { page } = await open(hostilePage());
    // Open every collapsed part the way a person would, then read what the page shows.
    for (const summary of await page.locator('details > summary').all()) await summary.click();
    const shown = await page.locator('body').innerText();
    const expected = sanitize(hostile);
    for (const where of ['prompt', 'think', 'say', 'out', 'user', 'failed']) expect(shown).toContain(`${where} ${expected}`);
    expect(shown).toContain(callLine(sanitizeLine(`sh${hostile}`), JSON.stringify({ cmd: hostile }))); // the call, its arguments as JSON
    expect(shown).toContain(`2026 ${HOSTILE_MARKUP}`);
    expect(shown).toContain('write back\u2408space bell\u2407');
    expect(shown).not.toMatch(UNSAFE_CHARS);
    expect(await page.title()).toBe('logbook run r1');
    expect(await page.locator('h1').innerText()).toBe('Run r1');
  });

  it('keeps tool output and thinking collapsed until their summary is clicked', async () => {
    const { page } = await open(hostilePage());
    const output = page.locator('details.result pre').last();
    const thinking = page.locator('details.thinking .text');
    expect(await output.isVisible()).toBe(false);
    expect(await thinking.isVisible()).toBe(false);
    await page.locator('details.result > summary').click();
    await page.locator('details.thinking > summary').click();
    expect(await output.isVisible()).toBe(true);
    expect(await thinking.isVisible()).toBe(true);
    expect(await output.innerText()).toContain(`out ${sanitize(hostile)}`);
  });

  it('is readable in light and in dark: its own colors, with enough contrast', async () => {
    const backgrounds: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      const { page } = await open(hostilePage(), scheme);
      /** A color pair as the browser computed it (this runs in the page). */
      const of = (selector: string) =>
        page
          .locator(selector)
          .first()
          .evaluate((e) => {
            const view = globalThis as unknown as { getComputedStyle(e: unknown): { color: string; backgroundColor: string } };
            const s = view.getComputedStyle(e);
            return { color: s.color, background: s.backgroundColor };
          });
      const colors = { body: await of('body'), muted: await of('dt'), user: await of('.user .text'), bad: await of('.marker.bad') };
      backgrounds.push(colors.body.background);
      expect(contrast(colors.body.color, colors.body.background)).toBeGreaterThanOrEqual(7);
      expect(contrast(colors.muted.color, colors.body.background)).toBeGreaterThanOrEqual(4.5);
      expect(contrast(colors.user.color, colors.user.background)).toBeGreaterThanOrEqual(7);
      expect(contrast(colors.bad.color, colors.body.background)).toBeGreaterThanOrEqual(4.5);
    }
    // The page's stylesheet applied (the policy let it in by its hash) and follows the scheme.
    expect(backgrounds).toEqual(['rgb(255, 255, 255)', 'rgb(13, 17, 23)']);
  });

  it('has a policy that would stop script even if markup were spliced into the page', async () => {
    const spliced = hostilePage().replace('<main>', `<main>${HOSTILE_MARKUP}`);
    const withPolicy = await open(spliced);
    expect(await withPolicy.tags()).toEqual(expect.arrayContaining(['script', 'img'])); // the markup did get in
    expect(await withPolicy.pwned()).toBeUndefined();
    expect(withPolicy.dialogs).toEqual([]);
    expect(withPolicy.sent).toEqual([]);
    expect(withPolicy.requests.length).toBeGreaterThan(0);
    expect(withPolicy.failures.sort()).toEqual(withPolicy.requests.map((url) => `${url} csp`).sort());
    // And it is the policy that stops it: the same page without it runs the script.
    const withoutPolicy = await open(spliced.replace(/<meta http-equiv="Content-Security-Policy"[^>]*>/, ''));
    expect(await withoutPolicy.pwned()).toBeDefined();
  });
});
