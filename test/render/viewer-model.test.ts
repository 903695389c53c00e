/** The viewer's layout, folding, scrolling and search, without a terminal. */
import { describe, expect, it } from 'vitest';
import { entriesFor, layout, matches, splitMatches, type Entry } from '../../src/render/viewer/model.js';
import { ansiMarkdown } from '../../src/cli/terminal.js';
import { renderMarkdown } from '../../src/render/markdown.js';
import { initialState, press, pressAll, rowsFor, type Frame, type ViewState } from '../../src/render/viewer/state.js';
import { transcriptItems } from '../../src/render/index.js';
import { call, commandResult, followUp, result, runOf, text, thinking, turn } from '../helpers/runs.js';

const items = () =>
  transcriptItems(
    runOf([
      turn(0, [thinking('first thought\nsecond thought'), text('Looking.'), call('a', 'sh', { cmd: 'ls' })]),
      commandResult('a', ['sh', '-c', 'ls'], 0, 'alpha\nbeta\nneedle here\n'),
      followUp('and then?'),
      turn(1, [call('b', 'sh', { cmd: 'false' })]),
      commandResult('b', ['sh', '-c', 'false'], 1, ''),
      turn(2, [text('Done.')]),
      { terminal: { reason: 'completed' } },
    ]),
  );

const shown = (s: ViewState, f: Frame) => rowsFor(s, f).map((r) => r.text);

function frame(width = 40, height = 8): Frame {
  return { entries: entriesFor(items(), width), width, height };
}

describe('viewer layout', () => {
  it('folds thinking and tool output at first, and says what is folded', () => {
    const f = frame();
    expect(shown(initialState(f.entries), f)).toEqual([
      '> do the thing',
      '',
      '\u25b8 thinking (2 lines)',
      'Looking.',
      '\u00bb sh {"cmd":"ls"}',
      '  \u25b8 output (3 lines)',
      '',
      '> and then?',
      '',
      '\u00bb sh {"cmd":"false"}',
      '  (exit 1) (no output)',
      'Done.',
      '',
      '\u2500\u2500 run completed',
    ]);
  });

  it('unfolds output from the start when asked (--tool-output)', () => {
    const f = frame();
    expect(shown(initialState(f.entries, ['output']), f)).toContain('    needle here');
  });

  it('wraps long lines to the width; a long call folds to one elided line', () => {
    const long = transcriptItems(runOf([turn(0, [text('w'.repeat(35)), call('a', 'write', { body: 'q'.repeat(100) })]), result('a', 'ok')]));
    const entries: Entry[] = entriesFor(long, 30);
    const rows = layout(entries, new Set(), 30);
    expect(rows.filter((r) => r.text.startsWith('w')).map((r) => r.text)).toEqual(['w'.repeat(30), 'w'.repeat(5)]);
    const callRow = rows.filter((r) => r.tone === 'call');
    expect(callRow).toHaveLength(1);
    expect([...callRow[0]!.text].length).toBeLessThanOrEqual(30);
    const open = layout(entries, new Set([entries.findIndex((e) => e.fold === 'call')]), 30).filter((r) => r.tone === 'call');
    expect(open.map((r) => r.text).join('')).toContain('q'.repeat(100));
  });

  it('splits text around matches for highlighting, case-insensitively', () => {
    expect(splitMatches('a Needle and needle', 'needle')).toEqual([
      { text: 'a ', hit: false },
      { text: 'Needle', hit: true },
      { text: ' and ', hit: false },
      { text: 'needle', hit: true },
    ]);
  });
});

describe('viewer keys', () => {
  it('moves with j/k and arrows, pages, and jumps to the top and bottom, keeping the cursor in view', () => {
    const f = frame(40, 4);
    let s = initialState(f.entries);
    s = press(s, f, 'j', {});
    s = press(s, f, '', { downArrow: true });
    expect(s.cursor).toBe(2);
    s = press(s, f, 'k', {});
    expect(s.cursor).toBe(1);
    s = press(s, f, 'G', {});
    expect(s.cursor).toBe(rowsFor(s, f).length - 1);
    expect(s.top).toBe(rowsFor(s, f).length - 4);
    s = press(s, f, 'g', {});
    expect([s.cursor, s.top]).toEqual([0, 0]);
    s = press(s, f, '', { pageDown: true });
    expect([s.cursor, s.top]).toEqual([4, 4]);
    s = press(s, f, '', { pageUp: true });
    expect([s.cursor, s.top]).toEqual([0, 0]);
    s = press(s, f, 'k', {});
    expect(s.cursor).toBe(0);
  });

  it('enter or space unfolds and folds the entry under the cursor', () => {
    const f = frame();
    let s = initialState(f.entries);
    s = { ...s, cursor: 2 }; // ▸ thinking
    s = press(s, f, '', { return: true });
    expect(shown(s, f).slice(2, 5)).toEqual(['\u25be thinking', '  first thought', '  second thought']);
    s = press(s, f, ' ', {});
    expect(shown(s, f)[2]).toBe('\u25b8 thinking (2 lines)');
    s = { ...s, cursor: 0 };
    expect(press(s, f, '', { return: true }).message).toBe('nothing to unfold here');
  });

  it('t and o unfold all thinking or all output, and fold them again', () => {
    const f = frame();
    let s = initialState(f.entries);
    s = press(s, f, 'o', {});
    expect(shown(s, f)).toContain('    needle here');
    expect(shown(s, f)).toContain('\u25b8 thinking (2 lines)');
    s = press(s, f, 't', {});
    expect(shown(s, f)).toContain('  second thought');
    s = press(s, f, 'o', {});
    expect(shown(s, f)).not.toContain('    needle here');
  });

  it('/ searches, finding text inside folded output and unfolding it; n and N go on and wrap', () => {
    const f = frame(40, 5);
    let s = initialState(f.entries);
    s = pressAll(s, f, '/', {});
    expect(s.searching).toBe(true);
    s = pressAll(s, f, 'NEEDLX', {});
    s = press(s, f, '', { backspace: true });
    s = press(s, f, 'e', {});
    s = press(s, f, '', { return: true });
    expect(s.searching).toBe(false);
    expect(s.query).toBe('NEEDLe');
    const rows = rowsFor(s, f);
    expect(rows[s.cursor]!.text).toBe('    needle here');
    expect(s.cursor).toBeGreaterThanOrEqual(s.top);
    expect(s.cursor).toBeLessThan(s.top + 5);
    expect(s.message).toBe('match 1 of 1 for "NEEDLe"');

    // A search goes forward from the cursor (on the needle, past the first call).
    s = pressAll(s, f, '/sh\r', {});
    expect(rowsFor(s, f)[s.cursor]!.text).toBe('\u00bb sh {"cmd":"false"}');
    expect(s.message).toBe('match 2 of 2 for "sh"');
    s = press(s, f, 'n', {});
    expect(rowsFor(s, f)[s.cursor]!.text).toBe('\u00bb sh {"cmd":"ls"}'); // wrapped around
    s = press(s, f, 'N', {});
    expect(rowsFor(s, f)[s.cursor]!.text).toBe('\u00bb sh {"cmd":"false"}');
    s = press(s, f, 'N', {});
    expect(rowsFor(s, f)[s.cursor]!.text).toBe('\u00bb sh {"cmd":"ls"}');
  });

  it('says when nothing matches, and escape abandons a search being typed', () => {
    const f = frame();
    let s = pressAll(initialState(f.entries), f, '/zzz\r', {});
    expect(s.message).toBe('no match for "zzz"');
    s = pressAll(s, f, '/abc', {});
    s = press(s, f, '', { escape: true });
    expect([s.searching, s.query]).toEqual([false, 'zzz']);
  });

  it('q and ctrl-c quit', () => {
    const f = frame();
    expect(press(initialState(f.entries), f, 'q', {}).quit).toBe(true);
    expect(press(initialState(f.entries), f, 'c', { ctrl: true }).quit).toBe(true);
  });

  it('keys that arrive in one chunk act one by one', () => {
    const f = frame();
    const s = pressAll(initialState(f.entries), f, 'jj\r', {});
    expect(s.cursor).toBe(2);
    expect(shown(s, f)[2]).toBe('\u25be thinking');
  });
});

describe("the model's prose in the viewer", () => {
  it('is its Markdown rendered for the width, found by search past its styling', () => {
    const prose = (t: string, width: number) => renderMarkdown(t, { width, theme: ansiMarkdown }).split('\n');
    const entries = entriesFor(transcriptItems(runOf([turn(0, [text('A **bold** claim\n\n- one\n- two')])])), 40, prose);
    const answer = entries.find((e) => e.tone === 'text')!;
    expect(answer.folded).toEqual(['A \u001b[1mbold\u001b[22m claim', '', '\u001b[2m\u2022 \u001b[22mone', '\u001b[2m\u2022 \u001b[22mtwo']);
    expect(matches(entries, 'bold claim')).toEqual([{ entry: entries.indexOf(answer), line: 0 }]);
  });
});
