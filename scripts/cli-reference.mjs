#!/usr/bin/env node
// docs/reference/cli.md from the command's own definitions (the built dist/): each
// command's --help exactly as commander renders it, so the reference cannot drift
// from what `logbook ... --help` says. `--check` exits 1 when the file differs
// (test/docs/cli-reference.test.ts runs it); without it the file is rewritten.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(root, 'docs', 'reference', 'cli.md');
const WIDTH = 100;

const { buildProgram, readEnvironment } = await import(join(root, 'dist', 'cli', 'main.js'));
// A fixed environment: help text names variables, never their values, but keep it so.
const program = buildProgram(readEnvironment({ HOME: '/home/user' }));

/** The command's help as `--help` prints it, at a fixed width. */
function helpOf(command) {
  let out = '';
  command.configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (out += s), getOutHelpWidth: () => WIDTH, getErrHelpWidth: () => WIDTH });
  command.outputHelp();
  return out.replace(/[ \t]+$/gm, '').trimEnd();
}

/** The command and every visible subcommand, depth first, with their full names. */
function walk(command, prefix) {
  const name = prefix === '' ? command.name() : `${prefix} ${command.name()}`;
  const visible = command.commands.filter((c) => !c._hidden);
  return [{ name, command }, ...visible.flatMap((c) => walk(c, name))];
}

const entries = walk(program, '');
const slug = (name) => name.replace(/ /g, '-');
const text = [
  '# Command reference',
  '',
  'Every command and flag, as its `--help` prints it. Generated from the command\'s',
  'own definitions by `npm run docs:cli` (scripts/cli-reference.mjs); a test fails',
  'when this page and the command differ.',
  '',
  ...entries.map(({ name, command }) => `- [\`${name}\`](#${slug(name)})${command.description() ? `: ${command.description()}` : ''}`),
  '',
  ...entries.flatMap(({ name, command }) => [`## ${name}`, '', '```text', helpOf(command), '```', '']),
].join('\n');

if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {}
  if (current !== text) {
    process.stderr.write('docs/reference/cli.md differs from the command\'s --help; run `npm run docs:cli`\n');
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
}
