import { CommanderError } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readEnvironment } from '../../src/cli/environment.js';
import { debugWanted, reportError } from '../../src/cli/errors.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { LogbookError } from '../../src/index.js';
import { runCli } from '../helpers/cli.js';
import { loadedSources, loadProbe } from '../helpers/load-probe.js';
import { HOSTILE, UNSAFE_CHARS } from '../helpers/runs.js';
import { tempDir } from '../helpers/tmp.js';

function report(err: unknown, verbose = false): { code: number; text: string } {
  let text = '';
  const code = reportError(err, { verbose, write: (t) => (text += t) });
  return { code, text };
}

describe('reportError', () => {
  it('prints a LogbookError as one line and exits 1 (2 for a usage error)', () => {
    expect(report(new LogbookError('not_found', 'no run x'))).toEqual({ code: EXIT.error, text: 'logbook: no run x\n' });
    expect(report(new LogbookError('usage', '--force only applies to --resume'))).toEqual({ code: EXIT.usage, text: 'logbook: --force only applies to --resume\n' });
  });

  it('keeps a multi-line or hostile message to one safe line', () => {
    expect(report(new LogbookError('corrupt', 'bad\nline \u001b]0;x\u0007end')).text).toBe('logbook: bad line end\n');
  });

  it('prints an unexpected error as one line, and its stack only when verbose', () => {
    const quiet = report(new TypeError('cannot read x of undefined'));
    expect(quiet).toEqual({ code: EXIT.error, text: 'logbook: unexpected error: cannot read x of undefined (LOGBOOK_DEBUG=1 shows where)\n' });
    const loud = report(new TypeError('boom'), true);
    expect(loud.text).toMatch(/^logbook: unexpected error: boom\nTypeError: boom\n\s+at /);
    expect(report('a string').text).toBe('logbook: unexpected error: a string (LOGBOOK_DEBUG=1 shows where)\n');
  });

  it('sanitizes the stack trace too: it starts with the message', () => {
    for (const err of [new LogbookError('unavailable', `api said ${HOSTILE}`), new TypeError(`odd ${HOSTILE}`)]) {
      const { text } = report(err, true);
      expect(text).toMatch(/\n\s+at /);
      expect(text).not.toMatch(UNSAFE_CHARS);
    }
  });

  it('maps commander errors: usage 2, help and version 0', () => {
    expect(report(new CommanderError(1, 'commander.unknownOption', "error: unknown option '--x'"))).toEqual({
      code: EXIT.usage,
      text: "logbook: unknown option '--x' (see --help)\n",
    });
    expect(report(new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)'))).toEqual({ code: EXIT.ok, text: '' });
    expect(report(new CommanderError(0, 'commander.version', '0.1.0'))).toEqual({ code: EXIT.ok, text: '' });
  });

  it('wants the stack for --verbose before --, or LOGBOOK_DEBUG=1', () => {
    expect(debugWanted(['session', 'ls', '--verbose'], readEnvironment({}).debug)).toBe(true);
    expect(debugWanted(['run', '--', '--verbose'], readEnvironment({}).debug)).toBe(false);
    expect(debugWanted([], readEnvironment({ LOGBOOK_DEBUG: '1' }).debug)).toBe(true);
    expect(debugWanted([], readEnvironment({}).debug)).toBe(false);
  });
});

describe('the binary', () => {
  const cwd = tempDir();

  it('exits 2 with one line for a usage error', async () => {
    for (const [args, line] of [
      [['nope'], "logbook: unknown command 'nope' (see --help)"],
      [['session', 'ls', '--nope'], "logbook: unknown option '--nope' (see --help)"],
      [['session', 'show'], "logbook: missing required argument 'id' (see --help)"],
      [['session', 'show', 'a', 'b'], 'logbook: too many arguments for \'show\'. Expected 1 argument but got 2. (see --help)'],
    ] as const) {
      const r = await runCli([...args], { cwd });
      expect(r.code, args.join(' ')).toBe(EXIT.usage);
      expect(r.stderr).toBe(`${line}\n`);
      expect(r.stdout).toBe('');
    }
  });

  it('prints help and the version with exit 0', async () => {
    const help = await runCli(['--help'], { cwd });
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: logbook/);
    expect(help.stdout).toMatch(/\bsession\b/);
    expect(help.stdout).toMatch(
      /Exit codes:\n  0 +done\n  1 +an error.*\n  2 +a usage error.*\n  3 +a run stopped before a call that needs an approval.*\n  4 +a run stopped at its token budget.*\n  5 +a run stopped at max_iterations.*\n  6 +the model refused to answer.*\n  7 +a run stopped at a spend cap.*\n  8 +a run completed on a final answer cut short at max_tokens.*\n  9 +a rewind \(or --undo, --redo\) refused before it changed a file.*\n  130 +a run was suspended.*\n +or, for a command that only reads \(session watch, session search\): stopped by Ctrl-C/,
    );
    const version = await runCli(['--version'], { cwd });
    expect(version).toMatchObject({ code: 0, stdout: '0.1.0\n' });
  });

  it('prints the help asked for with the help command and exits 0, as --help does', async () => {
    for (const [args, usage] of [
      [['help', 'run'], 'Usage: logbook run'],
      [['session', 'help', 'ls'], 'Usage: logbook session ls'],
      [['help'], 'Usage: logbook'],
      [['help', 'session'], 'Usage: logbook session'],
    ] as const) {
      const r = await runCli([...args], { cwd });
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout, args.join(' ')).toContain(usage);
      expect(r.stderr, args.join(' ')).toBe('');
      const flag = await runCli([...args.filter((a) => a !== 'help'), '--help'], { cwd });
      expect(r.stdout, args.join(' ')).toBe(flag.stdout);
    }
    // Help for a command that does not exist is still a usage error.
    const unknown = await runCli(['help', 'nope'], { cwd });
    expect(unknown.code).toBe(EXIT.usage);
    expect(unknown.stdout).toBe('');
  });

  it('shows help as a usage error when no command is given', async () => {
    const r = await runCli([], { cwd });
    expect(r.code).toBe(EXIT.usage);
    expect(r.stderr).toMatch(/Usage: logbook/);
  });

  it('does not load Ink or React for plain commands', async () => {
    const log = join(tempDir(), 'loaded.txt');
    const state = tempDir();
    const r = await runCli(['session', 'show', 'nope', '--transcript', '--state-dir', state], {
      cwd,
      env: loadProbe(log),
    });
    expect(r.code).toBe(1);
    const loaded = loadedSources(log);
    expect(loaded).toMatch(/node_modules\/commander\//); // the probe sees what loads
    expect(loaded).toMatch(/src\/cli\/session\/index\.ts/);
    expect(loaded).not.toMatch(/node_modules\/(ink|react|yoga-layout)\//);
    expect(loaded).not.toMatch(/src\/cli\/viewer\//);
  });

  it('answers --version before loading any module of logbook, and lists an empty store without the agent, the renderers, the SDKs or the table layout', async () => {
    const probe = loadProbe;
    const versionLog = join(tempDir(), 'loaded.txt');
    const version = await runCli(['-V'], { cwd, env: probe(versionLog) });
    expect(version).toMatchObject({ code: 0, stdout: '0.1.0\n' });
    expect(existsSync(versionLog) ? readFileSync(versionLog, 'utf8') : '').not.toMatch(/\/dist\//);

    const lsLog = join(tempDir(), 'loaded.txt');
    const ls = await runCli(['session', 'ls', '--state-dir', tempDir()], { cwd, env: probe(lsLog) });
    expect(ls.code).toBe(0);
    expect(ls.stderr).toMatch(/^no runs in the file store/);
    const loaded = loadedSources(lsLog);
    expect(loaded).toMatch(/src\/cli\/session\/ls\.ts/); // the probe sees what loads
    expect(loaded).not.toMatch(/node_modules\/(@anthropic-ai|openai|@modelcontextprotocol|@nats-io|ajv|yaml|ink|react|string-width)\//);
    expect(loaded).not.toMatch(/src\/(agent\/(runner|run|providers)|render\/(index|transcript|dump|export\/index)|cli\/(output|run|completion-tree))\.ts|src\/agent\/providers\//);
    // Node's builtins are taken as modules of the bundle, not imported (whose ES module facade reads every export: node:fs's streams), and node:crypto not at all.
    expect(loaded).toMatch(/^builtin:fs$/m); // the probe sees the builtins
    expect(loaded).not.toMatch(/^builtin:crypto$/m);
    expect(loaded.split('\n').filter((l) => l.startsWith('node:'))).toEqual([]);
  });
});
