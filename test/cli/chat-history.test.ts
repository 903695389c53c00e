/** The turns typed in chats, kept per project directory in the state directory. */
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chatHistory, historyFile, HISTORY_KEPT } from '../../src/cli/chat-history.js';
import { tempDir } from '../helpers/tmp.js';

describe('chatHistory', () => {
  it("keeps each project's turns apart, across chats, once each in a row, in a file only its owner reads", () => {
    const state = tempDir();
    const warn = (m: string): never => {
      throw new Error(m);
    };
    const one = chatHistory(state, '/src/one', warn);
    one.add('first turn\nof two lines');
    one.add('first turn\nof two lines');
    one.add('   ');
    one.add('/exit');
    chatHistory(state, '/src/two', warn).add('elsewhere');
    expect(chatHistory(state, '/src/one', warn).turns).toEqual(['first turn\nof two lines', '/exit']);
    expect(chatHistory(state, '/src/two', warn).turns).toEqual(['elsewhere']);
    expect(statSync(historyFile(state, '/src/one')).mode & 0o777).toBe(0o600);
  });

  it('passes over a line cut short, and says once that a file it cannot write loses recall, not the chat', () => {
    const state = tempDir();
    const file = historyFile(state, '/p');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '"kept"\n"cut sho');
    const warnings: string[] = [];
    const h = chatHistory(state, '/p', (m) => warnings.push(m));
    expect(h.turns).toEqual(['kept']);
    const blocked = chatHistory(join(file, 'not-a-dir'), '/p', (m) => warnings.push(m));
    blocked.add('one');
    blocked.add('two');
    expect(blocked.turns).toEqual(['one', 'two']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/could not be read \(ENOTDIR\): Up and Ctrl-R recall this chat's turns only/);
  });

  it(`keeps the newest ${HISTORY_KEPT} turns`, () => {
    const state = tempDir();
    const file = historyFile(state, '/big');
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, Array.from({ length: HISTORY_KEPT + 5 }, (_, i) => `${JSON.stringify(`turn ${i}`)}\n`).join(''));
    const turns = chatHistory(state, '/big', () => {}).turns;
    expect(turns).toHaveLength(HISTORY_KEPT);
    expect(turns[0]).toBe('turn 5');
  });

  it('an --ephemeral chat recalls the turns kept, and keeps its own in memory alone', () => {
    const state = tempDir();
    chatHistory(state, '/e', () => {}).add('kept');
    const ephemeral = chatHistory(state, '/e', () => {}, false);
    ephemeral.add('not kept');
    expect(ephemeral.turns).toEqual(['kept', 'not kept']);
    expect(chatHistory(state, '/e', () => {}).turns).toEqual(['kept']);
  });
});
