/** A chat's lines read: turns for the model, and the chat's own commands. */
import { describe, expect, it } from 'vitest';
import { CHAT_COMMANDS, helpText, readTyped, type ChatContext } from '../../src/cli/chat-commands.js';
import { runOf, text, turn, followUp } from '../helpers/runs.js';

const answered = runOf([turn(0, [text('hi')], [1200, 34])], 'hello');
const unanswered = runOf([turn(0, [text('hi')]), followUp('and then?')], 'hello');

function chat(state = answered, store: string | null = 'file store in /s'): ChatContext & { exported: string[] } {
  const exported: string[] = [];
  return {
    state: () => state,
    model: 'anthropic claude-x',
    store,
    exported,
    exportTo: async (file) => {
      if (file.endsWith('.bad')) throw new Error('cannot write it');
      exported.push(file);
      return `wrote it to ${file}`;
    },
    forkNameRefusal: async (name) => (name === 'taken' ? 'run taken already exists' : null),
  };
}

describe('readTyped', () => {
  it('sends a line as typed, and one starting with // with a single slash', async () => {
    expect(await readTyped('  hello /there', chat())).toEqual({ turn: '  hello /there' });
    expect(await readTyped('//etc/hosts is empty', chat())).toEqual({ turn: '/etc/hosts is empty' });
  });

  it('refuses an unknown command and wrong arguments where they are typed, naming /help', async () => {
    expect(await readTyped('/exti', chat())).toEqual({ say: 'unknown command /exti; /help lists them' });
    expect(await readTyped('/status now', chat())).toEqual({ say: '/status takes no arguments; /help lists the commands' });
    expect(await readTyped('/export', chat())).toEqual({ say: '/export takes FILE; /help lists the commands' });
    expect(await readTyped('/fork a b', chat())).toEqual({ say: '/fork takes [NAME]; /help lists the commands' });
  });

  it('/status tells the run, model, tokens, calls and store', async () => {
    const { say } = (await readTyped('/status', chat())) as { say: string };
    expect(say).toMatch(/^run +r1$/m);
    expect(say).toMatch(/^model +anthropic claude-x$/m);
    expect(say).toMatch(/^tokens +1,200 in \u00b7 34 out$/m);
    expect(say).toMatch(/^calls +1 model call \u00b7 0 tool calls$/m);
    expect(say).toMatch(/^store +file store in \/s$/m);
  });

  it('/retry only while a turn is unanswered; /fork only for a journaled run; /exit ends', async () => {
    expect(await readTyped('/retry', chat())).toEqual({ say: 'nothing to retry: the last turn was answered' });
    expect(await readTyped('/retry', chat(unanswered))).toEqual({ retry: true });
    expect(await readTyped('/fork', chat())).toEqual({ end: 'fork' });
    expect(await readTyped('/fork next', chat())).toEqual({ end: 'fork', name: 'next' });
    expect(await readTyped('/fork', chat(answered, null))).toEqual({ say: 'an --ephemeral run is not journaled, so it cannot be forked' });
    expect(await readTyped('/exit', chat())).toEqual({ end: 'exit' });
  });

  it('/export writes the file and says where; a failure is said, not thrown', async () => {
    const c = chat();
    expect(await readTyped('/export run.html', c)).toEqual({ say: 'wrote it to run.html' });
    expect(c.exported).toEqual(['run.html']);
    expect(await readTyped('/export x.bad', c)).toEqual({ say: '/export: cannot write it' });
  });

  it('/help lists every command and the keys', async () => {
    const { say } = (await readTyped('/help', chat())) as { say: string };
    expect(say).toBe(helpText());
    for (const c of CHAT_COMMANDS) expect(say).toContain(c.name);
    expect(say).toMatch(/Esc, Ctrl-C +while the model answers or tools run: stop them/);
  });
});
