/** The pure parts of compaction: what is kept word for word, how, and what the summary call sends. */
import { describe, expect, it } from 'vitest';
import { KEPT_BLOCK_CHARS, SUMMARY_PROMPT, continuationPrompt, keptMessages, keptText, summaryMessages } from '../../src/agent/compaction.js';
import { RawJson, type Message } from '../../src/index.js';

const user = (text: string): Message => ({ role: 'user', content: [{ text: { text } }] });
const call = (id: string, text = ''): Message => ({
  role: 'assistant',
  content: [...(text ? [{ text: { text } }] : []), { tool_use: { id, name: 'note', input: RawJson.fromText(`{"text":"${id}"}`) } }],
});
const results = (id: string, content = `noted ${id}`, isError = false): Message => ({
  role: 'user',
  content: [{ tool_result: { tool_use_id: id, content, ...(isError ? { is_error: true } : {}) } }],
});
const answer = (text: string): Message => ({ role: 'assistant', content: [{ text: { text } }] });

/** A one-shot run resting right after its fourth tool batch. */
const afterBatch: Message[] = [user('Take notes.'), call('a', 'First.'), results('a'), call('b'), results('b'), call('c'), results('c'), call('d'), results('d', 'disk full', true)];

describe('the exchanges kept word for word', () => {
  it('are the last model turns, each with the turn that led to it, and the results after the last', () => {
    expect(keptMessages(afterBatch, 2)).toEqual(afterBatch.slice(4));
    // None kept: still the results the model has yet to read.
    expect(keptMessages(afterBatch, 0)).toEqual(afterBatch.slice(-1));
    expect(keptMessages(afterBatch, 10)).toEqual(afterBatch);
  });

  it('end on the answer at a chat input boundary', () => {
    const chat = [user('Q1'), answer('A1'), user('Q2'), answer('A2')];
    expect(keptMessages(chat, 1)).toEqual([user('Q2'), answer('A2')]);
    expect(keptMessages(chat, 0)).toEqual([]);
  });

  it('always take the turn typed after the last answer, whatever keep_turns', () => {
    const chat = [user('Q1'), answer('A1'), user('Q2')];
    expect(keptMessages(chat, 0)).toEqual([user('Q2')]);
    expect(keptMessages(chat, 1)).toEqual(chat);
  });

  it("read as text: who said what, each call with its input, each result with its call's tool, an error as one", () => {
    expect(keptText(afterBatch, 1)).toBe(
      [
        'Result of note (call c): noted c',
        'Assistant called note (call d) with {"text":"d"}',
        'Error from note (call d): disk full',
      ].join('\n\n'),
    );
  });

  it(`cut a block past ${KEPT_BLOCK_CHARS} characters, saying how much the compacted run keeps`, () => {
    const long = [user('Go.'), call('a'), results('a', 'y'.repeat(KEPT_BLOCK_CHARS + 10))];
    const text = keptText(long, 1);
    expect(text).toContain(`${'y'.repeat(KEPT_BLOCK_CHARS)}\n[... 10 more characters, kept in the compacted run]`);
  });
});

describe("the continuation's first turn", () => {
  it('says where it comes from, then the summary, then the kept exchanges', () => {
    expect(continuationPrompt('run-1', 9, ' The notes. ', 'User: hi')).toBe(
      'This conversation continues run run-1, compacted at seq 9: what came before is summarized here, and its last exchanges follow word for word.\n\n' +
        '<summary>\nThe notes.\n</summary>\n\n<last-exchanges>\nUser: hi\n</last-exchanges>\n\nGo on from where the conversation stopped.',
    );
    expect(continuationPrompt('run-1', 9, 'The notes.', '')).not.toContain('<last-exchanges>');
  });
});

describe('the summary call', () => {
  it('sends the whole conversation with the fixed prompt as its last user turn, merged into the results it ends on', () => {
    const sent = summaryMessages(afterBatch, 0);
    expect(sent).toHaveLength(afterBatch.length);
    expect(sent.at(-1)!.content.at(-1)).toEqual({ text: { text: SUMMARY_PROMPT } });
    expect(sent.at(-1)!.content[0]).toEqual(afterBatch.at(-1)!.content[0]);
    expect(summaryMessages([user('Q'), answer('A')], 0)).toEqual([user('Q'), answer('A'), user(SUMMARY_PROMPT)]);
  });

  it('leaves out the oldest model turns when told to, saying so in the first turn, and keeps the pairs of calls and results whole', () => {
    const sent = summaryMessages(afterBatch, 2);
    expect(sent[0]!.content).toEqual([{ text: { text: 'Take notes.' } }, { text: { text: '[2 earlier model turns of this conversation are left out here: with them it is longer than the context window]' } }]);
    expect(sent.slice(1, -1)).toEqual(afterBatch.slice(5, -1));
    expect(sent[1]).toEqual(call('c'));
  });
});
