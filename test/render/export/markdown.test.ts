/**
 * The Markdown export, read back by a real CommonMark parser (markdown-it): what
 * a reader's renderer makes of it is what is checked, not only the text.
 */
import fc from 'fast-check';
import MarkdownIt, { type Token } from 'markdown-it';
import { describe, expect, it } from 'vitest';
import { codeSpan, exportMarkdown, fence, inlineText } from '../../../src/render/export/index.js';
import { callLine, sanitize, sanitizeLine } from '../../../src/render/index.js';
import { HOSTILE, HOSTILE_MARKUP, UNSAFE_CHARS, call, commandResult, followUp, hostileRun, result, runOf, text, thinking, turn } from '../../helpers/runs.js';

const md = new MarkdownIt({ html: true });

const suspendedMidBatch = () =>
  runOf(
    [
      turn(0, [thinking('plan it'), text('Listing *first*.'), call('l', 'sh', { cmd: 'ls' })], [100, 20]),
      commandResult('l', ['sh', '-c', 'ls'], 0, 'a.txt\nb.txt\n'),
      followUp('now count them'),
      turn(1, [text('Counting.'), call('w', 'sh', { cmd: 'wc -l a.txt' }), call('x', 'sh', { cmd: 'false' })], [1200, 30]),
      commandResult('w', ['sh', '-c', 'wc -l a.txt'], 2, ''),
      { terminal: { reason: 'suspended' } },
    ],
    'Look around',
    'demo',
  );

/** The text of every heading, in order. */
const headings = (tokens: Token[]): string[] =>
  tokens.flatMap((t, i) => (t.type === 'heading_open' ? [`${t.tag} ${tokens[i + 1]!.content}`] : []));
const fences = (tokens: Token[]): string[] => tokens.filter((t) => t.type === 'fence').map((t) => t.content);

describe('exportMarkdown', () => {
  it('opens with the run id, status, model and counters, then the conversation in order', () => {
    expect(exportMarkdown(suspendedMidBatch(), { times: { created: '2026-01-02T03:04:05Z' } })).toBe(
      [
        '# Run `demo`',
        '',
        '- Status: `suspended`',
        '- Model: `test-model`',
        '- Provider: `script`',
        '- Interactive: no',
        '- Created: `2026-01-02T03:04:05Z`',
        '- Model calls: 2',
        '- Tool calls: 2 (0 remote)',
        '- Tokens: 1,300 in, 50 out',
        '- Cache: 0 read, 0 created',
        '',
        '## Prompt',
        '',
        '> Look around',
        '',
        '## Assistant',
        '',
        '**Thinking**',
        '',
        '```text',
        'plan it',
        '```',
        '',
        '> Listing *first*.',
        '',
        '**Tool call** `l`',
        '',
        '```text',
        '\u00bb sh {"cmd":"ls"}',
        '```',
        '',
        '**Result** `l` \u00b7 `["sh","-c","ls"]`',
        '',
        '```text',
        'a.txt',
        'b.txt',
        '```',
        '',
        '## User',
        '',
        '> now count them',
        '',
        '---',
        '',
        '**In-flight turn: 1 of 2 tool calls answered; a resume completes it first**',
        '',
        '## Assistant (in flight)',
        '',
        '> Counting.',
        '',
        '**Tool call** `w`',
        '',
        '```text',
        '\u00bb sh {"cmd":"wc -l a.txt"}',
        '```',
        '',
        '**Error result** `w` \u00b7 `["sh","-c","wc -l a.txt"]` \u00b7 *(exit 2) (no output)*',
        '',
        '**Tool call** `x`',
        '',
        '```text',
        '\u00bb sh {"cmd":"false"}',
        '```',
        '',
        '*(no result yet)*',
        '',
        '---',
        '',
        '**Run `suspended`**',
        '',
      ].join('\n'),
    );
  });

  it('says a turn in flight is running while a writer holds the run (its listed status), and that a resume completes it otherwise', () => {
    const held = runOf([turn(0, [text('Counting.'), call('w', 'sh', { cmd: 'wc -l a.txt' }), call('x', 'sh', { cmd: 'false' })]), commandResult('w', ['sh', '-c', 'wc -l a.txt'], 2, '')]);
    expect(exportMarkdown(held, { status: 'running' })).toContain('**In-flight turn: 1 of 2 tool calls answered; running**');
    expect(exportMarkdown(held, { status: 'interrupted' })).toContain('**In-flight turn: 1 of 2 tool calls answered; a resume completes it first**');
  });

  it('puts each result right after its call, whatever order the results were recorded in', () => {
    const state = runOf([
      turn(0, [call('a', 'fetch', { url: 'one' }), call('b', 'fetch', { url: 'two' })]),
      result('b', 'second body'),
      result('a', 'first body'),
      turn(1, [text('both fetched')]),
      { terminal: { reason: 'completed' } },
    ]);
    const tokens = md.parse(exportMarkdown(state), {});
    expect(fences(tokens)).toEqual(['\u00bb fetch {"url":"one"}\n', 'first body\n', '\u00bb fetch {"url":"two"}\n', 'second body\n']);
  });

  it('marks thinking, redacted thinking and provider blocks', () => {
    const state = runOf([
      turn(0, [thinking('weighing it'), { thinking: { signature: 'c2ln' } }, { provider: { kind: 'server_tool_use', raw: { text: '{}' } } } as never, text('ok')]),
    ]);
    const out = exportMarkdown(state);
    expect(out).toContain('**Thinking**\n\n```text\nweighing it\n```\n\n**Thinking** *(redacted)*\n\n**Provider block** `server_tool_use`\n\n> ok\n');
  });

  it('fences hold whatever a result, a thinking block or an end message contains', () => {
    const nasty = [
      '```\nbreak out\n```',
      '````',
      'x ``````` y\n```````',
      '~~~\ntilde\n~~~',
      '    ```indented',
      '`',
      '',
      '# not a heading\n<script>x</script>\n<!-- open',
    ];
    const payloads = nasty.flatMap((out, i) => [turn(i, [thinking(out || 'thought'), call(`c${i}`, 'sh', { i })]), result(`c${i}`, out)]);
    const state = runOf([...payloads, { terminal: { reason: 'error', message: nasty[0]! } }]);
    const tokens = md.parse(exportMarkdown(state), {});
    const expected = nasty.flatMap((out, i) => [`${out || 'thought'}\n`, `\u00bb sh {"i":${i}}\n`, ...(out === '' ? [] : [`${out}\n`])]);
    expect(fences(tokens)).toEqual([...expected, `${nasty[0]}\n`]);
    // Nothing escaped a fence: every heading is one the export wrote, and no HTML block came through.
    expect(headings(tokens)).toEqual(['h1 Run `r1`', 'h2 Prompt', 'h2 Assistant']);
    expect(tokens.filter((t) => t.type === 'html_block')).toEqual([]);
  });

  it('keeps prose as Markdown, inside a quote that an unclosed fence or HTML block cannot outlast', () => {
    const state = runOf([
      turn(0, [text('Here is **bold** and code:\n\n```sh\nls -l\n')]),
      followUp('<!-- a comment that never closes'),
      turn(1, [text('<script>\nnot closed either')]),
      followUp('last'),
    ]);
    const tokens = md.parse(exportMarkdown(state), {});
    expect(headings(tokens)).toEqual(['h1 Run `r1`', 'h2 Prompt', 'h2 Assistant', 'h2 User', 'h2 Assistant', 'h2 User']);
    expect(md.render(exportMarkdown(state))).toContain('<strong>bold</strong>');
    expect(fences(tokens)).toEqual(['ls -l\n']);
  });

  it('lets no control character through and keeps a hostile journal’s markup inside fences, code and quotes', () => {
    const hostile = `${HOSTILE} ${HOSTILE_MARKUP}`;
    const out = exportMarkdown(runOf(hostileRun(hostile), `prompt ${hostile}`));
    expect(out).not.toMatch(UNSAFE_CHARS);
    for (const w of ['prompt A', 'think A', 'say A', 'out A', 'user A', 'failed A', 'hidden', 'esrever']) expect(out).toContain(w);

    const tokens = md.parse(out, {});
    // Raw HTML (left as written in prose) appears only inside quote blocks.
    let depth = 0;
    const outside: string[] = [];
    for (const t of tokens) {
      if (t.type === 'blockquote_open') depth++;
      if (t.type === 'blockquote_close') depth--;
      const html = t.type === 'html_block' || (t.children ?? []).some((c) => c.type === 'html_inline');
      if (html && depth === 0) outside.push(t.content);
    }
    expect(outside).toEqual([]);
    // Thinking, the call, the result and the end message come back whole from their fences.
    const shown = sanitize(hostile);
    expect(fences(tokens)).toEqual([
      `think ${shown}\n`,
      `${callLine(sanitizeLine(`sh${hostile}`), JSON.stringify({ cmd: hostile }))}\n`,
      `out ${shown}\n`,
      '\u00bb sh {"cmd":"x"}\n',
      `failed ${shown}\n`,
    ]);
  });
});

/** Every image token a renderer would fetch, nested ones too. */
const images = (tokens: Token[]): string[] =>
  tokens.flatMap((t) => (t.type === 'image' ? [String(t.attrGet('src') ?? '')] : t.children !== null ? images(t.children) : []));

describe('images in quoted text', () => {
  const imagesIn = [
    '![x](http://host/?secret) and ![y][ref] and ![ref] and ![ref][]',
    '',
    '[ref]: http://host/ref.png',
    '',
    '[![badge](http://host/badge.svg)](http://host/) \\![escaped backslash](http://host/b.png)',
    '',
    '- ![in a list](http://host/l.png)',
    '> ![in a quote](http://host/q.png)',
  ].join('\n');

  it('are made links, wherever they are, in every part that quotes prose', () => {
    const out = exportMarkdown(runOf([turn(0, [text(imagesIn)]), followUp(imagesIn)], imagesIn));
    const tokens = md.parse(out, {});
    expect(images(tokens)).toEqual([]);
    const links = tokens.flatMap((t) => (t.children ?? []).filter((c) => c.type === 'link_open').map((c) => c.attrGet('href')));
    expect(links.filter((h) => h === 'http://host/?secret')).toHaveLength(3); // the prompt, the answer, the follow-up
    expect(md.render(out)).toContain('!<a href="http://host/?secret">x</a>');
  });

  it('leave text without images as written, and code holding `![` as written', () => {
    const code = 'Say `![x](y)` like this:\n\n```md\n![x](http://host/i.png)\n```';
    const out = exportMarkdown(runOf([turn(0, [text(code)])]));
    expect(out).toContain('> Say `![x](y)` like this:\n>\n> ```md\n> ![x](http://host/i.png)\n> ```');
    const mixed = exportMarkdown(runOf([turn(0, [text(`![real](http://host/r.png)\n\n${code}`)])]));
    expect(images(md.parse(mixed, {}))).toEqual([]);
    expect(mixed).toContain('> ```md\n> ![x](http://host/i.png)\n> ```');
  });
});

/** Characters that mean something to Markdown, and controls that must never pass. */
const mdChars = fc.constantFrom('`', '``', '```', ' ', 'a', '\n', '*', '_', '<', '>', '&', '\\', '~', '[', ']', '!', '|', '#', '-', '\t', '(', ')', '\u001b', '\r', '\u202e', 'é');
const mdText = fc.string({ unit: mdChars, maxLength: 40 });
const escapeLikeMarkdownIt = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

describe('Markdown escaping', () => {
  it('a fence holds any text exactly', () => {
    fc.assert(
      fc.property(mdText, (s) => {
        const tokens = md.parse(fence(s), {});
        const safe = sanitize(s);
        expect(tokens.map((t) => t.type)).toEqual(['fence']);
        expect(tokens[0]!.content).toBe(safe === '' || safe.endsWith('\n') ? safe : `${safe}\n`);
      }),
    );
  });

  it('a code span shows any line exactly', () => {
    fc.assert(
      fc.property(mdText, (s) => {
        const line = sanitizeLine(s);
        fc.pre(line.trim() !== '');
        expect(md.renderInline(codeSpan(s))).toBe(`<code>${escapeLikeMarkdownIt(line)}</code>`);
      }),
    );
  });

  it('inline text shows any line literally', () => {
    fc.assert(
      fc.property(mdText, (s) => {
        const line = sanitizeLine(s);
        fc.pre(line === line.trim()); // a paragraph's own edges are trimmed; inline text never stands at one here
        expect(md.renderInline(inlineText(s))).toBe(escapeLikeMarkdownIt(line));
      }),
    );
  });
});
