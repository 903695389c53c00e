/**
 * `logbook session export` through the real binary (built dist/), against a
 * real file store: the format chosen, stdout or a file replaced atomically, and
 * every failure as one line.
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { HOSTILE, HOSTILE_MARKUP, UNSAFE_CHARS, hostileRun, writeRun } from '../helpers/runs.js';
import { tempDir } from '../helpers/tmp.js';

const cwd = tempDir(); // no agent.yaml here
const cli = (args: string[]): Promise<CliResult> => runCli(args, { cwd });

const state = tempDir();
const ready = writeRun(state, 'hostile', hostileRun(`${HOSTILE} ${HOSTILE_MARKUP}`), `prompt ${HOSTILE}`);
const exportOf = async (...args: string[]): Promise<CliResult> => {
  await ready;
  return cli(['session', 'export', 'hostile', '--state-dir', state, ...args]);
};

/** One line on stderr, no stack trace. */
function oneLine(r: CliResult): string {
  expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return r.stderr.trim();
}

describe('session export', () => {
  it('prints the Markdown transcript on stdout, with no control character in it', async () => {
    const r = await exportOf();
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.startsWith('# Run `hostile`\n\n- Status: `error`\n')).toBe(true);
    expect(r.stdout).toContain('## Prompt\n\n> prompt A');
    expect(r.stdout).not.toMatch(UNSAFE_CHARS);
  });

  it('prints one HTML page with --format html', async () => {
    const r = await exportOf('--format', 'html');
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith('<!DOCTYPE html>\n')).toBe(true);
    expect(r.stdout).toContain('<title>logbook run hostile</title>');
    expect(r.stdout).not.toContain('<script');
    expect(r.stdout).not.toMatch(UNSAFE_CHARS);
  });

  it('prints the journal itself with --format jsonl, byte for byte, and takes a unique start of the id', async () => {
    await ready;
    const r = await cli(['session', 'export', 'hos', '--state-dir', state, '--format', 'jsonl']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(readFileSync(join(state, 'runs', 'hostile.jsonl'), 'utf8'));
  });

  it('writes -o FILE in the format its extension names, readable by its owner alone, leaving nothing else', async () => {
    const dir = tempDir();
    const file = join(dir, 'run.html');
    const r = await exportOf('-o', file);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`wrote run hostile as an HTML page to ${file}\n`);
    expect(readFileSync(file, 'utf8')).toBe((await exportOf('--format', 'html')).stdout);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['run.html']);

    const lines = join(dir, 'copy.jsonl');
    await exportOf('-o', lines);
    expect(readFileSync(lines, 'utf8')).toBe(readFileSync(join(state, 'runs', 'hostile.jsonl'), 'utf8'));
    const md = join(dir, 'notes.txt');
    await exportOf('--output', md);
    expect(readFileSync(md, 'utf8')).toBe((await exportOf()).stdout);
    const forced = join(dir, 'forced.html');
    await exportOf('-o', forced, '--format', 'md');
    expect(readFileSync(forced, 'utf8').startsWith('# Run')).toBe(true);
  });

  it('replaces an existing file whole, keeping its mode, and writes through a symlink to its target', async () => {
    const dir = tempDir();
    const file = join(dir, 'run.md');
    writeFileSync(file, 'an older export that is longer than nothing\n'.repeat(1000));
    chmodSync(file, 0o644);
    expect((await exportOf('-o', file)).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe((await exportOf()).stdout);
    expect(statSync(file).mode & 0o777).toBe(0o644);

    const link = join(dir, 'latest.md');
    symlinkSync('run.md', link);
    expect((await exportOf('-o', link, '--format', 'html')).code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readFileSync(file, 'utf8').startsWith('<!DOCTYPE html>')).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(['latest.md', 'run.md']);
  });

  it('fails in one line, and writes nothing, when the run or the file cannot be had', async () => {
    const dir = tempDir();
    const missing = await cli(['session', 'export', 'nope', '--state-dir', state, '-o', join(dir, 'x.md')]);
    expect(missing.code).toBe(1);
    expect(oneLine(missing)).toBe(`logbook: no run nope in the file store in ${join(state, 'runs')}; \`logbook session ls\` lists the runs`);
    expect(readdirSync(dir)).toEqual([]);

    const noDir = await exportOf('-o', join(dir, 'absent', 'x.md'));
    expect(noDir.code).toBe(1);
    expect(oneLine(noDir)).toBe(`logbook: cannot write ${join(dir, 'absent', 'x.md')}: no such directory; name a file in a writable directory with -o`);

    mkdirSync(join(dir, 'sub'));
    const isDir = await exportOf('-o', join(dir, 'sub'));
    expect(isDir.code).toBe(2);
    expect(oneLine(isDir)).toBe(`logbook: cannot write ${join(dir, 'sub')}: not a regular file; name a file with -o`);
    expect(readdirSync(dir)).toEqual(['sub']);
  });

  it('offers md, html, jsonl and otlp only', async () => {
    const r = await exportOf('--format', 'pdf');
    expect(r.code).toBe(2);
    expect(oneLine(r)).toMatch(/^logbook: option '--format <format>' argument 'pdf' is invalid\. Allowed choices are md, html, jsonl, otlp\. \(see --help\)$/);
  });

  it('lists every flag in --help', async () => {
    const r = await cli(['session', 'export', '--help']);
    expect(r.code).toBe(0);
    for (const flag of ['--format <format>', '-o, --output <file>', '--otlp-endpoint <url>', '--config <file>', '--state-dir <dir>', '--verbose']) expect(r.stdout).toContain(flag);
  });
});
