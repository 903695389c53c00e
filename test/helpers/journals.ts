/**
 * fast-check arbitraries for valid journals: records in the write order a live
 * run produces (meta, an interactive run's typed turns before its first model
 * call, then turns of one assistant record and its tool results, interactive
 * follow-ups, terminal records where a run stops and is resumed).
 */
import fc from 'fast-check';
import { RawJson, type Block, type JournalRecord, type Message, type Payload } from '../../src/index.js';
import { canonicalMessageText, holdMessages } from '../../src/core/index.js';

/** Strings that exercise the escaping rules. */
export const text = fc.string({
  unit: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('a', 'b', ' ', 'z', '0') },
    { weight: 1, arbitrary: fc.constantFrom('<', '>', '&', '\u2028', '\u2029', '"', '\\', '\n', '\t', '\u0001', '\u007f', 'é', '🦜') },
    // Text that looks like the keys the decoder searches lines for.
    { weight: 1, arbitrary: fc.constantFrom('"input":', '"raw":', 'input"', '\\"input\\":', '{"input":1}', '}', '{') },
  ),
  maxLength: 12,
});

const number = fc.constantFrom('0', '1', '-1', '1.0', '1e3', '2.5E-3', '12345678901234567890');
export const rawValue: fc.Arbitrary<string> = fc.letrec<{ v: string }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    number,
    text.map((s) => JSON.stringify(s)),
    fc.constantFrom('true', 'false', 'null'),
    fc.array(tie('v'), { maxLength: 3 }).map((xs) => `[${xs.join(',')}]`),
    fc
      .array(fc.tuple(fc.constantFrom('a', 'input', 'raw', 'z', 'k<'), tie('v')), { maxLength: 3 })
      .map((kv) => `{${kv.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  ),
})).v;

/** JSON text, sometimes with insignificant whitespace that RawJson must compact. */
export const rawText = fc.tuple(rawValue, fc.boolean()).map(([v, spaced]) => (spaced ? ` ${v.replace(/,/g, ' ,\n ')} ` : v));

export const raw = rawText.map((t) => RawJson.fromText(t));

/** `messages` held as their canonical texts, as a fold checkpoint's load holds a conversation (core message-text.ts). */
export function heldMessages(messages: readonly Message[]): Message[] {
  const texts = messages.map(canonicalMessageText);
  return holdMessages(texts.join(','), texts.map((t) => t.length))!;
}

const count = fc.nat({ max: 5000 });

const prose: fc.Arbitrary<Block> = fc.oneof(
  text.map((t) => ({ text: { text: t } })),
  fc.record({ text: text, signature: fc.constantFrom('', 'c2lnbmF0dXJl') }).map(({ text, signature }) => {
    const thinking: { text?: string; signature?: string } = {};
    if (text) thinking.text = text;
    if (signature) thinking.signature = signature;
    return { thinking };
  }),
  fc.record({ kind: fc.constantFrom('server_tool_use', 'redacted_thinking'), raw }).map((provider) => ({ provider })),
);

interface TurnPlan {
  prose: Block[];
  toolInputs: RawJson[];
  /** Indexes of tool uses answered, in journal order. */
  answerOrder: number[];
  errors: boolean[];
  remote: boolean[];
  followUps: Block[][];
  suspendMidBatch: boolean;
  suspendAfter: boolean;
  tokens: [number, number, number | undefined, number | undefined];
}

const turnPlan = (interactive: boolean, last: boolean): fc.Arbitrary<TurnPlan> =>
  fc
    .record({
      prose: fc.array(prose, { maxLength: 2 }),
      toolInputs: fc.array(raw, { maxLength: 3 }),
      order: fc.array(fc.nat(), { maxLength: 3 }),
      partialKeep: fc.nat({ max: 2 }),
      errors: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
      remote: fc.array(fc.boolean(), { minLength: 3, maxLength: 3 }),
      followUps: fc.array(fc.array(text.map((t): Block => ({ text: { text: t } })), { minLength: 1, maxLength: 2 }), {
        maxLength: interactive ? 2 : 0,
      }),
      partial: fc.boolean(),
      suspendMidBatch: fc.boolean(),
      suspendAfter: fc.boolean(),
      tokens: fc.tuple(count, count, fc.option(count, { nil: undefined }), fc.option(count, { nil: undefined })),
    })
    .map((r) => {
      const n = r.toolInputs.length;
      // A permutation of the tool uses, driven by `order`.
      const idx = [...Array(n).keys()];
      for (let i = 0; i < Math.min(n, r.order.length); i++) {
        const j = r.order[i]! % n;
        [idx[i], idx[j]] = [idx[j]!, idx[i]!];
      }
      const partial = last && n > 0 && r.partial;
      const answerOrder = partial ? idx.slice(0, Math.min(r.partialKeep, n - 1)) : idx;
      let followUps = partial ? [] : r.followUps;
      // Without tool calls, only a follow-up (or the end of the run) can come after a turn.
      if (!last && n === 0 && followUps.length === 0) followUps = [[{ text: { text: 'go on' } }]];
      return {
        prose: r.prose,
        toolInputs: r.toolInputs,
        answerOrder,
        errors: r.errors,
        remote: r.remote,
        followUps,
        suspendMidBatch: partial && r.suspendMidBatch,
        suspendAfter: r.suspendAfter,
        tokens: r.tokens,
      };
    });

/**
 * What a person types into a chat before its first model call: its typed
 * turns (one user record each, right after meta; a chat started without a
 * prompt has no other opening), and whether the chat was left before the
 * call (suspended, then resumed).
 */
interface Opening {
  typed: Block[][];
  withoutPrompt: boolean;
  suspended: boolean;
}

const opening = (interactive: boolean): fc.Arbitrary<Opening> =>
  fc.record({
    typed: fc.array(fc.array(text.map((t): Block => ({ text: { text: t } })), { minLength: 1, maxLength: 2 }), { maxLength: interactive ? 2 : 0 }),
    withoutPrompt: fc.boolean(),
    suspended: fc.boolean(),
  });

export interface GeneratedJournal {
  records: JournalRecord[];
  interactive: boolean;
  /** The typed turns before the first assistant record (user records right after meta). */
  typedFirst: Block[][];
  plans: TurnPlan[];
}

/** A valid journal in write order, with what produced it. */
export const journal: fc.Arbitrary<GeneratedJournal> = fc
  .record({ interactive: fc.boolean(), prompt: text.filter((t) => t.length > 0), turns: fc.nat({ max: 4 }), runId: fc.constantFrom('r1', 'run_2', 'Z-9') })
  .chain(({ interactive, prompt, turns, runId }) =>
    fc
      .tuple(opening(interactive), fc.tuple(...[...Array(turns).keys()].map((i) => turnPlan(interactive, i === turns - 1))))
      .map(([first, plans]) => ({ interactive, prompt: first.typed.length > 0 && first.withoutPrompt ? '' : prompt, first, plans, runId })),
  )
  .map(({ interactive, prompt, first, plans, runId }) => {
    const payloads: Payload[] = [
      {
        meta: {
          version: 3,
          run_id: runId,
          created: '2026-11-30T01:02:03.5Z',
          fingerprint: {
            provider: 'script',
            model: 'm',
            system_hash: 'a'.repeat(64),
            tools_hash: 'b'.repeat(64),
            thinking_mode: 'off',
            max_tokens: 100,
            max_iterations: 10,
          },
          prompt,
          ...(interactive ? { interactive: true } : {}),
        },
      },
    ];
    for (const blocks of first.typed) payloads.push({ user: { message: { role: 'user', content: blocks } } });
    if (first.typed.length > 0 && first.suspended) payloads.push({ terminal: { reason: 'suspended' } });
    plans.forEach((plan, turn) => {
      const ids = plan.toolInputs.map((_, i) => `toolu_${turn}_${i}`);
      const content: Block[] = [...plan.prose, ...plan.toolInputs.map((input, i) => ({ tool_use: { id: ids[i]!, name: `tool${i}`, input } }))];
      const [inTok, outTok, cacheRead, cacheCreate] = plan.tokens;
      payloads.push({
        assistant: {
          iteration: turn,
          message: { role: 'assistant', content },
          stop_reason: ids.length > 0 ? 'tool_use' : 'end_turn',
          in_tokens: inTok,
          out_tokens: outTok,
          ...(cacheRead !== undefined ? { cache_read_tokens: cacheRead } : {}),
          ...(cacheCreate !== undefined ? { cache_create_tokens: cacheCreate } : {}),
        },
      });
      for (const i of plan.answerOrder) {
        payloads.push({
          tool_result: {
            tool_use_id: ids[i]!,
            result: { tool_use_id: ids[i]!, content: `out ${i}`, ...(plan.errors[i] ? { is_error: true } : {}) },
            ...(plan.remote[i] ? { remote: true } : {}),
          },
        });
      }
      if (plan.suspendMidBatch) payloads.push({ terminal: { reason: 'suspended' } });
      for (const blocks of plan.followUps) payloads.push({ user: { message: { role: 'user', content: blocks } } });
      if (plan.suspendAfter && !plan.suspendMidBatch) payloads.push({ terminal: { reason: 'suspended' } });
    });
    return { records: payloads.map((p, i) => ({ seq: i + 1, ...p }) as JournalRecord), interactive, typedFirst: first.typed, plans };
  });
