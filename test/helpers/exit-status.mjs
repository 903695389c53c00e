#!/usr/bin/env node
/**
 * Runs a program on the terminal it is given and writes how it ended to a file:
 * its exit status, or the signal that killed it. tmux 3.3 can mark a pane dead
 * before it has reaped the program, and then never shows its status.
 * Usage: exit-status.mjs [--forward-hup] FILE PROGRAM [ARG...]
 *
 * This is the terminal's session leader, so a hang-up's SIGHUP comes here.
 * With --forward-hup it is passed on to the program, as a shell passes it on to
 * its jobs; without, the program learns of the hang-up only from the terminal.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';

const args = process.argv.slice(2);
const forwardHup = args[0] === '--forward-hup';
const [file, program, ...rest] = forwardHup ? args.slice(1) : args;
// Keys such as Ctrl-C signal the terminal's whole foreground group: they are the program's to handle.
for (const signal of ['SIGINT', 'SIGQUIT']) process.on(signal, () => {});
const child = spawn(program, rest, { stdio: 'inherit' });
process.on('SIGHUP', () => {
  if (forwardHup) child.kill('SIGHUP');
});
child.on('exit', (code, signal) => {
  writeFileSync(file, signal ?? String(code));
  process.exit(code ?? 1);
});
