/**
 * The command reference cannot drift from the command: docs/reference/cli.md is
 * what the command's own definitions render (scripts/cli-reference.mjs), and
 * every `logbook ... --flag` the README or a guide shows names a flag that
 * command has.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function pages(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? pages(join(dir, e.name)) : e.name.endsWith('.md') ? [join(dir, e.name)] : [],
  );
}

/** Every command line a page shows: a `logbook ...` code span, or a line of a code block. */
function commandLines(markdown: string): string[] {
  const lines: string[] = [];
  for (const m of markdown.matchAll(/^(```|~~~)[^\n]*\n([\s\S]*?)^\1/gm)) {
    for (const line of m[2]!.split('\n')) {
      const at = line.search(/(^|[\s($`"])logbook /);
      if (at >= 0) lines.push(line.slice(at).replace(/^[\s($`"]/, '').split(/\s+#\s|[|;&)]/)[0]!);
    }
  }
  for (const m of markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1/gm, '').matchAll(/`(logbook [^`]+)`/g)) lines.push(m[1]!);
  return lines;
}

/** The flags of `line` that its command does not have. */
function unknownFlags(program: Command, line: string): string[] {
  const words = line.replace(/'[^']*'|"[^"]*"/g, 'QUOTED').split(/\s+/).slice(1);
  const path: Command[] = [program];
  for (const w of words) {
    const sub = path[path.length - 1]!.commands.find((c) => c.name() === w || c.aliases().includes(w));
    if (sub === undefined) break;
    path.push(sub);
  }
  const known = new Set(path.flatMap((c) => c.options.flatMap((o) => [o.long, o.short].filter((f): f is string => f !== undefined))));
  for (const f of ['--help', '-h', '--version', '-V']) known.add(f);
  return words
    .filter((w) => /^--?[a-z]/i.test(w))
    .map((w) => w.replace(/=.*$/, '').replace(/[`.,:]+$/, ''))
    .filter((f) => !known.has(f) && !(f.startsWith('--no-') && known.has(`--${f.slice(5)}`)));
}

describe('the command reference', () => {
  it('is what the command definitions render (npm run docs:cli)', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'scripts/cli-reference.mjs'), '--check'], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('names every command the program has, and every flag of each', () => {
    const reference = readFileSync(join(ROOT, 'docs/reference/cli.md'), 'utf8');
    const help = execFileSync(process.execPath, [join(ROOT, 'bin/logbook'), 'run', '--help'], { encoding: 'utf8' });
    for (const flag of help.match(/--[a-z][a-z-]*/g) ?? []) expect(reference).toContain(flag);
    expect(reference).toContain('## logbook session ls');
  });

  it('sees a flag a command lacks, as the pages check needs', async () => {
    const { buildProgram, readEnvironment } = (await import(join(ROOT, 'dist/cli/main.js'))) as {
      buildProgram: (e: unknown) => Command;
      readEnvironment: (env: Record<string, string>) => unknown;
    };
    const program = buildProgram(readEnvironment({ HOME: '/home/user' }));
    expect(unknownFlags(program, 'logbook session ls --json --no-such')).toEqual(['--no-such']);
    expect(unknownFlags(program, 'logbook run --resume ID --approve CALL')).toEqual([]);
    expect(unknownFlags(program, "logbook session search --regex 'rm -rf?' --nope")).toEqual(['--nope']);
    const shown = [join(ROOT, 'README.md'), ...pages(join(ROOT, 'docs'))].flatMap((p) => commandLines(readFileSync(p, 'utf8')));
    expect(shown.length).toBeGreaterThan(30);
  });

  it.each([join(ROOT, 'README.md'), ...pages(join(ROOT, 'docs'))].map((p) => [relative(ROOT, p), p]))(
    '%s shows only flags the commands have',
    async (_name, page) => {
      const { buildProgram, readEnvironment } = (await import(join(ROOT, 'dist/cli/main.js'))) as {
        buildProgram: (e: unknown) => Command;
        readEnvironment: (env: Record<string, string>) => unknown;
      };
      const program = buildProgram(readEnvironment({ HOME: '/home/user' }));
      const wrong = commandLines(readFileSync(page, 'utf8')).flatMap((line) => unknownFlags(program, line).map((f) => `${f} in: ${line}`));
      expect(wrong).toEqual([]);
    },
  );
});
