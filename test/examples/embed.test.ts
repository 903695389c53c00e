/**
 * Every program in examples/embed runs as its header says, `node FILE` from its
 * directory, importing 'logbook' (the checkout's own package, through its
 * exports map: the built dist/), offline, and says what it shows. Each works in
 * a temp directory it makes under TMPDIR and leaves nothing there. A new
 * program with no expectation here fails this test, so none goes unchecked.
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/tmp.js';

const DIR = resolve(__dirname, '../../examples/embed');
const run = promisify(execFile);

/** What each program prints, line by line (a run id generated from the clock as RUN). */
const EXPECTED: Record<string, RegExp> = {
  'one-shot.mjs': new RegExp(
    [
      'tool square\\(\\{"n":7\\}\\) -> 49',
      'tool square\\(\\{"n":12\\}\\) -> 144',
      'run \\d{8}-\\d{6}-[a-z0-9]+: completed',
      '7 squared is 49, and 12 squared is 144\\.',
      '6 records journaled, \\d+ tokens',
    ].join('\n'),
  ),
  'resume.mjs': new RegExp(
    [
      'writer: step 1 runs',
      'writer: step 2 runs',
      "killed; the journal holds 3 records \\(meta, the model's turn, step 1's result\\)",
      'resumer: step 2 runs',
      'resumer: run job completed: Both steps are done\\.',
    ].join('\n'),
  ),
  'conversation.mjs': new RegExp(
    [
      'model: Hello! What shall we plan\\?',
      'model: A picnic on Saturday, then\\.',
      'model: Bring a blanket and some lemonade\\.',
      'chat weekend: suspended, 6 messages',
      'model: If it rains, the museum is a good plan B\\.',
      'run weekend: suspended, 8 messages',
    ].join('\n'),
  ),
  'fork.mjs': new RegExp(
    [
      'forked plan-a up to seq 2 as plan-b',
      'plan \\(completed\\):',
      '  user: How do we make the build faster\\?',
      '  assistant: Option A: rewrite the parser\\. Option B: cache its output\\.',
      'plan-a \\(completed\\):',
      '  user: How do we make the build faster\\?',
      '  assistant: Option A: rewrite the parser\\. Option B: cache its output\\.',
      '  user: Take option A\\.',
      '  assistant: Going with A: the parser is rewritten\\.',
      'plan-b \\(completed\\):',
      '  user: How do we make the build faster\\?',
      '  assistant: Option A: rewrite the parser\\. Option B: cache its output\\.',
      '  user: Take option B\\.',
      '  assistant: Going with B: the parser output is cached\\.',
    ].join('\n'),
  ),
  'approval.mjs': new RegExp(
    [
      'suspended, awaiting approval of send_email to team@example\\.com',
      'asked: send_email to team@example\\.com \\(side effects: true\\)',
      'asked: send_email to everyone@example\\.com \\(side effects: true\\)',
      'completed: The team has the news; everyone else does not\\.',
      'emails sent: team@example\\.com',
    ].join('\n'),
  ),
  'watch.mjs': new RegExp(
    [
      // The watch may start before or after the writer has made the run.
      '(waiting for run watched to start\\n)?seq 1 meta',
      'seq 2 assistant Looking at the clock\\. \\[calls clock\\]',
      'seq 3 tool_result',
      'seq 4 assistant It is the start of the epoch\\.',
      'seq 5 terminal completed',
      'folded as it came: completed, 2 model calls, 1 tool call, 4 messages',
      'the writer exited 0; the watch ended with the run',
    ].join('\n'),
  ),
};

const programs = readdirSync(DIR).filter((f) => f.endsWith('.mjs'));

describe('examples/embed', () => {
  it('has an expectation here for every program, and every program the brief names', () => {
    expect(programs.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(programs)('%s runs offline with node, says what it shows, and leaves nothing behind', async (file) => {
    const tmp = tempDir('logbook-embed-');
    const out = await run(process.execPath, [file], { cwd: DIR, env: { PATH: process.env.PATH, TMPDIR: tmp }, timeout: 60_000 });
    expect(out.stderr).toBe('');
    expect(out.stdout).toMatch(new RegExp(`^${EXPECTED[file]!.source}\n$`));
    expect(readdirSync(tmp)).toEqual([]);
  }, 90_000);
});
