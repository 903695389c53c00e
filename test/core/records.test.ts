import { describe, expect, it } from 'vitest';
import { messageText } from '../../src/core/index.js';

describe("a message's prose", () => {
  it('is its text blocks on lines of their own, other blocks passed over', () => {
    const use = { tool_use: { id: 't', name: 'echo', input: { text: '{}' } } } as never;
    expect(messageText(undefined)).toBe('');
    expect(messageText({ role: 'assistant', content: [] })).toBe('');
    expect(messageText({ role: 'assistant', content: [use] })).toBe('');
    expect(messageText({ role: 'assistant', content: [{ text: { text: '' } }] })).toBe('');
    expect(messageText({ role: 'assistant', content: [{ text: { text: 'a' } }, use, { text: { text: '' } }, { text: { text: 'b' } }] })).toBe('a\n\nb');
  });
});
