/** The HTML export as text: escaping, the policy, the structure. What a browser makes of it is html-browser.test.ts. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { escapeHtml, exportHtml } from '../../../src/render/export/index.js';
import { HOSTILE, HOSTILE_MARKUP, UNSAFE_CHARS, call, commandResult, hostileRun, runOf, text, turn } from '../../helpers/runs.js';

const hostile = `${HOSTILE} ${HOSTILE_MARKUP}`;

describe('exportHtml', () => {
  it('escapes the five characters that can end text in HTML', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;');
  });

  it('lets no journal string become a tag, and no control character through', () => {
    const page = exportHtml(runOf(hostileRun(hostile), `prompt ${hostile}`));
    expect(page).not.toMatch(UNSAFE_CHARS);
    // The only tags are the page's own and the model's Markdown's: no script, image, link, anchor, frame or second style.
    const tags = new Set([...page.matchAll(/<([a-zA-Z][\w-]*)/g)].map((m) => m[1]!.toLowerCase()));
    expect([...tags].sort()).toEqual(
      ['body', 'br', 'code', 'dd', 'details', 'div', 'dl', 'dt', 'h1', 'h2', 'head', 'header', 'html', 'main', 'meta', 'p', 'pre', 'section', 'span', 'style', 'summary', 'title'].sort(),
    );
    // Every '<' in the page starts one of its own tags, and those carry no attribute but these.
    const attributes = new Set([...page.matchAll(/<[^>]*>/g)].flatMap((m) => [...m[0].replace(/"[^"]*"/g, '""').matchAll(/\s([\w-]+)=/g)].map((a) => a[1]!)));
    expect([...attributes].sort()).toEqual(['charset', 'class', 'content', 'http-equiv', 'lang', 'name']);
    expect(page).toContain(escapeHtml(HOSTILE_MARKUP));
  });

  it("renders the model's Markdown: raw HTML and entities as text, only http(s) and mailto links, images as links", () => {
    const answer = [
      '## Plan',
      '',
      'Use **bold** and `code` <b>raw</b> &amp; [docs](https://example.com/d "t") [mail](mailto:a@b.c) [js](javascript:alert(1)) [rel](docs/x.md).',
      '',
      '- one',
      '- two',
      '',
      '```sh',
      'ls   -l',
      '```',
      '',
      '![chart](http://127.0.0.1:9/chart.png) ![data](data:image/png;base64,AAAA)',
    ].join('\n');
    const page = exportHtml(runOf([turn(0, [text(answer)])]));
    const body = /<div class="item md">([\s\S]*?)<\/div>/.exec(page)![1]!;
    expect(body).toContain('<h2>Plan</h2>');
    expect(body).toContain('<strong>bold</strong> and <code>code</code> &lt;b&gt;raw&lt;/b&gt; &amp;amp;');
    expect(body).toContain('<a href="https://example.com/d" title="t" rel="noopener noreferrer nofollow">docs</a>');
    expect(body).toContain('<a href="mailto:a@b.c" rel="noopener noreferrer nofollow">mail</a>');
    expect(body).toContain('[js](javascript:alert(1)) [rel](docs/x.md)');
    expect(body).toContain('<ul>\n<li>one</li>\n<li>two</li>\n</ul>');
    expect(body).toContain('<p class="lang">sh</p><pre><code class="language-sh">ls   -l\n</code></pre>');
    expect(body).toContain('<a href="http://127.0.0.1:9/chart.png" rel="noopener noreferrer nofollow">[image: chart]</a>');
    expect(body).toContain('![data](data:image/png;base64,AAAA)');
    expect(body).not.toMatch(/<img|src=/);
  });

  it('carries a policy that allows its own stylesheet by hash and nothing else', () => {
    const page = exportHtml(runOf([turn(0, [text('hi')])]));
    const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(page)?.[1];
    const style = /<style>([\s\S]*)<\/style>/.exec(page)![1]!;
    const hash = createHash('sha256').update(style).digest('base64');
    expect(policy).toBe(`default-src &#39;none&#39;; style-src &#39;sha256-${hash}&#39;; base-uri &#39;none&#39;; form-action &#39;none&#39;`);
    // The policy comes before anything it governs.
    expect(page.indexOf('Content-Security-Policy')).toBeLessThan(page.indexOf('<style>'));
  });

  it('folds tool output and thinking into details, and shows an answered call with its result', () => {
    const page = exportHtml(
      runOf([turn(0, [{ thinking: { text: 'hmm', signature: 'c2ln' } }, call('l', 'sh', { cmd: 'ls' })]), commandResult('l', ['sh', '-c', 'ls'], 0, 'a.txt\nb.txt\n')]),
    );
    expect(page).toContain('<details class="item thinking"><summary class="label">Thinking</summary><div class="text">hmm</div></details>');
    expect(page).toMatch(/<pre>\u00bb sh \{&quot;cmd&quot;:&quot;ls&quot;\}<\/pre><\/div>\n<details class="item result"><summary>.*\u00b7 2 lines of output:.*<\/summary>.*<pre>a\.txt\nb\.txt\n<\/pre><\/details>/s);
  });
});
