/**
 * The documentation's relative links lead somewhere: every link from the README
 * or a page under docs/ to a file of the repository names one that exists, and
 * every `#anchor` names a heading of the page it points into.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function pages(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? pages(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );
}

/** The page's text without its fenced code blocks, where a `#` line is not a heading. */
function unfenced(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** The page's text without its fenced code blocks and code spans, where a bracket is not a link. */
function prose(markdown: string): string {
  return unfenced(markdown).replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lowercased, punctuation dropped (but for an escaped `\_`, which is text), spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/\\_/g, '\u0000')
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\u0000 -]/gu, '')
    .replace(/\u0000/g, '_')
    .replace(/ /g, '-');
}

function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of unfenced(readFileSync(file, 'utf8')).matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  // An HTML anchor is one too (the generated API reference puts one before each heading).
  for (const m of prose(readFileSync(file, 'utf8')).matchAll(/<a (?:id|name)="([^"]+)"><\/a>/g)) out.add(m[1]!);
  return out;
}

const PAGES = [join(ROOT, 'README.md'), ...pages(join(ROOT, 'docs'))];

describe('the documentation', () => {
  it('has pages to check', () => {
    expect(PAGES.length).toBeGreaterThan(5);
  });

  it.each(PAGES.map((p) => [relative(ROOT, p), p]))('%s links only to files and headings that exist', (_name, page) => {
    const broken: string[] = [];
    for (const m of prose(readFileSync(page, 'utf8')).matchAll(/\]\(([^)\s]+)(?: "[^"]*")?\)/g)) {
      const link = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto:
      const [path, anchor] = link.split('#') as [string, string | undefined];
      const target = path === '' ? page : resolve(dirname(page), path);
      if (!existsSync(target)) {
        broken.push(`${link}: no such file`);
        continue;
      }
      if (anchor !== undefined && statSync(target).isFile() && target.endsWith('.md') && !anchors(target).has(anchor)) {
        broken.push(`${link}: no heading #${anchor} in ${relative(ROOT, target)}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
