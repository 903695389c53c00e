/**
 * The errors of the layers below the CLI say what is wrong, for a program as
 * much as for a person; the command adds what to type, keyed on the code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { advisedMessage, withAdvice } from '../../src/cli/advice.js';
import { LogbookError } from '../../src/core/index.js';

const SRC = resolve(import.meta.dirname, '../../src');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));
}

describe('advice', () => {
  it('is added once, after the message, keeping the code, the details and the cause', () => {
    const refused = new LogbookError('interrupted_call', 'run r stopped while call c1 (deploy) may have been running', { details: { runId: 'r', callId: 'c1' } });
    const advised = withAdvice(refused) as LogbookError;
    expect(advised.message).toBe(`${refused.message}; resume with --rerun c1 to run it again, or --skip c1 to tell the model it was not re-run`);
    expect(advised).toMatchObject({ code: 'interrupted_call', details: { runId: 'r', callId: 'c1' }, cause: refused });
    expect(withAdvice(advised)).toBe(advised);
  });

  it('names a command only for an error about a run or call it can name', () => {
    expect(advisedMessage(new LogbookError('not_found', 'no run x', { details: { runId: 'x' } }))).toBe('no run x; `logbook session ls` lists the runs');
    expect(advisedMessage(new LogbookError('not_found', 'no runs here'))).toBe('no runs here');
    expect(advisedMessage(new LogbookError('exists', 'run x already exists', { details: { runId: 'x' } }))).toBe(
      'run x already exists; pick another id or remove it with `logbook session rm x`',
    );
    expect(advisedMessage(new LogbookError('exists', 'run x already exists in the other store; session cp never overwrites a run'))).toMatch(/overwrites a run$/);
  });

  it('says how to still read a damaged journal, for a line that does not decode or a record that does not fold alike', () => {
    const advice = '; the journal is damaged; `logbook session export x --format jsonl` still prints its lines as they are stored';
    for (const message of ['/runs/x.jsonl line 2 is corrupt: not a JSON record: Unexpected end', '/runs/x.jsonl line 4 is corrupt: seq 4: a second meta record']) {
      expect(advisedMessage(new LogbookError('corrupt', message, { details: { runId: 'x' } }))).toBe(`${message}${advice}`);
    }
    expect(advisedMessage(new LogbookError('corrupt', 'not valid JSON: Unexpected end'))).toBe('not valid JSON: Unexpected end');
  });

  it('follows how the command was asked to go on', () => {
    const mismatch = new LogbookError('interactivity_mismatch', 'run x is a one-shot run', { details: { runId: 'x' } });
    expect((withAdvice(mismatch, { chat: true }) as Error).message).toBe('run x is a one-shot run; resume it without --chat');
    const chat = new LogbookError('interactivity_mismatch', 'run x is an interactive chat', { details: { runId: 'x' } });
    expect((withAdvice(chat) as Error).message).toBe('run x is an interactive chat; resume it with --chat');
  });

  it('leaves what is not a LogbookError alone', () => {
    const err = new Error('boom');
    expect(withAdvice(err)).toBe(err);
    expect(advisedMessage('text')).toBe('text');
  });
});

describe('the errors below the CLI', () => {
  it('name no logbook command or flag', () => {
    const flags = /`logbook |\blogbook (run|session)\b|--(chat|force|rerun|skip|config|resume|regex|at|turn|state-dir|name|approve|deny)\b/;
    const found: string[] = [];
    for (const file of files(SRC)) {
      const layer = relative(SRC, file).split('/')[0]!;
      if (layer === 'cli' || layer === 'render' || layer === 'index.ts') continue; // the command's own words, and what it renders
      const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      for (const literal of code.matchAll(/'[^'\n]*'|`[^`]*`/g)) if (flags.test(literal[0].slice(1, -1))) found.push(`${relative(SRC, file)}: ${literal[0]}`); // the text, not its quotes
    }
    expect(found).toEqual([]);
  });
});
