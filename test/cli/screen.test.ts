/** The live region's arithmetic and the bytes it writes; what a terminal makes of them is live-stream.test.ts (tmux). */
import { describe, expect, it } from 'vitest';
import { Screen, rowsOf } from '../../src/cli/screen.js';

function tty(columns = 20, rows = 10) {
  const writes: string[] = [];
  return { isTTY: true, columns, rows, writes, write: (t: string) => void writes.push(t), all: () => writes.join('') };
}

describe('rowsOf', () => {
  it('counts the rows a line fills, as a terminal wraps it', () => {
    expect(rowsOf('', 10)).toBe(1);
    expect(rowsOf('x'.repeat(10), 10)).toBe(1); // exactly full: the cursor waits on its row
    expect(rowsOf('x'.repeat(11), 10)).toBe(2);
    expect(rowsOf('\u001b[1mbold\u001b[22m', 4)).toBe(1); // styling takes no room
    expect(rowsOf(`${'x'.repeat(9)}\u8a9e`, 10)).toBe(2); // a wide character that does not fit starts the next row
  });

  it('counts a line of printable ASCII (measured by its length) as it counts the same line of other narrow characters (measured one by one)', () => {
    for (let n = 0; n <= 31; n++) {
      const rows = Math.max(1, Math.ceil(n / 10));
      expect([rowsOf('x'.repeat(n), 10), rowsOf('\u00e9'.repeat(n), 10), rowsOf(`\u001b[2m${'x'.repeat(n)}\u001b[22m`, 10)]).toEqual([rows, rows, rows]);
    }
  });
});

describe('Screen', () => {
  it('redraws its region in place: back to its first row, cleared to the end of the screen', () => {
    const s = tty();
    const screen = new Screen(s);
    screen.set('live', ['one', 'two']);
    screen.set('status', ['spin']);
    s.writes.length = 0;
    screen.set('live', ['one', 'two', 'three']);
    expect(s.all()).toBe('\u001b[2A\r\u001b[Jone\ntwo\nthree\nspin');
  });

  it('prints above the region and draws it again below, in one write', () => {
    const s = tty();
    const screen = new Screen(s);
    screen.set('status', ['spin']);
    s.writes.length = 0;
    screen.print('done');
    expect(s.writes).toEqual(['\r\u001b[Kdone\n\r\u001b[Kspin']);
  });

  it('puts the cursor at the caret of the input part, and shows it only then when asked to hide it', () => {
    const s = tty();
    const screen = new Screen(s, { hideCursor: true });
    screen.set('status', ['spin']);
    expect(s.all()).toContain('\u001b[?25l');
    s.writes.length = 0;
    screen.set('status', []);
    screen.set('input', ['> ab', '. cd'], { line: 0, column: 3 });
    expect(s.all()).toMatch(/> ab\n\. cd\u001b\[1A\r\u001b\[3C$/);
    expect(s.all()).toContain('\u001b[?25h');
  });

  it('keeps the region shorter than the screen: the top of a tall live block is printed for good, and not again when it settles', () => {
    const s = tty(20, 5);
    const screen = new Screen(s);
    const block = ['a', 'b', 'c', 'd', 'e', 'f'];
    screen.set('live', block);
    expect(s.all()).toContain('a\nb\n'); // printed above
    s.writes.length = 0;
    screen.settle(`${block.join('\n')}\n`);
    expect(s.all()).not.toMatch(/^a$|\na\n/m);
    expect(s.all()).toContain('f\n');
  });
});
