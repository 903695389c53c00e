import { describe, expect, it } from 'vitest';
import { fold, parseJournal } from '../../src/index.js';
import { transcriptGroups, transcriptItems, type TranscriptItem } from '../../src/render/index.js';
import { fixtures } from '../helpers/fixtures.js';
import { call, commandResult, followUp, result, runOf, text, thinking, turn } from '../helpers/runs.js';

const kinds = (items: TranscriptItem[]) => items.map((i) => (i.kind === 'call' || i.kind === 'result' ? `${i.kind}:${i.id}` : i.kind));

describe('transcriptItems', () => {
  it('pairs each call with its result by id, so calls and results interleave as they ran', () => {
    const state = runOf([
      turn(0, [text('checking'), call('a', 'ping', { h: 'a' }), call('b', 'ping', { h: 'b' })]),
      result('b', 'b up'), // answered out of order
      result('a', 'a up'),
      turn(1, [text('done')]),
      { terminal: { reason: 'completed' } },
    ]);
    const items = transcriptItems(state);
    expect(kinds(items)).toEqual(['prompt', 'text', 'call:a', 'result:a', 'call:b', 'result:b', 'text', 'end']);
    expect(items[3]).toMatchObject({ kind: 'result', name: 'ping', output: 'a up', isError: false });
  });

  it('walks the pending turn after the committed messages; an unanswered call stands alone', () => {
    const state = runOf([turn(0, [call('a', 'ping', {}), call('b', 'ping', {})]), result('a', 'up'), { terminal: { reason: 'suspended' } }]);
    const items = transcriptItems(state);
    expect(kinds(items)).toEqual(['prompt', 'pending', 'call:a', 'result:a', 'call:b', 'end']);
    expect(items[1]).toEqual({ kind: 'pending', answered: 1, total: 2 });
    expect(items[4]).toMatchObject({ pending: true, answered: false });
    expect(items[5]).toEqual({ kind: 'end', reason: 'suspended' });
  });

  it('shows the prompt once, follow-ups as user items, and thinking', () => {
    const state = runOf([turn(0, [thinking('hmm'), text('hi')]), followUp('more please'), followUp('and this'), turn(1, [text('ok')])]);
    const items = transcriptItems(state);
    expect(kinds(items)).toEqual(['prompt', 'thinking', 'text', 'user', 'user', 'text']);
    expect(items.filter((i) => i.kind === 'user').map((i) => (i as { text: string }).text)).toEqual(['more please', 'and this']);
  });

  it('an empty prompt yields no prompt item, and a first follow-up still shows', () => {
    const state = runOf([followUp('hello')], '');
    expect(transcriptItems(state)).toEqual([{ kind: 'user', text: 'hello' }]);
  });

  it('unwraps command results from their envelope', () => {
    const state = runOf([turn(0, [call('c', 'sh', { cmd: 'false' })]), commandResult('c', ['sh', '-c', 'false'], 1, 'nope\n')]);
    expect(transcriptItems(state)[2]).toMatchObject({ kind: 'result', output: 'nope\n', exitCode: 1, command: ['sh', '-c', 'false'], isError: true });
  });

  it('renders every conformance fixture that folds', () => {
    for (const f of fixtures()) {
      if ('error' in f.expected) continue;
      const items = transcriptItems(fold(parseJournal(f.journal, f.name)));
      const calls = items.filter((i) => i.kind === 'call').length;
      expect(calls, f.name).toBe([...f.journal.matchAll(/"tool_use":\{"id"/g)].length);
    }
  });

  it('makes any range of groups exactly as the whole transcript holds them, a result beside its call wherever the range starts', () => {
    for (const f of fixtures()) {
      if ('error' in f.expected) continue;
      const state = fold(parseJournal(f.journal, f.name));
      const whole = transcriptGroups(state);
      expect(whole.flatMap((g) => g.items), f.name).toEqual(transcriptItems(state));
      const keys = whole.map((g) => g.at);
      expect(keys, f.name).toEqual([...keys].sort((a, b) => a - b));
      for (let k = 0; k <= state.messages.length + 2; k++) {
        const split = [...transcriptGroups(state, { range: { to: k } }), ...transcriptGroups(state, { range: { from: k } })];
        expect(split, `${f.name} split at ${k}`).toEqual(whole);
      }
    }
  });
});
