/** A model's Markdown on a terminal: rendered whole, and as it streams. */
import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { MarkdownStream, plainTheme, renderMarkdown, type MarkdownTheme } from '../../src/render/markdown.js';
import { UNSAFE_CHARS } from '../helpers/runs.js';

/** Marks every styled span with a visible tag, so a test can see what was styled how. */
const tags: MarkdownTheme = {
  strong: (t) => `<b>${t}</b>`,
  em: (t) => `<i>${t}</i>`,
  strike: (t) => `<s>${t}</s>`,
  code: (t) => `<c>${t}</c>`,
  heading: (t, level) => `<h${level}>${t}</h${level}>`,
  link: (t) => `<a>${t}</a>`,
  faint: (t) => `<f>${t}</f>`,
};

const plain = (text: string, width = 60): string => renderMarkdown(text, { width, theme: plainTheme });
const tagged = (text: string, width = 60): string => renderMarkdown(text, { width, theme: tags });

describe('renderMarkdown', () => {
  it('styles headings and emphasis, without their markers', () => {
    expect(tagged('# Title\n\nSome **bold**, *em*, ~~gone~~ and `code`.\n\n### Small')).toBe(
      '<h1>Title</h1>\n\nSome <b>bold</b>, <i>em</i>, <s>gone</s> and <c>code</c>.\n\n<h3>Small</h3>',
    );
  });

  it('lays out lists with their markers, numbers from the start given, nesting and loose items', () => {
    expect(plain('- one\n- two **b**\n  - nested\n- [ ] task')).toBe('\u2022 one\n\u2022 two b\n  \u2022 nested\n\u2022 [ ] task');
    expect(plain('3. three\n4. four')).toBe('3. three\n4. four');
    expect(plain('- a\n\n- b')).toBe('\u2022 a\n\n\u2022 b');
    expect(tagged('1. **x**')).toBe('1. <b>x</b>');
  });

  it('wraps a paragraph at the width, counting columns, and indents what continues a list item or a quote', () => {
    const out = plain('- ' + 'word '.repeat(12) + '\n\n> ' + '語'.repeat(20), 20);
    const lines = out.split('\n');
    for (const line of lines) expect(stringWidth(line)).toBeLessThanOrEqual(20);
    expect(lines[1]).toMatch(/^ {2}word/);
    expect(lines.filter((l) => l.startsWith('\u2502 '))).toHaveLength(3);
  });

  it('shows a code block with its language and its lines as written: not wrapped, tabs expanded', () => {
    const long = 'x'.repeat(50);
    expect(tagged('```ts\nconst a =\t1;\n' + long + '\n```', 20)).toBe(`<f>ts</f>\n  <c>const a =       1;</c>\n  <c>${long}</c>`);
    expect(plain('    indented code')).toBe('  indented code');
  });

  it('shows a link as its text and its URL, an autolink and an image as links', () => {
    expect(tagged('see [the docs](https://example.com/d) or <https://example.com/a> and ![a chart](http://h/c.png)', 200)).toBe(
      'see <a>the docs</a> <f>(https://example.com/d)</f> or <a>https://example.com/a</a> and <a>[image: a chart]</a> <f>(http://h/c.png)</f>',
    );
  });

  it('draws a table with aligned columns and a rule under its header', () => {
    expect(plain('| name | n |\n|---|--:|\n| a | 1 |\n| bb | 22 |')).toBe('name \u2502  n\n\u2500\u2500\u2500\u2500\u2500\u253c\u2500\u2500\u2500\na    \u2502  1\nbb   \u2502 22');
  });

  it('shows raw HTML and entities as written, links other than http(s) and mailto as text, and lets no control through', () => {
    expect(plain('<script>alert(1)</script> and <b>x</b> &amp; &#x202e;')).toBe('<script>alert(1)</script> and <b>x</b> &amp; &#x202e;');
    expect(plain('[run](javascript:alert(1)) [f](file:///etc/passwd) [m](mailto:a@b.c)', 100)).toBe('[run](javascript:alert(1)) [f](file:///etc/passwd) m (mailto:a@b.c)');
    // An autolink's text is shown percent-decoded: a bidi control hidden in it must not come out.
    const out = plain('<http://h/%E2%80%AEcod.exe> [x](http://h/%E2%80%AE)');
    expect(out).not.toMatch(UNSAFE_CHARS);
    expect(out).toContain('http://h/cod.exe');
  });

  it('keeps a line break where the model broke the line', () => {
    expect(plain('first line\nsecond line')).toBe('first line\nsecond line');
  });
});

/** Markdown made of the blocks a model writes, with the characters that change how they parse. */
const markdownDoc = fc
  .array(
    fc.constantFrom(
      '# Head\n',
      'Head\n===\n',
      'para **bold *both* still** end\n',
      'a line\ncontinued\n',
      '- item\n',
      '  - nested\n',
      '1. first\n',
      '2) second\n',
      '> quoted\n',
      'lazy\n',
      '```py\nx = 1\n',
      '```\n',
      '    indented\n',
      '| a | b |\n|---|---|\n| 1 | 2 |\n',
      '---\n',
      '[link](http://x) `c`\n',
      '\n',
      '\n\n',
      '***\n',
      '<div>\n',
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

describe('MarkdownStream', () => {
  it('prints, block by block as they finish, exactly the whole text rendered, however the text is cut', () => {
    fc.assert(
      fc.property(markdownDoc, fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 40 }), (text, sizes) => {
        const stream = new MarkdownStream({ width: 30, theme: tags });
        let printed = '';
        let at = 0;
        for (let i = 0; at < text.length; i++) {
          const size = sizes[i % sizes.length]!;
          stream.append(text.slice(at, at + size));
          at += size;
          printed += stream.update().finished;
        }
        printed += stream.end();
        const whole = renderMarkdown(text, { width: 30, theme: tags });
        expect(printed).toBe(whole === '' ? '' : `${whole}\n`);
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps a list open while the line after it may still become one of its items', () => {
    const stream = new MarkdownStream({ width: 30, theme: plainTheme });
    stream.append('2) one\n\n2');
    expect(stream.update().finished).toBe('');
    stream.append(') two\n\nafter\n');
    expect(stream.update().finished).toBe('2. one\n\n3. two\n');
  });

  it('shows the block still being written in place, after a blank line when blocks came before it', () => {
    const stream = new MarkdownStream({ width: 40, theme: plainTheme });
    stream.append('# Title\n\nA para');
    expect(stream.update()).toEqual({ finished: 'Title\n', current: ['', 'A para'] });
    stream.append('graph.\n\n- one');
    expect(stream.update()).toEqual({ finished: '\nA paragraph.\n', current: ['', '\u2022 one'] });
    stream.append('\n- two');
    expect(stream.update()).toEqual({ finished: '', current: ['', '\u2022 one', '\u2022 two'] });
    expect(stream.end()).toBe('\n\u2022 one\n\u2022 two\n');
    expect(stream.source).toBe('# Title\n\nA paragraph.\n\n- one\n- two');
  });

  it('applies a link reference defined in a finished block to the blocks after it', () => {
    const stream = new MarkdownStream({ width: 60, theme: plainTheme });
    stream.append('[d]: https://example.com/d\n\nsee [the docs][d]\n\nend');
    const { finished } = stream.update();
    expect(finished).toBe('see the docs (https://example.com/d)\n');
  });
});
