/**
 * A run rendered record by record (session watch): what each record adds, the
 * blank lines between the sides of the conversation across records, results
 * only with toolOutput, thinking only when asked, every string sanitized, and
 * a record the fold refuses refused here too.
 */
import { describe, expect, it } from 'vitest';
import { FollowedTranscript, snippet } from '../../src/render/index.js';
import { HOSTILE, UNSAFE_CHARS, call, commandResult, followUp, hostileRun, records, result, text, thinking, turn } from '../helpers/runs.js';

const run = records('r1', [
  turn(0, [thinking('hmm'), text('Looking.'), call('t1', 'ls', { path: '.' }), call('t2', 'cat', { file: 'a' })]),
  commandResult('t1', ['ls', '.'], 0, 'a\nb\n'),
  result('t2', 'no such file', true),
  turn(1, [text('Here it is.')]),
  followUp('and then?'),
  turn(2, [text('Then nothing.')]),
  { terminal: { reason: 'completed' } },
]);

describe('FollowedTranscript', () => {
  it('renders each record as it comes, like the transcript, with results only when asked', () => {
    const t = new FollowedTranscript({ toolOutput: true });
    expect(run.map((r) => t.add(r))).toEqual([
      '> do the thing\n',
      '\nLooking.\n» ls {"path":"."}\n» cat {"file":"a"}\n',
      '  a\n  b\n',
      '  no such file\n  (error)\n',
      'Here it is.\n',
      '\n> and then?\n',
      '\nThen nothing.\n',
      '\n── run completed\n',
    ]);
    expect(t.folded?.counters.llm_calls).toBe(3);
    const quiet = new FollowedTranscript({ thinking: true });
    expect(run.slice(0, 4).map((r) => quiet.add(r)).join('')).toBe('> do the thing\n\n[thinking] hmm\nLooking.\n» ls {"path":"."}\n» cat {"file":"a"}\n');
  });

  it('folds records it does not show, and starts showing with no blank line before the first', () => {
    const t = new FollowedTranscript();
    const shown = run.map((r) => t.add(r, r.seq >= 5));
    expect(shown.join('')).toBe('Here it is.\n\n> and then?\n\nThen nothing.\n\n── run completed\n');
  });

  it('refuses a record the fold refuses', () => {
    const t = new FollowedTranscript();
    t.add(run[0]!);
    expect(() => t.add({ seq: 2, ...result('nope', 'x') } as never)).toThrow(/outside an assistant turn/);
  });

  it('shows a hostile run without a byte a terminal would act on', () => {
    const t = new FollowedTranscript({ toolOutput: true, thinking: true });
    const out = records('h', hostileRun()).map((r) => t.add(r)).join('');
    expect(out).not.toMatch(UNSAFE_CHARS);
    expect(out).toContain('clear');
  });
});

describe('snippet', () => {
  it('shows the match with context on one line, cut with an ellipsis, sanitized', () => {
    const long = `${'a '.repeat(50)}the needle\tis\nhere${' b'.repeat(50)}`;
    const at = long.indexOf('needle');
    expect(snippet(long, at, 6, { around: 8 })).toBe('…a a the needle is here…');
    expect(snippet('needle', 0, 6, { mark: (s) => `[${s}]` })).toBe('[needle]');
    const hostile = `x ${HOSTILE} needle`;
    expect(snippet(hostile, hostile.indexOf('needle'), 6, { around: 200 })).not.toMatch(UNSAFE_CHARS);
    expect(snippet('🦜🦜🦜needle', 6, 6, { around: 3 })).toBe('…🦜🦜needle');
  });
});
