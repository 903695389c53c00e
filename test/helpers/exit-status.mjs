#!/usr/bin/env node
/**
 * Runs a program on the terminal it is given and writes how it ended to a file:
 * its exit status, or the signal that killed it. tmux 3.3 can mark a pane dead
 * before it has reaped the program, and then never shows its status.
 * Usage: exit-status.mjs FILE PROGRAM [ARG...]
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const [file, program, ...args] = process.argv.slice(2);
// Keys such as Ctrl-C signal the terminal's whole foreground group: they are the program's to handle.
for (const signal of ['SIGINT', 'SIGQUIT', 'SIGHUP']) process.on(signal, () => {});
const child = spawn(program, args, { stdio: 'inherit' });
child.on('exit', (code, signal) => {
  writeFileSync(file, signal ?? String(code));
  process.exit(code ?? 1);
});
