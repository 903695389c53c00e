import fc from 'fast-check';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { RawJson, canonicalMessageText, decodeRecord, encodeRecord, fold, heldRun, holdMessages, openApiBlockText, type Message, type ToolResultBlock } from '../../src/core/index.js';
import { heldMessages, journal } from '../helpers/journals.js';

/** A journal's conversation, its pending turn's assistant message after it. */
const conversation = journal.map(({ records }) => {
  const state = fold(records);
  return state.pending === null ? state.messages : [...state.messages, state.pending.assistant];
});

const held = heldMessages;

/** Whether each message is still held as its text (its content not read). */
const stillHeld = (messages: readonly Message[]): boolean[] => messages.map((_, i) => heldRun(messages, i, i + 1) !== null);

describe('messages held as their canonical text', () => {
  it('read as the messages they were written from, each its own role and content', () => {
    fc.assert(
      fc.property(conversation, (messages) => {
        const copies = held(messages);
        expect(copies).toEqual(messages);
        // As a state's JSON writes them, and as anything that spreads or serializes a message sees it.
        expect(JSON.stringify(held(messages))).toBe(JSON.stringify(messages));
        expect(held(messages).map((m) => ({ ...m }))).toEqual(messages);
        for (const m of held(messages)) expect(Object.keys(m)).toEqual(['role', 'content']);
      }),
      { numRuns: 200 },
    );
  });

  it('show as the messages the journal’s lines fold to where a console or a debug log shows them (util.inspect), content and all', () => {
    const stored = journal.map(({ records }) => {
      const state = fold(records.map((r) => decodeRecord(encodeRecord(r))));
      return state.pending === null ? state.messages : [...state.messages, state.pending.assistant];
    });
    fc.assert(
      fc.property(stored, (messages) => {
        const shown = (ms: readonly Message[]): string[] => ms.map((m) => inspect(m, { depth: Infinity }));
        const copies = held(messages);
        expect(shown(copies)).toEqual(shown(messages));
        expect(stillHeld(copies).every(Boolean)).toBe(true);
        void copies.map((m) => m.content);
        expect(shown(copies)).toEqual(shown(messages));
      }),
      { numRuns: 100 },
    );
  });

  it('are parsed at the first read of their content, one message at a time, and a content set takes the text’s place', () => {
    fc.assert(
      fc.property(
        conversation.filter((m) => m.length >= 2),
        fc.nat(),
        (messages, pick) => {
          const copies = held(messages);
          const at = pick % messages.length;
          expect(stillHeld(copies).every(Boolean)).toBe(true);
          // Their roles are read without parsing anything.
          expect(copies.map((m) => m.role)).toEqual(messages.map((m) => m.role));
          expect(stillHeld(copies).every(Boolean)).toBe(true);
          const content = copies[at]!.content;
          expect(content).toEqual(messages[at]!.content);
          expect(copies[at]!.content).toBe(content); // parsed once
          expect(stillHeld(copies)).toEqual(copies.map((_, i) => i !== at));
          // Its text is written from its blocks from then on: what holds the content may change it.
          content.push({ text: { text: 'added' } });
          expect(canonicalMessageText(copies[at]!)).toBe(canonicalMessageText({ ...messages[at]!, content: [...messages[at]!.content, { text: { text: 'added' } }] }));
          const other = (at + 1) % messages.length;
          copies[other]!.content = [];
          expect(copies[other]!.content).toEqual([]);
          expect(heldRun(copies, other, other + 1)).toBeNull();
        },
      ),
      { numRuns: 100 },
    );
  });

  it('give their text as runs of messages held one after another in the order they were written', () => {
    fc.assert(
      fc.property(conversation.filter((m) => m.length >= 3), (messages) => {
        const texts = messages.map(canonicalMessageText);
        const copies = held(messages);
        expect(heldRun(copies, 0, copies.length)).toEqual({ text: texts.join(','), end: copies.length });
        expect(heldRun(copies, 1, 2)).toEqual({ text: texts[1], end: 2 });
        // A run ends at a message not held, one held elsewhere, or one out of its place.
        expect(heldRun([copies[0]!, messages[1]!, copies[2]!], 0, 3)).toEqual({ text: texts[0], end: 1 });
        expect(heldRun([messages[0]!, copies[1]!], 0, 2)).toBeNull();
        expect(heldRun([copies[0]!, held(messages)[1]!], 0, 2)).toEqual({ text: texts[0], end: 1 });
        expect(heldRun([copies[0]!, copies[2]!], 0, 2)).toEqual({ text: texts[0], end: 1 });
        expect(canonicalMessageText(copies[1]!)).toBe(texts[1]);
        expect(stillHeld(copies).every(Boolean)).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it('hold strings as the journal stores them: a lone surrogate as U+FFFD', () => {
    const message: Message = { role: 'user', content: [{ text: { text: 'a\ud800b' } }, { tool_result: { tool_use_id: '\udc00', content: 'x' } }] };
    const [copy] = held([message]);
    expect(copy!.content).toEqual([{ text: { text: 'a\ufffdb' } }, { tool_result: { tool_use_id: '\ufffd', content: 'x' } }]);
  });

  it('are none when the lengths named do not add up to the text', () => {
    const texts = [{ role: 'user', content: [] }, { role: 'assistant', content: [{ text: { text: 'hi' } }] }].map((m) => canonicalMessageText(m as Message));
    const text = texts.join(',');
    expect(holdMessages(text, texts.map((t) => t.length))).toHaveLength(2);
    expect(holdMessages(text, [texts[0]!.length, texts[1]!.length + 1])).toBeNull();
    expect(holdMessages(text, [text.length - 1])).toBeNull();
    expect(holdMessages('', [])).toEqual([]);
    expect(holdMessages('x', [])).toBeNull();
  });

  it('are none when the lengths named add up to the text but cut it elsewhere than between its messages', () => {
    const messages = [
      { role: 'user', content: [{ text: { text: 'a' } }] },
      { role: 'assistant', content: [{ text: { text: 'bb' } }, { tool_use: { id: 'i', name: 'n', input: RawJson.fromText('{"role":"user","content":[]}') } }] },
      { role: 'user', content: [] },
    ] as Message[];
    const texts = messages.map(canonicalMessageText);
    const text = texts.join(',');
    for (const at of [0, 1]) {
      for (let shift = -texts[at]!.length + 1; shift < texts[at + 1]!.length; shift++) {
        if (shift === 0) continue;
        const lengths = texts.map((t) => t.length);
        lengths[at]! += shift;
        lengths[at + 1]! -= shift;
        let held: Message[] | null | 'threw' = 'threw';
        try {
          held = holdMessages(text, lengths);
        } catch {
          // a load takes a throw as no checkpoint too, but holdMessages's answer is null
        }
        expect(held, `message ${at} by ${shift}`).toBeNull();
      }
    }
  });
});

describe('a block in the Messages API shape (openApiBlockText)', () => {
  const quote = (s: string): string => `<${s}>`;

  it('is written field by field in the API’s order, open for a breakpoint, each string by the quote it is given and raw input as it is', () => {
    expect(openApiBlockText({ text: { text: 'hi' } }, quote)).toBe('{"type":"text","text":<hi>');
    expect(openApiBlockText({ tool_use: { id: 't1', name: 'echo', input: RawJson.fromText('{"n":1.0}') } }, quote)).toBe(
      '{"type":"tool_use","id":<t1>,"name":<echo>,"input":{"n":1.0}',
    );
    // A result without content, as a journal may hold one (the record's type says otherwise).
    const bare = { tool_result: { tool_use_id: 't1' } } as unknown as ToolResultBlock;
    expect(openApiBlockText(bare, quote)).toBe('{"type":"tool_result","tool_use_id":<t1>');
    expect(openApiBlockText({ tool_result: { tool_use_id: 't1', content: 'out', is_error: true } }, quote)).toBe(
      '{"type":"tool_result","tool_use_id":<t1>,"content":<out>,"is_error":true',
    );
    expect(openApiBlockText({ tool_result: { tool_use_id: 't1', content: '', is_error: false } }, quote)).toBe('{"type":"tool_result","tool_use_id":<t1>,"content":<>');
  });

  it('is the block’s text in a message’s canonical text, closed', () => {
    const block = { tool_result: { tool_use_id: 't\ud800', content: 'a\nb' } };
    const wellFormed = (s: string): string => JSON.stringify(s.toWellFormed());
    expect(canonicalMessageText({ role: 'user', content: [block] })).toBe(`{"role":"user","content":[${openApiBlockText(block, wellFormed)}}]}`);
  });
});
