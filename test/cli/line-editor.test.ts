/** The chat's input line as a model: editing, lines, history, completion and its view at a prompt. */
import { describe, expect, it } from 'vitest';
import { LineEditor, turnLines } from '../../src/cli/line-editor.js';

const typed = (text: string): LineEditor => {
  const e = new LineEditor();
  e.insert(text);
  return e;
};

describe('LineEditor', () => {
  it('moves and deletes by characters as a person sees them, emoji and combining marks whole', () => {
    const e = typed('a\u{1F468}\u200d\u{1F469}\u200d\u{1F467}e\u0301');
    e.left();
    e.backspace();
    expect(e.value).toBe('ae\u0301');
    e.end();
    e.backspace();
    expect(e.value).toBe('a');
  });

  it('edits a turn of several lines: Home and End of the line, Up and Down between lines at the same column', () => {
    const e = typed('first line\nsecond');
    e.home();
    e.insert('> ');
    expect(e.value).toBe('first line\n> second');
    e.up();
    e.insert('|');
    expect(e.value).toBe('fi|rst line\n> second');
    e.down();
    e.end();
    e.insert('!');
    expect(e.value).toBe('fi|rst line\n> second!');
  });

  it('turns Enter after a backslash into a line break, in place of the backslash', () => {
    const e = typed('one \\');
    expect(e.continuesLine).toBe(true);
    e.continueLine();
    e.insert('two');
    expect(e.value).toBe('one \ntwo');
    const middle = typed('a\\ b');
    expect(middle.continuesLine).toBe(false);
  });

  it('kills the line before and after the caret, and the word before it', () => {
    const e = typed('keep this\nand that word');
    e.killWord();
    expect(e.value).toBe('keep this\nand that ');
    e.left();
    e.left();
    e.killAfter();
    expect(e.value).toBe('keep this\nand tha');
    e.killBefore();
    expect(e.value).toBe('keep this\n');
  });

  it('recalls the turns typed before, each whole, and gives back the one being typed', () => {
    const e = new LineEditor();
    e.insert('one');
    e.submit();
    e.insert('two\nlines');
    e.submit();
    e.insert('draft');
    e.up();
    expect(e.value).toBe('two\nlines');
    e.up(); // from the last line to the first of the recalled turn
    e.up();
    expect(e.value).toBe('one');
    e.down();
    e.down(); // through the recalled turn's lines
    e.down();
    expect(e.value).toBe('draft');
  });

  it('completes a / command when one name matches, and offers the names when several do', () => {
    const names = ['/help', '/status', '/exit', '/export'];
    const one = typed('/st');
    expect(one.complete(names)).toEqual([]);
    expect(one.value).toBe('/status ');
    const several = typed('/ex');
    expect(several.complete(names)).toEqual(['/exit', '/export']);
    expect(several.value).toBe('/ex');
    const none = typed('hello /st');
    expect(none.complete(names)).toEqual([]);
    expect(none.value).toBe('hello /st');
  });

  it('draws at a prompt, later lines at the continuation, controls as visible symbols, the caret where it is', () => {
    const e = typed('ab\n\tc\u001b');
    e.left();
    expect(e.view('> ', '. ')).toEqual({ lines: ['> ab', '.     c\u241b'], caret: { line: 1, column: 7 } });
    expect(turnLines('x\ny', '> ', '\u001b[2m\u2026 \u001b[22m')).toEqual(['> x', '\u001b[2m\u2026 \u001b[22my']);
    expect(new LineEditor().view('> ', '. ')).toEqual({ lines: ['> '], caret: { line: 0, column: 2 } });
  });

  it('starts from the turns typed before (an earlier chat) and Ctrl-R finds the newest holding a text, then older ones; given up, the draft is back', () => {
    const e = new LineEditor(['deploy to staging', 'run the tests', 'Deploy to prod']);
    e.insert('half typed');
    expect(e.searchBack('deploy')).toBe(2);
    expect(e.value).toBe('Deploy to prod');
    expect(e.searchBack('deploy', 2)).toBe(0);
    expect(e.value).toBe('deploy to staging');
    expect(e.searchBack('deploy', 0)).toBeUndefined();
    expect(e.value).toBe('deploy to staging');
    e.restoreDraft();
    expect(e.value).toBe('half typed');
    e.clear();
    e.up();
    expect(e.value).toBe('Deploy to prod');
  });
});
