import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CHECKPOINT_LAYOUT,
  LinesDigest,
  canonicalRawText,
  decodeRecord,
  encodeFoldCheckpoint,
  encodeRecord,
  fold,
  modelCallOf,
  parseFoldCheckpoint,
  stateSnapshot,
  stateToJson,
  step,
  type FoldCheckpoint,
  type JournalRecord,
  type Message,
  type ModelCall,
  type RunState,
} from '../../src/core/index.js';
import { createHash } from 'node:crypto';
import { journal } from '../helpers/journals.js';
/** The build a checkpoint names. */
const BUILD = '1.2.3';

/** The checkpoint of `records` (every one a line of the journal) as a writer makes it. */
function checkpointOf(records: readonly JournalRecord[]): FoldCheckpoint {
  const digest = new LinesDigest();
  const lines = records.map((r) => encodeRecord(r));
  for (const line of lines) digest.addLine(line);
  const calls = records.map(modelCallOf).filter((c): c is ModelCall => c !== null);
  return { lines: digest.lines, length: digest.length, digest: digest.hex(), metaLine: lines[0]!, state: fold(records), calls };
}

/**
 * A journal line spelled as another writer may: whitespace after every `:` and
 * `,`, and the format's extra escapes (`<`, `>`, `&`, U+2028, U+2029) written as
 * the characters themselves; the same JSON values.
 */
function respelled(line: string): string {
  const LITERAL: Record<string, string> = { '\\u003c': '<', '\\u003e': '>', '\\u0026': '&', '\\u2028': '\u2028', '\\u2029': '\u2029' };
  let out = '';
  let inString = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (inString && c === '\\') {
      const escape = line.slice(i, line[i + 1] === 'u' ? i + 6 : i + 2);
      out += LITERAL[escape] ?? escape;
      i += escape.length - 1;
      continue;
    }
    out += c;
    if (c === '"') inString = !inString;
    else if (!inString && (c === ':' || c === ',')) out += ' \n ';
  }
  return out;
}

/** Every raw value's text in a state's messages. */
const rawTexts = (state: RunState): string[] =>
  [...state.messages, ...(state.pending === null ? [] : [state.pending.assistant])].flatMap((m: Message) =>
    m.content.flatMap((b) => ('tool_use' in b ? [b.tool_use.input.text] : 'provider' in b ? [b.provider.raw.text] : [])),
  );

describe('fold checkpoint', () => {
  it('folds, from a checkpoint of any prefix and the records after it, to exactly what the whole fold gives', () => {
    fc.assert(
      fc.property(
        journal.chain((j) => fc.record({ records: fc.constant(j.records), at: fc.integer({ min: 1, max: j.records.length }) })),
        ({ records, at }) => {
          const cp = parseFoldCheckpoint(encodeFoldCheckpoint(checkpointOf(records.slice(0, at)), BUILD), BUILD);
          expect(cp).not.toBeNull();
          const state = cp!.state;
          for (const record of records.slice(at)) step(state, record);
          const whole = fold(records);
          expect(state).toEqual(whole);
          expect(stateToJson(state)).toBe(stateToJson(whole));
          expect(cp!.calls).toEqual(records.slice(0, at).map(modelCallOf).filter((c) => c !== null));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('names its lines by their bytes: the digest of the lines is the digest of the journal text through them', () => {
    fc.assert(
      fc.property(journal, ({ records }) => {
        const lines = records.map((r) => encodeRecord(r));
        const cp = checkpointOf(records);
        const bytes = Buffer.from(lines.map((l) => `${l}\n`).join(''), 'utf8');
        const stored = new LinesDigest();
        stored.addBytes(bytes, lines.length);
        expect(stored.hex()).toBe(cp.digest);
        expect(stored.length).toBe(cp.length);
        const batched = new LinesDigest();
        batched.addLines(lines.slice(0, 2));
        batched.addLines(lines.slice(2));
        expect([batched.hex(), batched.length, batched.lines]).toEqual([cp.digest, cp.length, cp.lines]);
      }),
      { numRuns: 50 },
    );
  });

  it('is ignored when damaged, cut short, of another layout, or written by another build', () => {
    fc.assert(
      fc.property(journal, fc.nat(), ({ records }, where) => {
        const text = encodeFoldCheckpoint(checkpointOf(records), BUILD);
        const nl = text.indexOf('\n');
        // A character of the body changed (one JSON still parses, whatever it is).
        const at = nl + 1 + (where % (text.length - nl - 1));
        const flipped = text.slice(0, at) + (text[at] === 'a' ? 'b' : 'a') + text.slice(at + 1);
        expect(parseFoldCheckpoint(flipped, BUILD)).toBeNull();
        expect(parseFoldCheckpoint(text.slice(0, at), BUILD)).toBeNull();
        expect(parseFoldCheckpoint(text.replace(`"layout":${CHECKPOINT_LAYOUT}`, `"layout":${CHECKPOINT_LAYOUT + 1}`), BUILD)).toBeNull();
        expect(parseFoldCheckpoint(text, '1.2.4')).toBeNull(); // another build's
        expect(parseFoldCheckpoint(text, BUILD)).not.toBeNull();
      }),
      { numRuns: 50 },
    );
    expect(parseFoldCheckpoint('', BUILD)).toBeNull();
    expect(parseFoldCheckpoint('not a checkpoint\n{}', BUILD)).toBeNull();
  });

  it('reads the same from its stored bytes as from its text, and ignores bytes of the body changed or cut', () => {
    fc.assert(
      fc.property(journal, fc.nat(), ({ records }, where) => {
        const text = encodeFoldCheckpoint(checkpointOf(records), BUILD);
        const bytes = new Uint8Array(Buffer.from(text, 'utf8')); // as a store reads it: not a Buffer, any offset
        expect(parseFoldCheckpoint(bytes, BUILD)).toEqual(parseFoldCheckpoint(text, BUILD));
        const nl = bytes.indexOf(0x0a);
        const at = nl + 1 + (where % (bytes.length - nl - 1));
        const flipped = bytes.slice();
        flipped[at] = flipped[at] === 0x61 ? 0x62 : 0x61;
        expect(parseFoldCheckpoint(flipped, BUILD)).toBeNull();
        // A byte that is not UTF-8 where the body had another: the digest is of the bytes, so it is refused, not decoded to U+FFFD.
        const invalid = bytes.slice();
        invalid[at] = 0xff;
        expect(parseFoldCheckpoint(invalid, BUILD)).toBeNull();
        expect(parseFoldCheckpoint(bytes.subarray(0, at), BUILD)).toBeNull();
      }),
      { numRuns: 50 },
    );
  });

  it('holds raw values as the canonical text the journal reader made of them, however the lines spelled them', () => {
    fc.assert(
      fc.property(journal, ({ records }) => {
        const read = records.map((r) => decodeRecord(respelled(encodeRecord(r))));
        const cp = parseFoldCheckpoint(encodeFoldCheckpoint(checkpointOf(read), BUILD), BUILD);
        expect(cp).not.toBeNull();
        const texts = rawTexts(cp!.state);
        expect(texts).toEqual(rawTexts(fold(records)));
        for (const t of texts) expect(canonicalRawText(t)).toBe(t);
      }),
      { numRuns: 100 },
    );
  });

  it('is ignored when its messages are not the texts its head names, though the body digest matches', () => {
    const records = fc.sample(journal.filter(({ records }) => fold(records).messages.length > 1), { numRuns: 1, seed: 34 })[0]!.records;
    const text = encodeFoldCheckpoint(checkpointOf(records), BUILD);
    const nl = text.indexOf('\n');
    const header = JSON.parse(text.slice(0, nl)) as { body: string };
    const [head, texts] = [text.slice(nl + 1, text.indexOf('\n', nl + 1)), text.slice(text.indexOf('\n', nl + 1) + 1)];
    const parsed = JSON.parse(head) as { texts: number[]; state: { messages: number } };
    const withBody = (h: unknown, t: string): string => {
      const body = `${JSON.stringify(h)}\n${t}`;
      return `${JSON.stringify({ ...header, body: createHash('sha256').update(body, 'utf8').digest('hex') })}\n${body}`;
    };
    expect(parseFoldCheckpoint(withBody(parsed, texts), BUILD)).not.toBeNull();
    // Lengths that do not add up to the texts, a text missing, a count of messages other than the texts hold.
    expect(parseFoldCheckpoint(withBody({ ...parsed, texts: [parsed.texts[0]! + 1, ...parsed.texts.slice(1)] }, texts), BUILD)).toBeNull();
    expect(parseFoldCheckpoint(withBody({ ...parsed, texts: parsed.texts.slice(1) }, texts), BUILD)).toBeNull();
    expect(parseFoldCheckpoint(withBody({ ...parsed, state: { ...parsed.state, messages: parsed.state.messages + 1 } }, texts), BUILD)).toBeNull();
    // Model calls that are not six whole numbers each.
    const parsedCalls = (parsed as unknown as { calls: unknown[] }).calls;
    expect(parseFoldCheckpoint(withBody({ ...parsed, calls: [...parsedCalls, 1] }, texts), BUILD)).toBeNull();
    expect(parseFoldCheckpoint(withBody({ ...parsed, calls: [...parsedCalls, 1, 2, '3', 4, 5, 6] }, texts), BUILD)).toBeNull();
    expect(parseFoldCheckpoint(withBody({ ...parsed, calls: [...parsedCalls, 1, 2, 3, 4.5, 5, 6] }, texts), BUILD)).toBeNull();
    expect(parseFoldCheckpoint(withBody({ ...parsed, calls: [...parsedCalls, 1, 2, 3, 4, 5, 6] }, texts), BUILD)).not.toBeNull();
  });

  it('takes the state as it is when asked: what the live loop folds in next does not change it', () => {
    fc.assert(
      fc.property(
        journal.chain((j) => fc.record({ records: fc.constant(j.records), at: fc.integer({ min: 1, max: j.records.length }) })),
        ({ records, at }) => {
          const live = fold(records.slice(0, at));
          const taken = stateSnapshot(live);
          const text = stateToJson(taken);
          for (const record of records.slice(at)) step(live, record);
          expect(stateToJson(taken)).toBe(text);
          expect(taken).toEqual(fold(records.slice(0, at)));
        },
      ),
      { numRuns: 100 },
    );
  });
});
