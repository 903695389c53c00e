/**
 * The request's `messages`, written as JSON text at once (anthropicMessagesJson),
 * against the same messages built the straightforward way: the SDK's objects,
 * serialized by JSON.stringify with the raw values spliced in. The bytes must
 * be the same for every message the model can be sent.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type * as Api from '@anthropic-ai/sdk/resources/messages';
import { anthropicMessagesJson, toAnthropicParams } from '../../../src/agent/providers/anthropic-map.js';
import { RawSplicer } from '../../../src/agent/providers/raw-splice.js';
import {
  LinesDigest,
  RawJson,
  canonicalMessageText,
  decodeRecord,
  encodeFoldCheckpoint,
  encodeRecord,
  fold,
  fromByteField,
  heldRun,
  modelCallOf,
  parseFoldCheckpoint,
  step,
  toByteField,
  type Block,
  type JournalRecord,
  type Message,
  type ModelCall,
} from '../../../src/core/index.js';
import { heldMessages, journal, rawText } from '../../helpers/journals.js';
import { modelRequest } from './request.js';

// ---- the reference: objects built one by one, then serialized ---------------

const EPHEMERAL = { type: 'ephemeral' } as const;

function referenceBlock(block: Block, splicer: RawSplicer): Api.ContentBlockParam[] {
  if ('text' in block) return block.text.text === '' ? [] : [{ type: 'text', text: block.text.text }];
  if ('thinking' in block) {
    const { text, signature } = block.thinking;
    return signature === undefined ? [] : [{ type: 'thinking', thinking: text ?? '', signature: fromByteField(signature) }];
  }
  if ('tool_use' in block) {
    const { id, name, input } = block.tool_use;
    return [{ type: 'tool_use', id, name, input: splicer.slot(input.text) }];
  }
  if ('tool_result' in block) {
    const { tool_use_id, content, is_error } = block.tool_result;
    return [{ type: 'tool_result', tool_use_id, content, ...(is_error ? { is_error: true } : {}) }];
  }
  return [splicer.slot(block.provider.raw.text) as Api.ContentBlockParam];
}

function referenceMessages(messages: readonly Message[], promptCache: boolean, splicer: RawSplicer): Api.MessageParam[] {
  const out: Api.MessageParam[] = messages
    .map((m) => ({ role: m.role, content: m.content.flatMap((b) => referenceBlock(b, splicer)) }))
    .filter((m) => m.content.length > 0);
  const content = promptCache ? out.at(-1)?.content : undefined;
  if (Array.isArray(content)) {
    for (let i = content.length - 1; i >= 0; i--) {
      const block = content[i]!;
      if (block.type === 'text' || block.type === 'tool_use' || block.type === 'tool_result') {
        block.cache_control = EPHEMERAL;
        break;
      }
    }
  }
  return out;
}

const reference = (messages: readonly Message[], promptCache: boolean): string => {
  const splicer = new RawSplicer();
  return splicer.stringify(referenceMessages(messages, promptCache, splicer));
};

// ---- what is generated ------------------------------------------------------

/** Strings that exercise every escape JSON.stringify makes, and those it leaves alone. */
const str = fc.string({
  unit: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('a', 'z', ' ', '0') },
    {
      weight: 2,
      arbitrary: fc.constantFrom('\ud800', '\udc00', '\udbff', '🦜', '\u2028', '\u2029', '"', '\\', '/', '\n', '\r', '\t', '\b', '\f', '\u0000', '\u0001', '\u001f', '\u007f', '\u0085', 'é', '<', '>', '&', '\ufeff'),
    },
    { weight: 1, arbitrary: fc.constantFrom('"cache_control":', '\u0000raw-', '},{', ']}', '{"type":"text"}') },
  ),
  maxLength: 10,
});

const raw = rawText.map((t) => RawJson.fromText(t));

const block: fc.Arbitrary<Block> = fc.oneof(
  str.map((text) => ({ text: { text } })),
  fc.record({ text: fc.option(str, { nil: undefined }), signature: fc.option(str, { nil: undefined }) }).map(({ text, signature }) => {
    const thinking: { text?: string; signature?: string } = {};
    if (text !== undefined) thinking.text = text;
    if (signature !== undefined) thinking.signature = toByteField(signature);
    return { thinking };
  }),
  fc.record({ id: str, name: str, input: raw }).map((tool_use) => ({ tool_use })),
  fc
    .record({ tool_use_id: str, content: fc.option(str, { nil: undefined }), is_error: fc.option(fc.boolean(), { nil: undefined }) })
    .map(({ tool_use_id, content, is_error }) => ({
      tool_result: { tool_use_id, ...(content !== undefined ? { content } : {}), ...(is_error !== undefined ? { is_error } : {}) } as { tool_use_id: string; content: string },
    })),
  fc
    .record({ kind: fc.constantFrom('server_tool_use', 'redacted_thinking', 'web_search_tool_result'), raw })
    .map((provider) => ({ provider })),
);

/** A role is a string to the serializer: the two the API knows and any other, names of Object.prototype's members among them. */
const role = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('user', 'assistant') },
  { weight: 1, arbitrary: fc.oneof(str, fc.constantFrom('constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf')) },
) as fc.Arbitrary<Message['role']>;

/**
 * Messages drawn from pools of blocks and messages, so one block object can
 * stand at two places of a message, and one message at two places of the
 * conversation (as a request's messages may share objects).
 */
const conversation: fc.Arbitrary<Message[]> = fc
  .record({
    blocks: fc.array(block, { minLength: 1, maxLength: 6 }),
    shapes: fc.array(fc.record({ role, picks: fc.array(fc.nat(), { maxLength: 5 }) }), { minLength: 1, maxLength: 5 }),
    order: fc.array(fc.nat(), { maxLength: 7 }),
  })
  .map(({ blocks, shapes, order }) => {
    const pool: Message[] = shapes.map(({ role, picks }) => ({ role, content: picks.map((i) => blocks[i % blocks.length]!) }));
    return order.map((i) => pool[i % pool.length]!);
  });

const held = heldMessages;

/**
 * A conversation as a resume from a checkpoint has it: held messages (some
 * already read, some standing twice), with messages of the live loop among
 * them; and the same conversation of plain objects, for the reference.
 */
const resumed: fc.Arbitrary<{ messages: Message[]; plain: Message[] }> = fc
  .record({ messages: conversation, fresh: conversation, reads: fc.array(fc.nat()), order: fc.array(fc.nat(), { maxLength: 12 }) })
  .map(({ messages, fresh, reads, order }) => {
    const copies = held(messages);
    const plain = held(messages);
    for (const m of plain) void m.content; // read whole: plain objects from here on
    for (const r of reads) if (copies.length > 0) void copies[r % copies.length]!.content;
    // Mostly the held messages in their order, then the live loop's, with some picked out of order.
    const at = (i: number): [Message, Message] | undefined => (i < copies.length ? [copies[i]!, plain[i]!] : fresh.length > 0 ? [fresh[i % fresh.length]!, fresh[i % fresh.length]!] : undefined);
    const picks = order.length === 0 ? [...copies.keys(), ...fresh.keys()].map((i, k) => (k < copies.length ? i : copies.length + i)) : order;
    const pairs = picks.map((i) => at(i % Math.max(1, copies.length + fresh.length))).filter((p) => p !== undefined);
    return { messages: pairs.map((p) => p[0]), plain: pairs.map((p) => p[1]) };
  });

/** A string of a record's text as a model or a person may give it: some characters lone surrogates, which the journal stores as U+FFFD. */
const withLoneSurrogates = (s: string): string => s.replace(/z/g, '\ud800').replace(/0/g, '\udc00');
const surrogateBlock = (b: Block): Block =>
  'text' in b ? { text: { text: withLoneSurrogates(b.text.text) } } : 'thinking' in b && b.thinking.text !== undefined ? { thinking: { ...b.thinking, text: withLoneSurrogates(b.thinking.text) } } : b;
const surrogateMessage = (m: Message): Message => ({ ...m, content: m.content.map(surrogateBlock) });
function withSurrogates(r: JournalRecord): JournalRecord {
  if ('assistant' in r) return { ...r, assistant: { ...r.assistant, message: surrogateMessage(r.assistant.message) } };
  if ('user' in r) return { ...r, user: { ...r.user, message: surrogateMessage(r.user.message) } };
  if ('tool_result' in r) return { ...r, tool_result: { ...r.tool_result, result: { ...r.tool_result.result, content: withLoneSurrogates(r.tool_result.result.content) } } };
  return r;
}

describe('anthropic request messages as JSON text', () => {
  it('are the same bytes from a checkpoint its writer kept of its own records and the records after it as from the whole fold of the lines stored', () => {
    fc.assert(
      fc.property(
        journal.chain((j) => fc.record({ records: fc.constant(j.records.map(withSurrogates)), at: fc.integer({ min: 1, max: j.records.length }) })),
        fc.boolean(),
        ({ records, at }, promptCache) => {
          const lines = records.map((r) => encodeRecord(r));
          const stored = lines.map((line) => decodeRecord(line));
          // The writer's checkpoint: the fold of its own records (their strings as it has them), named by the lines it wrote.
          const digest = new LinesDigest();
          for (const line of lines.slice(0, at)) digest.addLine(line);
          const calls = records.slice(0, at).map(modelCallOf).filter((c): c is ModelCall => c !== null);
          const written = { lines: digest.lines, length: digest.length, digest: digest.hex(), metaLine: lines[0]!, state: fold(records.slice(0, at)), calls };
          const state = parseFoldCheckpoint(encodeFoldCheckpoint(written, 'b'), 'b')!.state;
          for (const record of stored.slice(at)) step(state, record);
          expect(anthropicMessagesJson(state.messages, promptCache)).toBe(anthropicMessagesJson(fold(stored).messages, promptCache));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('are the same bytes for messages still held as a checkpoint’s text as for the same messages as objects, and leave them held', () => {
    fc.assert(
      fc.property(resumed, fc.boolean(), ({ messages, plain }, promptCache) => {
        const heldBefore = messages.map((_, i) => heldRun(messages, i, i + 1) !== null);
        const written = anthropicMessagesJson(messages, promptCache);
        expect(written).toBe(reference(plain, promptCache));
        // A held message whose text is what the API takes (and carries no breakpoint) is written from its text, not parsed.
        const last = promptCache ? plain.findLastIndex((m) => reference([m], false) !== '[]') : -1;
        messages.forEach((m, i) => {
          const text = heldBefore[i] ? canonicalMessageText(m) : '';
          if (heldBefore[i] && i !== last && !messages.slice(i).some((x, j) => j > 0 && x === m) && reference([plain[i]!], false) === `[${text}]`)
            expect(heldRun(messages, i, i + 1)).not.toBeNull();
        });
      }),
      { numRuns: 1000 },
    );
  });


  it('are the bytes of the SDK objects serialized with their raw values spliced in, for any messages', () => {
    fc.assert(
      fc.property(conversation, fc.boolean(), (messages, promptCache) => {
        expect(anthropicMessagesJson(messages, promptCache)).toBe(reference(messages, promptCache));
      }),
      { numRuns: 2000 },
    );
  });

  it('make the request body the SDK serializes the same as with the messages built as objects', () => {
    fc.assert(
      fc.property(conversation, fc.boolean(), (messages, promptCache) => {
        const request = modelRequest({ messages, promptCache });
        const splicer = new RawSplicer();
        const sent = splicer.stringify(toAnthropicParams(request, 'claude-test', splicer));
        const refSplicer = new RawSplicer();
        const expected = toAnthropicParams(request, 'claude-test', refSplicer) as unknown as Record<string, unknown>;
        expected.messages = referenceMessages(messages, promptCache, refSplicer);
        expect(sent).toBe(refSplicer.stringify(expected));
        // And it is JSON: the conversation as written, whole.
        expect(JSON.parse(sent).messages).toEqual(JSON.parse(reference(messages, promptCache)));
      }),
      { numRuns: 300 },
    );
  });
});
