import { describe, expect, it } from 'vitest';
import { dumpTranscript, resumeNarration, type Style } from '../../src/render/index.js';
import { HOSTILE, UNSAFE_CHARS, call, commandResult, followUp, hostileRun, result, runOf, text, thinking, turn } from '../helpers/runs.js';

const suspendedMidBatch = () =>
  runOf(
    [
      turn(0, [thinking('plan it'), text('Listing first.'), call('l', 'sh', { cmd: 'ls' })]),
      commandResult('l', ['sh', '-c', 'ls'], 0, 'a.txt\nb.txt\n'),
      followUp('now count them'),
      turn(1, [text('Counting.'), call('w', 'sh', { cmd: 'wc -l a.txt' }), call('x', 'sh', { cmd: 'false' })]),
      commandResult('w', ['sh', '-c', 'wc -l a.txt'], 2, ''),
      { terminal: { reason: 'suspended' } },
    ],
    'Look around',
    'demo',
  );

describe('dumpTranscript', () => {
  it('prints prompt, thinking, prose and calls; results only with toolOutput', () => {
    expect(dumpTranscript(suspendedMidBatch())).toBe(
      [
        '> Look around',
        '',
        '[thinking] plan it',
        'Listing first.',
        '\u00bb sh {"cmd":"ls"}',
        '',
        '> now count them',
        '',
        '\u2500\u2500 in-flight turn: 1 of 2 tool calls answered; a resume completes it first',
        'Counting.',
        '\u00bb sh {"cmd":"wc -l a.txt"}',
        '\u00bb sh {"cmd":"false"}',
        '',
        '\u2500\u2500 run suspended',
        '',
      ].join('\n'),
    );
  });

  it('with toolOutput, each result follows its call, (exit N) and (no output) marked', () => {
    const out = dumpTranscript(suspendedMidBatch(), { toolOutput: true });
    expect(out).toContain('\u00bb sh {"cmd":"ls"}\n  a.txt\n  b.txt\n\n> now count them');
    expect(out).toContain('\u00bb sh {"cmd":"wc -l a.txt"}\n  (exit 2) (no output)\n\u00bb sh {"cmd":"false"}\n  (no result yet)\n');
  });

  it('marks error results that are not command results', () => {
    const state = runOf([turn(0, [call('a', 'fetch', { url: 'x' })]), result('a', 'refused', true), turn(1, [text('ok')])]);
    expect(dumpTranscript(state, { toolOutput: true })).toContain('\u00bb fetch {"url":"x"}\n  refused\n  (error)\nok\n');
  });

  it('elides long arguments only when given a width', () => {
    const long = 'z'.repeat(400);
    const state = runOf([turn(0, [call('a', 'write', { body: long })]), result('a', 'ok')]);
    expect(dumpTranscript(state)).toContain(long);
    const narrow = dumpTranscript(state, { width: 80 });
    expect(narrow).not.toContain(long);
    expect(narrow.split('\n').every((l) => [...l].length <= 80)).toBe(true);
  });

  it('applies a style around sanitized text', () => {
    const tag: Style = { strong: (t) => `<s>${t}</s>`, faint: (t) => `<f>${t}</f>`, call: (t) => `<c>${t}</c>`, bad: (t) => `<b>${t}</b>`, note: (t) => `<n>${t}</n>` };
    const out = dumpTranscript(suspendedMidBatch(), { style: tag, toolOutput: true });
    expect(out).toContain('<s>> Look around</s>');
    expect(out).toContain('<f>[thinking] plan it</f>');
    expect(out).toContain('<c>\u00bb sh {"cmd":"ls"}</c>');
    expect(out).toContain('<b>  (exit 2) (no output)</b>');
  });

  it('lets no escape sequence of a hostile journal through', () => {
    const out = dumpTranscript(runOf(hostileRun(), `prompt ${HOSTILE}`), { toolOutput: true });
    expect(out).not.toMatch(UNSAFE_CHARS);
    // Arguments are JSON, where a control is escaped text (\u001b); everywhere else a title sequence goes whole.
    expect(out).toContain('"cmd":"A\\u001b[2J');
    expect(out.split('\n').filter((l) => !l.startsWith('\u00bb') && l.includes('PWNED'))).toEqual([]);
    for (const w of ['prompt A', 'think A', 'say A', 'out A', 'user A', 'failed A', 'hidden', 'esrever']) expect(out).toContain(w);
  });
});

describe('resumeNarration', () => {
  it('narrates the prompt and the last few model turns, counting those left out; all of them when asked', () => {
    const turns = Array.from({ length: 6 }, (_, i) => turn(i, [text(`answer ${i}`)]));
    const chat = runOf(turns.flatMap((t, i) => (i === 0 ? [t] : [followUp(`question ${i}`), t])));
    const tail = resumeNarration(chat);
    expect(tail).toContain('> do the thing');
    expect(tail).toContain('3 earlier model turns not shown (--replay all shows them)');
    expect(tail).not.toContain('answer 2');
    expect(tail).toContain('> question 3\n');
    for (const i of [3, 4, 5]) expect(tail).toContain(`answer ${i}`);
    const all = resumeNarration(chat, { turns: 'all' });
    for (let i = 0; i < 6; i++) expect(all).toContain(`answer ${i}`);
    expect(all).not.toContain('not shown');
  });

  it('narrates the first lines of a long prompt or follow-up, counting what it leaves out; all of it when asked', () => {
    const long = Array.from({ length: 40 }, (_, i) => `prompt line ${i}`).join('\n');
    const huge = 'x'.repeat(50_000);
    const state = runOf([turn(0, [text('one')]), followUp(huge), turn(1, [text('two')])], long);
    const tail = resumeNarration(state);
    expect(tail).toContain('  prompt line 9\n');
    expect(tail).not.toContain('prompt line 10');
    expect(tail).toContain(`… ${(long.length - long.split('\n').slice(0, 10).join('\n').length).toLocaleString('en-US')} more characters (--replay all shows them)`);
    expect(tail).toContain('… 49,000 more characters (--replay all shows them)');
    expect(tail.length).toBeLessThan(5_000);
    const all = resumeNarration(state, { turns: 'all' });
    expect(all).toContain('prompt line 39');
    expect(all).toContain(huge);
  });

  it('tells where the run stands and ends with continuing', () => {
    expect(resumeNarration(suspendedMidBatch())).toBe(
      [
        'resuming run demo (2 model calls so far)',
        '> Look around',
        '',
        'Listing first.',
        '\u00bb sh {"cmd":"ls"}',
        '',
        '> now count them',
        '',
        '\u2500\u2500 in-flight turn: 1 of 2 tool calls answered; a resume completes it first',
        'Counting.',
        '\u00bb sh {"cmd":"wc -l a.txt"} (answered)',
        '\u00bb sh {"cmd":"false"}',
        'continuing',
        '',
      ].join('\n'),
    );
  });

  it('renders the resolved command line when the tool is still known', () => {
    const seen: [string, string][] = [];
    const out = resumeNarration(suspendedMidBatch(), {
      describeCall: (name, input) => {
        seen.push([name, input]);
        const cmd = (JSON.parse(input) as { cmd: string }).cmd;
        return cmd === 'false' ? undefined : `sh -c '${cmd}'`;
      },
    });
    expect(seen[0]).toEqual(['sh', '{"cmd":"ls"}']);
    expect(out).toContain("\u00bb sh -c 'ls'\n");
    expect(out).toContain("\u00bb sh -c 'wc -l a.txt' (answered)\n");
    expect(out).toContain('\u00bb sh {"cmd":"false"}\n'); // not described: name and arguments
  });

  it('says 1 model call, and narrates a run with no turns yet', () => {
    expect(resumeNarration(runOf([turn(0, [text('hi')])]))).toMatch(/^resuming run r1 \(1 model call so far\)\n/);
    expect(resumeNarration(runOf([]))).toBe('resuming run r1 (0 model calls so far)\n> do the thing\ncontinuing\n');
  });

  it('sanitizes what describeCall returns and everything from the journal', () => {
    const out = resumeNarration(runOf(hostileRun(), HOSTILE), { describeCall: () => `run ${HOSTILE}` });
    expect(out).not.toMatch(UNSAFE_CHARS);
    expect(out).toContain('run A');
  });
});

describe('large runs', () => {
  it('render texts of many lines and calls of many arguments', () => {
    const many = 'line\n'.repeat(300_000);
    const args = Object.fromEntries(Array.from({ length: 200_000 }, (_, i) => [`k${i}`, `v${i}`]));
    const state = runOf([turn(0, [text(many), call('a', 'sh', args)]), result('a', many)], many);
    const dump = dumpTranscript(state, { toolOutput: true, width: 80 });
    expect(dump.split('\n').length).toBeGreaterThan(900_000);
    expect(resumeNarration(state).endsWith('continuing\n')).toBe(true);
  });
});
