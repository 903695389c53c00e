/** A model's words as they stream onto a terminal's live region: when they are drawn; what a terminal makes of them is live-stream.test.ts (tmux). */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StreamedText } from '../../src/cli/answer.js';
import { ansiMarkdown } from '../../src/cli/terminal.js';
import { Screen } from '../../src/cli/screen.js';
import { MarkdownStream } from '../../src/render/markdown.js';

function tty() {
  const writes: string[] = [];
  return { isTTY: true, columns: 60, rows: 20, writes, write: (t: string) => void writes.push(t), all: () => writes.join('') };
}

/** The end of this turn of the event loop: what add() drew at once is drawn by then. */
const afterThisTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.useRealTimers();
});

describe.each([
  ['as written', undefined],
  ['as Markdown', { theme: ansiMarkdown, Stream: MarkdownStream }],
])('streamed text on a screen, %s', (_, markdown) => {
  it('draws the first words of an answer at once, not after a redraw interval', async () => {
    const out = tty();
    const text = new StreamedText({ out, screen: new Screen(out), markdown });
    text.add('Hello, ');
    text.add('world');
    await afterThisTurn();
    expect(out.all()).toContain('Hello, world');
    text.cut();
  });

  it('shows nothing when made ready for the first words, and then shows them as an unprepared stream would', async () => {
    const shown = async (prepare: boolean): Promise<string> => {
      const out = tty();
      const text = new StreamedText({ out, screen: new Screen(out), markdown });
      if (prepare) {
        text.prepare();
        text.prepare();
        expect(out.writes).toEqual([]);
      }
      text.add('Some **bold** words\n\n- and');
      await afterThisTurn();
      text.end('Some **bold** words\n\n- and a list');
      return out.all();
    };
    expect(await shown(true)).toBe(await shown(false));
  });

  it('draws words that follow within a frame of the last drawing once the frame has passed, and after a pause at once again', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] });
    const out = tty();
    const text = new StreamedText({ out, screen: new Screen(out), markdown });
    text.add('one ');
    vi.advanceTimersToNextTimer(); // the immediate draw
    expect(out.all()).toContain('one');
    text.add('two ');
    vi.advanceTimersByTime(8);
    expect(out.all()).not.toContain('two');
    vi.advanceTimersByTime(8);
    expect(out.all()).toContain('one two');
    vi.advanceTimersByTime(100);
    text.add('three');
    vi.advanceTimersToNextTimer();
    expect(out.all()).toContain('one two three');
    text.cut();
  });

  it('draws at once, when the stream has ended, the words that waited for their frame', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'performance'] });
    const out = tty();
    const text = new StreamedText({ out, screen: new Screen(out), markdown });
    text.add('one ');
    vi.advanceTimersToNextTimer(); // the immediate draw
    text.add('last');
    expect(out.all()).not.toContain('last');
    text.flush();
    expect(out.all()).toContain('one last');
    const drawn = out.writes.length;
    vi.advanceTimersByTime(100);
    expect(out.writes).toHaveLength(drawn); // no frame's draw was left to come
    text.flush();
    expect(out.writes).toHaveLength(drawn); // nothing waits: nothing is drawn
    text.cut();
  });
});
