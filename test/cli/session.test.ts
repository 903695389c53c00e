/**
 * `logbook session ...` through the real binary (built dist/), against real
 * file stores in temporary state directories.
 */
import { copyFileSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, runCli, type CliResult } from '../helpers/cli.js';
import { Tmux } from '../helpers/tmux.js';
import { killLockHolders, startLockHolder } from '../helpers/lock-holders.js';
import { FIXTURES_DIR, fixtures } from '../helpers/fixtures.js';
import { call, hostileRun, HOSTILE, result, runOf, text, turn, UNSAFE_CHARS, writeRun } from '../helpers/runs.js';
import { stateToJson } from '../../src/core/index.js';
import { tempDir } from '../helpers/tmp.js';

const FIXTURE_RUNS = ['completed', 'pending-batch', 'escapes-and-raw', 'followup-merge', 'paused-turn', 'corrupt-interior'];

/** A state dir holding copies of conformance fixtures: D/runs/<name>.jsonl. */
function fixtureState(names: string[]): string {
  const state = tempDir();
  mkdirSync(join(state, 'runs'));
  for (const n of names) copyFileSync(join(FIXTURES_DIR, 'runs', `${n}.jsonl`), join(state, 'runs', `${n}.jsonl`));
  return state;
}

const cwd = tempDir(); // no agent.yaml here
const cli = (args: string[], env: Record<string, string> = {}): Promise<CliResult> => runCli(args, { cwd, env: { TZ: 'UTC', ...env } });

/** One line on stderr, no stack trace. */
function oneLine(r: CliResult): string {
  expect(r.stderr.split('\n').filter(Boolean)).toHaveLength(1);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return r.stderr.trim();
}

describe('session ls', () => {
  const state = fixtureState(FIXTURE_RUNS);

  it('lists every run with status, time and prompt, newest first', async () => {
    // Distinct modification times, so "newest first" has one answer.
    FIXTURE_RUNS.forEach((n, i) => utimesSync(join(state, 'runs', `${n}.jsonl`), 1_800_000_000 + i * 60, 1_800_000_000 + i * 60));
    const r = await cli(['session', 'ls', '--state-dir', state], { COLUMNS: '80' });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+UPDATED\s+PROMPT$/); // no room for MODEL in 80 columns (COLUMNS, piped)
    expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual([...FIXTURE_RUNS].reverse());
    const row = (id: string) => lines.find((l) => l.startsWith(`${id} `))!;
    expect(row('completed')).toMatch(/^completed\s+completed\s+2027-01-15 08:\d\d\s+How big is the repo\?$/);
    // It ends on no terminal record and nobody holds it.
    expect(row('pending-batch')).toMatch(/\sinterrupted\s.*Check three hosts$/);
    expect(row('paused-turn')).toMatch(/\ssuspended\s/);
  });

  it('truncates long prompts to COLUMNS when piped, and keeps each run on one line; without COLUMNS nothing is cut', async () => {
    const s = tempDir();
    await writeRun(s, 'long', [], `first line\nsecond ${'y'.repeat(200)}`);
    const r = await cli(['session', 'ls', '--state-dir', s], { COLUMNS: '80' });
    const row = r.stdout.split('\n')[1]!;
    expect(row).toMatch(/first line second y+\u2026$/);
    expect([...row.split('first line')[1]!].length).toBeLessThan(60);
    const whole = (await cli(['session', 'ls', '--state-dir', s])).stdout.split('\n')[1]!;
    expect(whole).toMatch(new RegExp(`first line second ${'y'.repeat(200)}$`));
  });

  it('says which store it looked in when there are no runs', async () => {
    const empty = tempDir();
    const r = await cli(['session', 'ls', '--state-dir', empty]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`no runs in the file store in ${join(empty, 'runs')}\n`);
  });

  it('uses the backend of --config, or of ./agent.yaml when present', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'agent.yaml'), 'provider: script\nscript: turns.yaml\nsession:\n  backend: file\n  options:\n    directory: journals\n');
    const viaCwd = await runCli(['session', 'ls'], { cwd: dir });
    expect(viaCwd.stderr).toBe(`no runs in the file store in ${join(dir, 'journals')}\n`);
    const viaFlag = await cli(['session', 'ls', '--config', join(dir, 'agent.yaml')]);
    expect(viaFlag.stderr).toBe(viaCwd.stderr);
    mkdirSync(join(dir, 'journals'), { recursive: true });
    copyFileSync(join(FIXTURES_DIR, 'runs', 'completed.jsonl'), join(dir, 'journals', 'completed.jsonl'));
    const listed = await runCli(['session', 'ls'], { cwd: dir });
    expect(listed.stdout).toMatch(/\ncompleted\s/);
  });

  it('names an unknown backend and the linked ones', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'agent.yaml'), 'provider: script\nscript: t.yaml\nsession:\n  backend: carrier-pigeon\n');
    const r = await runCli(['session', 'ls'], { cwd: dir });
    expect(r.code).toBe(1);
    expect(oneLine(r)).toMatch(/^logbook: unknown session backend "carrier-pigeon"; linked backends: .*file.*memory/);
  });
});

describe('session show', () => {
  const state = fixtureState(FIXTURE_RUNS);

  it('says where the run stands and what a resume would do, then model, times, counters and the prompt', async () => {
    const r = await cli(['session', 'show', 'pending', '--state-dir', state]); // a unique start of the id
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        [
          '^run +pending-batch',
          'status +interrupted',
          'where +interrupted \\(its writer stopped without ending it\\), in the middle of a tool batch, 2 of 3 calls answered; call toolu_c \\(ping\\) may have been running when the run stopped',
          `next +a resume runs the 1 missing call \\(answered ones are not run again\\), then asks the model to go on; if call toolu_c's tool has side effects, it is not run again unasked: the resume asks on a terminal, else give logbook run --resume pending-batch --state-dir ${state} --rerun toolu_c \\(run it again\\) or logbook run --resume pending-batch --state-dir ${state} --skip toolu_c`,
          'model +claude-sonnet-4-5 \\(anthropic\\)',
          'interactive +no',
          'created +2026-11-30 09:15',
          'updated +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d',
          'model calls +1',
          'tool calls +2 \\(1 remote\\)',
          'tokens +100 in, 20 out',
          'cache +0 read, 0 created',
          'time +no times kept beside this run \\(written by the reference, or copied\\)',
          'context +100 tokens at the last request \\(0% of a 200,000-token window\\)',
          'spent +\\$0\\.0006 \\(prices: @pydantic/genai-prices [\\d.]+ \\(claude-sonnet-4-5\\)\\)',
          'prompt',
          '  Check three hosts\n$',
        ].join('\n'),
      ),
    );
  });

  it('shows the terminal reason as the status, and cache tokens', async () => {
    const r = await cli(['session', 'show', 'escapes-and-raw', '--state-dir', state]);
    expect(r.stdout).toMatch(/^status +completed$/m);
    expect(r.stdout).toMatch(/^cache +7 read, 3 created$/m);
    expect(r.stdout).not.toMatch(/^note/m);
  });

  it('--json prints the folded state with its status, created, updated and times', async () => {
    const statuses: Record<string, string> = { completed: 'completed', 'pending-batch': 'open', 'escapes-and-raw': 'completed', 'followup-merge': 'open', 'paused-turn': 'suspended' };
    // As session ls names it: a run ending on no terminal record that nobody holds was interrupted.
    const listed = (name: string): string => (statuses[name] === 'open' ? 'interrupted' : statuses[name]!);
    for (const f of fixtures().filter((x) => FIXTURE_RUNS.includes(x.name) && !('error' in x.expected))) {
      const r = await cli(['session', 'show', f.name, '--json', '--state-dir', state]);
      expect(r.code, f.name).toBe(0);
      // What a show knows beside the fold (when each record was written, how full the window was, what the run cost) comes after its keys.
      const { created, updated, status, listed_status, times, last_input_tokens, cost, ...folded } = JSON.parse(r.stdout) as Record<string, unknown>;
      expect(times, 'runs the reference wrote keep no times').toEqual({});
      expect(typeof last_input_tokens, f.name).toBe('number');
      expect(typeof (cost as { usd: unknown }).usd, f.name).toBe('number');
      expect(status, f.name).toBe(statuses[f.name]);
      expect(listed_status, f.name).toBe(listed(f.name));
      const pending = folded.pending as { answered: string[] } | null;
      if (pending) pending.answered.sort();
      expect(folded, f.name).toEqual(f.expected);
      expect(created).toMatch(/^2026-11-30T/);
      expect(typeof updated).toBe('string');
    }
  });

  it('--transcript prints the plain transcript when not on a terminal, with --tool-output the results', async () => {
    const r = await cli(['session', 'show', 'pending-batch', '--transcript', '--state-dir', state]);
    expect(r.code).toBe(0);
    // Call b's result was journaled remote; nothing beside the run names its agent.
    expect(r.stdout).toContain('\u00bb ping {"host":"a"}\n\u00bb ping {"host":"b"} (remote)\n\u00bb ping {"host":"c"}\n');
    const withOutput = await cli(['session', 'show', 'pending-batch', '--transcript', '--tool-output', '--state-dir', state]);
    expect(withOutput.stdout).toContain('\u00bb ping {"host":"b"} (remote)\n  timeout\n  (error)\n\u00bb ping {"host":"c"}\n  (no result yet)\n');
  });

  it('refuses --json with --transcript as a usage error', async () => {
    const r = await cli(['session', 'show', 'completed', '--json', '--transcript', '--state-dir', state]);
    expect(r.code).toBe(2);
    expect(oneLine(r)).toMatch(/^logbook: option '--json' cannot be used with option '--transcript'/);
  });

  it('a hostile journal reaches the terminal with no escape sequence, in every view', async () => {
    const s = tempDir();
    await writeRun(s, 'hostile', hostileRun(), `prompt ${HOSTILE}`);
    for (const args of [['ls'], ['show', 'hostile'], ['show', 'hostile', '--transcript', '--tool-output']]) {
      const r = await cli(['session', ...args, '--state-dir', s]);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout, args.join(' ')).not.toMatch(UNSAFE_CHARS);
      expect(r.stdout).toContain('hidden');
    }
  });

  it('--json of a hostile journal escapes what a terminal would act on, and the values and the journal stay as they are', async () => {
    const s = tempDir();
    await writeRun(s, 'hostile', hostileRun(), `prompt ${HOSTILE}`);
    const r = await cli(['session', 'show', 'hostile', '--json', '--state-dir', s]);
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(UNSAFE_CHARS);
    expect(r.stdout).toContain('\\u009b31mred \\u001bP1$qm');
    expect(r.stdout).toContain('\\u202eesrever\\u202c \\u2066iso\\u2069');
    const state = JSON.parse(r.stdout) as { prompt: string; terminal: { message: string } };
    expect(state.prompt).toBe(`prompt ${HOSTILE}`);
    expect(state.terminal.message).toBe(`failed ${HOSTILE}`);
    // The journal's format writes these characters raw, and still does.
    expect(readFileSync(join(s, 'runs', 'hostile.jsonl'), 'utf8')).toContain('\u009b31mred \\u001bP1$qm');
  });

  it('--json of a run longer than the batches its output is held in holds its whole conversation, multi-byte text across batch ends', async () => {
    const s = tempDir();
    // Outputs of 2- to 4-byte characters and of ASCII, each about half a MiB, and one longer than a batch (1 MiB).
    const outputs = ['é日😀a\n'.repeat(90_000), 'plain "quoted" text\n'.repeat(25_000), '\u00e9\u65e5x'.repeat(200_000), '日'.repeat(400_001)];
    const payloads = outputs.flatMap((output, i) => [turn(i, [text(`turn ${i} ✓`), call(`t${i}`, 'read', { i })]), result(`t${i}`, output)]);
    await writeRun(s, 'long', payloads);
    const r = await cli(['session', 'show', 'long', '--json', '--state-dir', s]);
    expect(r.code).toBe(0);
    expect((JSON.parse(r.stdout) as { messages: unknown }).messages).toEqual(JSON.parse(stateToJson(runOf(payloads, 'do the thing', 'long'))).messages);
  });
});

describe('session errors: one clear line, non-zero, no stack', () => {
  const state = fixtureState(FIXTURE_RUNS);

  it('an unknown id', async () => {
    const where = `the file store in ${join(state, 'runs')}`;
    const show = await cli(['session', 'show', 'nope', '--state-dir', state]);
    expect(show.code).toBe(1);
    expect(oneLine(show)).toBe(`logbook: no run nope in ${where}; \`logbook session ls\` lists the runs`);
    const rm = await cli(['session', 'rm', 'nope', '--state-dir', state]);
    expect(rm.code).toBe(1);
    expect(oneLine(rm)).toBe(`logbook: cannot remove nope: no run nope in ${where}; \`logbook session ls\` lists the runs`);
  });

  it('an invalid id', async () => {
    const r = await cli(['session', 'show', '../../etc/passwd', '--state-dir', state]);
    expect(r.code).toBe(1);
    expect(oneLine(r)).toMatch(/^logbook: invalid run id "..\/..\/etc\/passwd": use letters, digits/);
  });

  it('a corrupt journal, with --json too (read as it is folded)', async () => {
    for (const json of [[], ['--json']]) {
      const r = await cli(['session', 'show', 'corrupt-interior', '--state-dir', state, ...json]);
      expect(r.code).toBe(1);
      expect(oneLine(r)).toMatch(/^logbook: .*corrupt-interior\.jsonl line 2 is corrupt/);
    }
  });

  it('--json of a run damaged after messages it printed stops short: exit 1, its error, and a prefix no JSON reader takes', async () => {
    const s = fixtureState([]);
    const lines = readFileSync(join(FIXTURES_DIR, 'runs', 'completed.jsonl'), 'utf8').trimEnd().split('\n').slice(0, 5);
    const damage = {
      'does not fold': '{"seq":6,"protocol":"io.choria.fisk-ai.v1.session.tool_result","tool_result":{"tool_use_id":"nope","result":{"tool_use_id":"nope","content":"x"}}}',
      'does not decode': '{"seq":6,"protocol":"io.choria.fisk-ai.v1.session.bogus","bogus":{}}',
    };
    for (const [what, line] of Object.entries(damage)) {
      writeFileSync(join(s, 'runs', 'completed.jsonl'), `${[...lines, line].join('\n')}\n`);
      const r = await cli(['session', 'show', 'completed', '--json', '--state-dir', s]);
      expect(r.code, what).toBe(1);
      // The messages before the damage are written as they are made; the object is never closed.
      expect(r.stdout, what).toMatch(/^\{"run_id":"completed",.*"messages":\[\{"role":"user"/);
      expect(() => JSON.parse(r.stdout), what).toThrow(SyntaxError);
      const reason = what === 'does not fold' ? 'seq 6: tool result for nope outside an assistant turn' : 'invalid record: ';
      const advice = '; the journal is damaged; `logbook session export completed --format jsonl` still prints its lines as they are stored';
      // Named alike, with the same advice: the file and its line, then how to still read the run.
      expect(oneLine(r).startsWith(`logbook: ${join(s, 'runs', 'completed.jsonl')} line 6 is corrupt: ${reason}`), oneLine(r)).toBe(true);
      expect(oneLine(r).endsWith(advice), oneLine(r)).toBe(true);
    }
  });

  it('--json cut short on a terminal ends its prefix\'s line, so its error reads on a line of its own', async () => {
    const s = fixtureState([]);
    const lines = readFileSync(join(FIXTURES_DIR, 'runs', 'completed.jsonl'), 'utf8').trimEnd().split('\n').slice(0, 5);
    writeFileSync(join(s, 'runs', 'completed.jsonl'), `${[...lines, '{"seq":6,"protocol":"io.choria.fisk-ai.v1.session.bogus","bogus":{}}'].join('\n')}\n`);
    const t = Tmux.start([process.execPath, BIN, 'session', 'show', 'completed', '--json', '--state-dir', s], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: s, TERM: 'xterm-256color' },
      width: 400,
      height: 20,
    });
    try {
      expect(await t.exitStatus()).toBe(1);
      await t.waitFor(/^logbook: \S*completed\.jsonl line 6 is corrupt/m, 'the error at the start of a line');
    } finally {
      t.kill();
    }
  });

  it('a journal of another format version', async () => {
    const s = fixtureState(['version-4']);
    for (const json of [[], ['--json']]) {
      const r = await cli(['session', 'show', 'version-4', '--state-dir', s, ...json]);
      expect(r.code).toBe(1);
      expect(oneLine(r)).toMatch(/^logbook: journal is record format version 4; this build reads only version 3$/);
    }
  });

  it('a locked run cannot be removed, but can still be inspected', async () => {
    const s = fixtureState(['pending-batch']);
    const holder = await startHolder(join(s, 'runs'), 'pending-batch');
    try {
      const rm = await cli(['session', 'rm', 'pending-batch', '--state-dir', s]);
      expect(rm.code).toBe(1);
      expect(oneLine(rm)).toMatch(/^logbook: cannot remove pending-batch: run pending-batch is locked by another writer/);
      const show = await cli(['session', 'show', 'pending-batch', '--state-dir', s]);
      expect(show.code).toBe(0);
      expect(show.stdout).toMatch(/^status +running$/m); // a writer holds it, whatever its last record says
      expect(show.stdout).toMatch(/^where +running: a logbook process holds it now$/m);
    } finally {
      holder.kill('SIGKILL');
    }
  });

  it('--verbose and LOGBOOK_DEBUG=1 add the stack', async () => {
    const verbose = await cli(['session', 'show', 'nope', '--verbose', '--state-dir', state]);
    expect(verbose.stderr).toMatch(/^logbook: no run nope in .*\nLogbookError: no run nope in .*\n\s+at /);
    const debug = await cli(['session', 'show', 'nope', '--state-dir', state], { LOGBOOK_DEBUG: '1' });
    expect(debug.stderr).toMatch(/\n\s+at /);
    expect(debug.code).toBe(1);
  });
});

describe('session rm and backends', () => {
  it('removes a run, which is then gone', async () => {
    const s = fixtureState(['completed']);
    const r = await cli(['session', 'rm', 'completed', '--state-dir', s]);
    expect(r).toMatchObject({ code: 0, stdout: 'removed run completed\n', stderr: '' });
    const again = await cli(['session', 'show', 'completed', '--state-dir', s]);
    expect(again.code).toBe(1);
  });

  it('lists the linked backends', async () => {
    const r = await cli(['session', 'backends']);
    expect(r.code).toBe(0);
    const names = r.stdout.trim().split('\n');
    expect(names).toEqual([...names].sort());
    expect(names).toEqual(expect.arrayContaining(['file', 'memory']));
  });
});

afterAll(killLockHolders);
const startHolder = (dir: string, id: string) => startLockHolder(dir, id);
