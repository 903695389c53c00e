/**
 * The Markdown export as a reader sees it: rendered by a sanitizing renderer
 * (markdown-it with raw HTML off) into a page a real headless Chromium opens.
 * What is counted is what reaches a local server: a model's image must not.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import MarkdownIt from 'markdown-it';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportMarkdown } from '../../../src/render/export/index.js';
import { useChromium } from '../../helpers/chromium.js';
import { followUp, runOf, text, turn } from '../../helpers/runs.js';
import { tempDir } from '../../helpers/tmp.js';

const { enabled, browser } = useChromium();
const sanitizing = new MarkdownIt({ html: false });

let server: Server;
let origin = '';
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'image/gif' }).end(Buffer.from('R0lGODlhAQABAAAAACw=', 'base64'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

/** The requests a page made of `markdown` sends to the server, once it has loaded. */
async function requestsOf(markdown: string): Promise<string[]> {
  const file = join(tempDir(), 'export.html');
  writeFileSync(file, `<!DOCTYPE html><meta charset="utf-8"><title>export</title>${sanitizing.render(markdown)}`);
  const context = await browser().newContext();
  try {
    const page = await context.newPage();
    hits.length = 0;
    await page.goto(pathToFileURL(file).href, { waitUntil: 'networkidle' });
    return [...hits];
  } finally {
    await context.close();
  }
}

describe.runIf(enabled)('the Markdown export through a sanitizing renderer in Chromium', () => {
  const answer = () =>
    [`![x](${origin}/inline?secret)`, `![ref][r] and [![badge](${origin}/badge)](${origin}/)`, '', `[r]: ${origin}/ref`].join('\n');

  it('the probe sees a model image fetched when it is rendered as written (so it can fail)', async () => {
    expect((await requestsOf(answer())).sort()).toEqual(['/badge', '/inline?secret', '/ref']);
  });

  it('fetches no image a model wrote, in its answer, the prompt or a follow-up', async () => {
    const exported = exportMarkdown(runOf([turn(0, [text(answer())]), followUp(answer())], answer()));
    expect(await requestsOf(exported)).toEqual([]);
    expect(sanitizing.render(exported)).toContain(`!<a href="${origin}/inline?secret">x</a>`);
  });
});
